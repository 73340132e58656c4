package io.railyard.worker;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.deployment.BlobStore;
import io.railyard.deployment.GroupDescriptors;
import io.railyard.deployment.InputDescriptor;
import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.deployment.WorkerDescriptorCache;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionFeed;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.PartitionId;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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
 * for memory to come back when it starts ({@link TaskShuffle#tryStart}, at most {@link
 * #memoryWait()} without any), instead of failing and being restarted at once.
 *
 * <p>Thread-safe: task threads deploy, open and finish concurrently; each {@link TaskShuffle} is
 * then owned by its task. Offloaded descriptor groups are fetched and decoded once per worker.
 */
public final class ShuffleEnvironment {
    /**
     * How long a starting task waits for network memory without any coming back before it fails, by
     * default: as long as a consumer waits for a partition no producer registers ({@link
     * PartitionRegistry#WAIT_MILLIS}).
     */
    public static final Duration MEMORY_WAIT = Duration.ofMillis(PartitionRegistry.WAIT_MILLIS);

    private volatile Duration memoryWait = MEMORY_WAIT;

    private final int worker;
    private final ShuffleWorker shuffle;
    private final PartitionKind blocking;
    private final PartitionRegistry partitions = new PartitionRegistry();
    private final WorkerDescriptorCache descriptors;
    private final PartitionLocator peers;
    private final @Nullable ShuffleNetwork network;
    private final boolean ownDirectly;

    // The inputs of the groups gates read here now, by the decoded group (one object per group
    // that is offloaded, so all its consumers here share one feed).
    @GuardedBy("this")
    private final IdentityHashMap<GroupDescriptors, GroupInput> inputs = new IdentityHashMap<>();

    // Pages pledged to the pipelined and hybrid writers of attempts started and not finished here.
    private final AtomicInteger streamingWriterPages = new AtomicInteger();

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

    /**
     * How long a starting task waits for network memory without any coming back before it fails
     * ({@link #MEMORY_WAIT} unless set).
     */
    public Duration memoryWait() {
        return memoryWait;
    }

    /** Tests: sets {@link #memoryWait()}. */
    void memoryWait(Duration wait) {
        this.memoryWait = wait;
    }

    /** This worker's shuffle layer. */
    public ShuffleWorker shuffle() {
        return shuffle;
    }

    /**
     * Pages pledged to the writers of partitions read while written (pipelined and hybrid) of the
     * attempts that started here and have not finished: a source that would write one starts while
     * as many pages stay spare, for those writers' resident regions ({@link TaskShuffle#tryStart}).
     * O(1).
     */
    int streamingWriterPages() {
        return streamingWriterPages.get();
    }

    /** Such writers of {@code delta} pages started (positive) or finished (negative). */
    void addStreamingWriterPages(int delta) {
        streamingWriterPages.addAndGet(delta);
    }

    /** The partitions this worker holds. */
    public PartitionRegistry partitions() {
        return partitions;
    }

    /**
     * The shuffle of the attempt {@code descriptor} describes, run by {@code attempt}. Nothing is
     * created yet: the task creates its partitions and opens its gates when it starts ({@link
     * TaskShuffle#tryStart}), so an attempt waiting for a slot holds no network memory; its
     * consumers wait for its partitions as for any partition not registered yet. O(1).
     */
    public TaskShuffle deploy(TaskDeploymentDescriptor descriptor, TaskShuffle.Attempt attempt) {
        if (network != null) {
            network.serve(descriptor.job(), descriptor.secret(), partitions);
        }
        return new TaskShuffle(this, descriptor, attempt);
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
     * Whether this worker reads a partition held by {@code holder} directly, through its own
     * shuffle layer, rather than over its network: always without a network; with one, only its own
     * partitions and only if it reads those directly.
     */
    private boolean readsDirectly(int holder) {
        return network == null || (ownDirectly && holder == worker);
    }

    /** The registry of worker {@code holder}'s partitions: this worker's, or a peer's. */
    PartitionRegistry registryOf(int holder) {
        return holder == worker ? partitions : peers.registry(holder);
    }

    /**
     * The input of {@code group} on this worker — the feed of the partitions it reads directly,
     * shared by every gate of the group here — made at its first gate, O(partitions) then, and O(1)
     * for every later one, also after earlier gates closed (consumers that run one after another,
     * in waves of slots). It lives as long as this environment (one job on the worker): its feed
     * holds a reference per partition and an entry per region, not the data.
     */
    synchronized GroupInput openInput(GroupDescriptors group) {
        GroupInput input = inputs.get(group);
        if (input == null) {
            int[] direct = GroupInput.directChannels(group, this::readsDirectly);
            PartitionFeed feed =
                    shuffle.newFeed(
                            "group " + group.group() + " of worker " + worker, direct.length);
            input = new GroupInput(group, direct, feed, this::registryOf);
            inputs.put(group, input);
        }
        return input;
    }

    /**
     * A gate named {@code name} of {@code task} over subpartition {@code subpartition} of every
     * partition of {@code group}: those this worker reads directly through {@code input}'s feed,
     * the others through the network — one gate to the task, a {@link CompositeInputGate} over two
     * parts when there are both. Never waits: partitions not registered yet are read once they are.
     * O(1) for a group read directly; O(partitions) for one read over the network.
     *
     * @throws PartitionLostException if a partition of the group was released (the feed failed)
     */
    InputGate openGate(
            String name,
            TaskDeploymentDescriptor task,
            GroupDescriptors group,
            GroupInput input,
            int subpartition)
            throws PartitionLostException {
        if (input.isWhole(group.size())) {
            return shuffle.openGate(name, input.feed(), subpartition);
        }
        ShuffleNetwork net = network;
        if (net == null) {
            throw new IllegalStateException(
                    "gate '" + name + "': partitions of other workers and no network");
        }
        int[] remote = GroupInput.otherChannels(group.size(), input.channels());
        int[] holders = new int[remote.length];
        List<PartitionId> ids = new ArrayList<>(remote.length);
        for (int k = 0; k < remote.length; k++) {
            holders[k] = group.worker(remote[k]);
            ids.add(
                    new PartitionId(
                            group.firstPartition() + remote[k], group.producerAttempt(remote[k])));
        }
        if (input.channels().length == 0) {
            return net.openGate(name, task.job(), task.secret(), holders, ids, subpartition);
        }
        InputGate own = shuffle.openGate(name + ".own", input.feed(), subpartition);
        InputGate overNetwork;
        try {
            overNetwork =
                    net.openGate(
                            name + ".net", task.job(), task.secret(), holders, ids, subpartition);
        } catch (RuntimeException e) {
            own.close();
            throw e;
        }
        return new CompositeInputGate(
                name,
                new InputGate[] {own, overNetwork},
                new int[][] {input.channels(), remote},
                group.size());
    }
}
