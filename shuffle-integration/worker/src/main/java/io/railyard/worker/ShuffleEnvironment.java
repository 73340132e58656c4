package io.railyard.worker;

import io.railyard.deployment.BlobStore;
import io.railyard.deployment.GroupDescriptors;
import io.railyard.deployment.InputDescriptor;
import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.deployment.WorkerDescriptorCache;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.PartitionId;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One worker's shuffle environment, the worker side of the JobManager seam (Flink's {@code
 * ShuffleEnvironment}): a task attempt's deployment descriptor goes in, its result-partition
 * writers and input gates come out ({@link #deploy}, then {@link TaskShuffle}). It holds the
 * worker's {@link ShuffleWorker} (buffer pool, directory, IO thread), the partitions the worker
 * holds ({@link PartitionRegistry}), the worker's cache of consumed-group descriptors, and reaches
 * the partitions of other workers through a {@link PartitionLocator} — in-process for the local
 * engine, over the network for a worker in its own process.
 *
 * <p>Result types map to partition kinds ({@link #kindOf}): BLOCKING to the worker's blocking kind
 * ({@link PartitionKind#SORT} or {@link PartitionKind#HASH}), HYBRID_FULL and HYBRID_SELECTIVE to
 * the hybrid kinds, PIPELINED and PIPELINED_BOUNDED to {@link PartitionKind#PIPELINED}.
 *
 * <p>Network memory: a task that the worker's pool cannot pledge its writers and gates to now waits
 * for memory to come back when it starts ({@link TaskShuffle#start}, at most {@link #MEMORY_WAIT}
 * without any), instead of failing and being restarted at once.
 *
 * <p>Thread-safe: task threads deploy, open and finish concurrently; each {@link TaskShuffle} is
 * then owned by its task. Offloaded descriptor groups are fetched and decoded once per worker.
 */
public final class ShuffleEnvironment {
    /**
     * How long a starting task waits for network memory without any coming back before it fails
     * ({@link TaskShuffle#start}): as long as a consumer waits for a partition no producer
     * registers ({@link PartitionRegistry#WAIT_MILLIS}).
     */
    public static final Duration MEMORY_WAIT = Duration.ofMillis(PartitionRegistry.WAIT_MILLIS);

    private final int worker;
    private final ShuffleWorker shuffle;
    private final PartitionKind blocking;
    private final PartitionRegistry partitions = new PartitionRegistry();
    private final WorkerDescriptorCache descriptors;
    private final PartitionLocator peers;
    private final @Nullable ShuffleNetwork network;
    private final boolean ownDirectly;

    /**
     * The environment of worker {@code worker}, writing through {@code shuffle}, BLOCKING results
     * as {@code blocking} partitions, offloaded descriptor groups read from {@code blobs}, other
     * workers' partitions found through {@code peers}.
     *
     * @throws IllegalArgumentException if {@code blocking} is readable while written (not SORT or
     *     HASH)
     */
    public ShuffleEnvironment(
            int worker,
            ShuffleWorker shuffle,
            PartitionKind blocking,
            BlobStore blobs,
            PartitionLocator peers) {
        this(worker, shuffle, blocking, blobs, peers, null);
    }

    /**
     * An environment as {@link #ShuffleEnvironment(int, ShuffleWorker, PartitionKind, BlobStore,
     * PartitionLocator)} makes, whose gates read every partition — of this worker too — through
     * {@code network} when it is not null (the local engine's {@code --transport tcp}), and whose
     * deployments have the network serve their job (with the secret their descriptor carries).
     *
     * @throws IllegalArgumentException if {@code blocking} is readable while written
     */
    public ShuffleEnvironment(
            int worker,
            ShuffleWorker shuffle,
            PartitionKind blocking,
            BlobStore blobs,
            PartitionLocator peers,
            @Nullable ShuffleNetwork network) {
        this(worker, shuffle, blocking, blobs, peers, network, false);
    }

    /**
     * An environment whose gates read the partitions this worker holds directly, through its own IO
     * thread, and every other worker's through {@code network} — one gate to the task, whatever the
     * mix ({@code ownDirectly}); or, without {@code ownDirectly}, as {@link
     * #ShuffleEnvironment(int, ShuffleWorker, PartitionKind, BlobStore, PartitionLocator,
     * ShuffleNetwork)}.
     *
     * @throws IllegalArgumentException if {@code blocking} is readable while written
     */
    public ShuffleEnvironment(
            int worker,
            ShuffleWorker shuffle,
            PartitionKind blocking,
            BlobStore blobs,
            PartitionLocator peers,
            @Nullable ShuffleNetwork network,
            boolean ownDirectly) {
        if (blocking.isReadableWhileWritten()) {
            throw new IllegalArgumentException(
                    "the partition kind of BLOCKING results must be SORT or HASH, was " + blocking);
        }
        this.worker = worker;
        this.shuffle = shuffle;
        this.blocking = blocking;
        this.descriptors = new WorkerDescriptorCache(blobs);
        this.peers = peers;
        this.network = network;
        this.ownDirectly = ownDirectly;
    }

    /** This worker's index in the job's worker table. */
    public int worker() {
        return worker;
    }

    /** This worker's shuffle layer. */
    public ShuffleWorker shuffle() {
        return shuffle;
    }

    /** The partitions this worker holds. */
    public PartitionRegistry partitions() {
        return partitions;
    }

    /**
     * The shuffle of the attempt {@code descriptor} describes, run by {@code attempt}: the
     * partitions readable while written (hybrid, pipelined) are created and registered now, so a
     * consumer deployed with or after it finds them — unless the worker's network memory cannot
     * pledge them now: then the task creates them when it starts, waiting for memory ({@link
     * TaskShuffle#start}), and its consumers wait for them as for any partition not registered yet;
     * blocking ones when the task starts.
     *
     * @throws IOException if a partition cannot be created; what was created is closed
     */
    public TaskShuffle deploy(TaskDeploymentDescriptor descriptor, TaskShuffle.Attempt attempt)
            throws IOException {
        if (network != null) {
            network.serve(descriptor.job(), descriptor.secret(), partitions);
        }
        TaskShuffle task = new TaskShuffle(this, descriptor, attempt);
        try {
            task.deploy();
        } catch (IOException | RuntimeException e) {
            task.close();
            throw e;
        }
        return task;
    }

    /** The partition kind of results of {@code type} on this worker. */
    public PartitionKind kindOf(ResultPartitionType type) {
        return kindOf(type, blocking);
    }

    /**
     * The partition kind of results of {@code type} on a worker whose BLOCKING results are of kind
     * {@code blocking}.
     */
    public static PartitionKind kindOf(ResultPartitionType type, PartitionKind blocking) {
        return switch (type) {
            case BLOCKING -> blocking;
            case HYBRID_FULL -> PartitionKind.HYBRID_FULL;
            case HYBRID_SELECTIVE -> PartitionKind.HYBRID_SELECTIVE;
            case PIPELINED, PIPELINED_BOUNDED -> PartitionKind.PIPELINED;
        };
    }

    /** The decoded group an input descriptor names (an offloaded one fetched once). */
    GroupDescriptors resolve(InputDescriptor input) throws IOException {
        return descriptors.resolve(input);
    }

    /**
     * A gate named {@code name} of {@code task} over subpartition {@code subpartition} of {@code
     * partitions}, held by {@code holders}: through the network if there is one, else from this
     * worker's registry and, through the locator, other workers' (waiting for each as {@link
     * PartitionRegistry#await} does).
     */
    InputGate openGate(
            String name,
            TaskDeploymentDescriptor task,
            int[] holders,
            List<PartitionId> partitions,
            int subpartition,
            PartitionRegistry.Waiter waiter)
            throws PartitionLostException, InterruptedException {
        if (network != null && ownDirectly) {
            return openMixedGate(network, name, task, holders, partitions, subpartition, waiter);
        }
        if (network != null) {
            return network.openGate(
                    name, task.job(), task.secret(), holders, partitions, subpartition);
        }
        List<ResultPartition> read = new ArrayList<>(partitions.size());
        for (int i = 0; i < partitions.size(); i++) {
            read.add(partition(holders[i], partitions.get(i), waiter));
        }
        return shuffle.openGate(name, read, subpartition);
    }

    /**
     * A gate reading this worker's partitions directly and the others' through {@code network}: one
     * part each (a {@link CompositeInputGate} when there are both).
     */
    private InputGate openMixedGate(
            ShuffleNetwork network,
            String name,
            TaskDeploymentDescriptor task,
            int[] holders,
            List<PartitionId> partitions,
            int subpartition,
            PartitionRegistry.Waiter waiter)
            throws PartitionLostException, InterruptedException {
        List<ResultPartition> own = new ArrayList<>();
        List<Integer> ownChannels = new ArrayList<>();
        List<PartitionId> remote = new ArrayList<>();
        List<Integer> remoteHolders = new ArrayList<>();
        List<Integer> remoteChannels = new ArrayList<>();
        for (int i = 0; i < partitions.size(); i++) {
            if (holders[i] == worker) {
                own.add(this.partitions.await(partitions.get(i), waiter));
                ownChannels.add(i);
            } else {
                remote.add(partitions.get(i));
                remoteHolders.add(holders[i]);
                remoteChannels.add(i);
            }
        }
        if (remote.isEmpty()) {
            return shuffle.openGate(name, own, subpartition);
        }
        int[] held = remoteHolders.stream().mapToInt(Integer::intValue).toArray();
        if (own.isEmpty()) {
            return network.openGate(name, task.job(), task.secret(), held, remote, subpartition);
        }
        InputGate direct = shuffle.openGate(name + ".own", own, subpartition);
        InputGate overNetwork;
        try {
            overNetwork =
                    network.openGate(
                            name + ".net", task.job(), task.secret(), held, remote, subpartition);
        } catch (RuntimeException e) {
            direct.close();
            throw e;
        }
        return new CompositeInputGate(
                name,
                new InputGate[] {direct, overNetwork},
                new int[][] {
                    ownChannels.stream().mapToInt(Integer::intValue).toArray(),
                    remoteChannels.stream().mapToInt(Integer::intValue).toArray()
                },
                partitions.size());
    }

    /**
     * Partition {@code id}, held by worker {@code holder}: from this worker's registry if it is
     * this worker, else through the locator; waits for it as {@link PartitionRegistry#await} does.
     */
    private ResultPartition partition(int holder, PartitionId id, PartitionRegistry.Waiter waiter)
            throws PartitionLostException, InterruptedException {
        return holder == worker ? partitions.await(id, waiter) : peers.find(holder, id, waiter);
    }
}
