package io.railyard.worker;

import io.railyard.deployment.GroupDescriptors;
import io.railyard.deployment.InputDescriptor;
import io.railyard.deployment.ProducedPartition;
import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.shuffle.buffer.InsufficientNetworkMemoryException;
import io.railyard.shuffle.buffer.NetworkBufferPool;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.ResultPartitionWriter;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One task attempt's shuffle, made from its deployment descriptor by {@link
 * ShuffleEnvironment#deploy}: a result-partition writer per produced partition (output {@code k}
 * writes the attempt's partition of its k-th produced dataset) and an input gate per consumed
 * group, reading the subpartition the descriptor names of every partition of the group, wherever it
 * lives.
 *
 * <p>Lifecycle: partitions readable while written exist from {@code deploy} — or, when the worker's
 * network memory cannot pledge them all then, from {@link #start}; {@link #start} (or {@link
 * #createBlockingPartitions} and {@link #openInputGates}) when the task starts; {@link #finish}
 * finishes every writer and registers the blocking partitions (unless the attempt was cancelled
 * meanwhile: then they are released); {@link #close} abandons whatever is still open — unfinished
 * writers' files and pages go, gates close. Partitions that were registered stay: the JobManager
 * releases them.
 *
 * <p>Not thread-safe: owned by the task's thread (its deployment by the thread that deploys).
 */
public final class TaskShuffle implements AutoCloseable {
    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** The attempt that owns the shuffle, as the registry and the waits see it. */
    public interface Attempt extends PartitionRegistry.Producer, PartitionRegistry.Waiter {}

    private final ShuffleEnvironment environment;
    private final TaskDeploymentDescriptor descriptor;
    private final Attempt attempt;
    private final @Nullable ResultPartitionWriter[] writers;
    private final List<InputGate> gates = new ArrayList<>();
    private boolean earlyRegistered; // the partitions readable while written are registered

    TaskShuffle(
            ShuffleEnvironment environment, TaskDeploymentDescriptor descriptor, Attempt owner) {
        this.environment = environment;
        this.descriptor = descriptor;
        this.attempt = owner;
        this.writers = new ResultPartitionWriter[descriptor.produced().size()];
    }

    /** Number of outputs: the datasets the task produces. */
    public int numOutputs() {
        return writers.length;
    }

    /**
     * The writer of output {@code output}.
     *
     * @throws IllegalStateException if it is not open (not created yet, finished or closed)
     */
    public ResultPartitionWriter output(int output) {
        ResultPartitionWriter writer = writers[output];
        if (writer == null) {
            throw new IllegalStateException("output " + output + " is not open");
        }
        return writer;
    }

    /**
     * At deployment: creates and registers the partitions readable while written if the worker's
     * network memory can pledge them all now; otherwise (nothing is registered then) {@link #start}
     * does, once it can.
     */
    void deploy() throws IOException {
        try {
            createEarlyPartitions();
        } catch (InsufficientNetworkMemoryException e) {
            abandonStart();
        }
    }

    /**
     * Creates the partitions readable while written, then registers them all — none is registered
     * unless every one could be created (a registered partition can only be released, and a
     * released one is lost to its consumers).
     */
    private void createEarlyPartitions() throws IOException {
        for (int k = 0; k < writers.length; k++) {
            ProducedPartition produced = descriptor.produced().get(k);
            PartitionKind kind = environment.kindOf(produced.type());
            if (writers[k] == null && kind.isReadableWhileWritten()) {
                writers[k] =
                        environment
                                .shuffle()
                                .createPartition(
                                        partitionId(produced), produced.numSubpartitions(), kind);
            }
        }
        for (ResultPartitionWriter writer : writers) {
            if (writer != null && writer.kind().isReadableWhileWritten()) {
                ResultPartition partition = writer.readablePartition().orElseThrow();
                if (!environment.partitions().register(writer.id(), partition, attempt)) {
                    throw new IllegalStateException(
                            "task " + descriptor.task() + " was cancelled while deployed");
                }
            }
        }
        earlyRegistered = true;
    }

    /**
     * Starts the task: the partitions readable while written that deployment could not create, the
     * blocking partitions, and the gates ({@link #openInputGates}). When the worker's network
     * memory cannot pledge them, what this call created is closed and it waits for a guarantee to
     * come back — another task ending, a partition released — and tries again; it gives up once
     * none came back for {@code noProgress}, with the {@link InsufficientNetworkMemoryException}
     * (memory held by tasks that wait for this one never comes back: a pipelined consumer's gate
     * its producer needs). The attempt's cancellation ends the wait within 50 ms. A guarantee given
     * back while an attempt to start runs, and pledged to another owner before it ends, is not
     * seen: the wait goes on to the next one.
     *
     * <p>Costs: each retry creates again what the last one closed (blocking partitions' files
     * included); there is one retry per guarantee given back at most.
     *
     * @return the gates, one per consumed group
     * @throws InsufficientNetworkMemoryException if no memory came back for {@code noProgress}
     * @throws IOException as {@link #createBlockingPartitions} and {@link #openInputGates} do
     * @throws InterruptedException if interrupted while waiting
     */
    public List<InputGate> start(Duration noProgress) throws IOException, InterruptedException {
        NetworkBufferPool pool = environment.shuffle().bufferPool();
        while (true) {
            int pledgeable = pool.pledgeablePages();
            try {
                if (!earlyRegistered) {
                    createEarlyPartitions();
                }
                createBlockingPartitions();
                return openInputGates();
            } catch (InsufficientNetworkMemoryException e) {
                abandonStart();
                // What the attempt gave back is not memory coming back: watch from here, unless
                // more can be pledged now than before the attempt (another owner gave some back).
                long mark = pool.pledgesReturned();
                if (pool.pledgeablePages() <= pledgeable) {
                    awaitPledgeReturned(pool, mark, noProgress, e);
                }
            }
        }
    }

    /** Waits for a guarantee returned after {@code mark}, checking the attempt every 50 ms. */
    private void awaitPledgeReturned(
            NetworkBufferPool pool,
            long mark,
            Duration noProgress,
            InsufficientNetworkMemoryException shortage)
            throws InterruptedException {
        long deadline = System.nanoTime() + noProgress.toNanos();
        while (!pool.awaitPledgeReturned(
                mark, Math.min(RECHECK_NANOS, deadline - System.nanoTime()))) {
            attempt.checkNotCancelled();
            if (System.nanoTime() - deadline >= 0) {
                InsufficientNetworkMemoryException gaveUp =
                        new InsufficientNetworkMemoryException(
                                shortage.getMessage()
                                        + "; waited "
                                        + noProgress.toMillis()
                                        + " ms and no network memory of the worker came back");
                gaveUp.initCause(shortage);
                throw gaveUp;
            }
        }
        attempt.checkNotCancelled();
    }

    /** Closes what a failed {@link #start} created: unregistered writers, blocking ones, gates. */
    private void abandonStart() {
        for (int k = 0; k < writers.length; k++) {
            ResultPartitionWriter writer = writers[k];
            if (writer != null && (!earlyRegistered || !writer.kind().isReadableWhileWritten())) {
                writer.close();
                writers[k] = null;
            }
        }
        closeGates();
    }

    /** Creates the blocking partitions (readable once finished). When the task starts. */
    public void createBlockingPartitions() throws IOException {
        for (int k = 0; k < writers.length; k++) {
            if (writers[k] == null) {
                ProducedPartition produced = descriptor.produced().get(k);
                writers[k] =
                        environment
                                .shuffle()
                                .createPartition(
                                        partitionId(produced),
                                        produced.numSubpartitions(),
                                        environment.kindOf(produced.type()));
            }
        }
    }

    /**
     * Opens one gate per consumed group on the subpartition the descriptor names, waiting for
     * partitions whose producers have not registered them yet; the gates start reading at once.
     *
     * @throws IOException if a group cannot be resolved or a partition is lost ({@link
     *     io.railyard.shuffle.PartitionLostException} names it)
     * @throws InterruptedException if interrupted while waiting for a partition
     * @throws IllegalStateException if an input reads more than one subpartition (a gate reads one)
     */
    public List<InputGate> openInputGates() throws IOException, InterruptedException {
        for (int k = 0; k < descriptor.inputs().size(); k++) {
            InputDescriptor input = descriptor.inputs().get(k);
            if (input.numSubpartitions() != 1) {
                throw new IllegalStateException(
                        "input "
                                + k
                                + " reads "
                                + input.numSubpartitions()
                                + " subpartitions; a gate reads one");
            }
            GroupDescriptors group = environment.resolve(input);
            int[] holders = new int[group.size()];
            List<PartitionId> read = new ArrayList<>(group.size());
            for (int i = 0; i < group.size(); i++) {
                holders[i] = group.worker(i);
                read.add(new PartitionId(group.firstPartition() + i, group.producerAttempt(i)));
            }
            String name = "t" + descriptor.task() + ".a" + descriptor.attempt() + ".in" + k;
            gates.add(
                    environment.openGate(
                            name, descriptor, holders, read, input.firstSubpartition(), attempt));
        }
        return List.copyOf(gates);
    }

    /**
     * Finishes every open writer; registers each blocking partition, or releases it if the attempt
     * was cancelled meanwhile (nobody will read it).
     *
     * @throws IOException if a writer cannot finish (the rest stay open for {@link #close})
     */
    public void finish() throws IOException {
        for (int k = 0; k < writers.length; k++) {
            ResultPartitionWriter writer = writers[k];
            if (writer != null) {
                ResultPartition partition = writer.finish();
                writers[k] = null;
                if (!writer.kind().isReadableWhileWritten() // registered at deployment
                        && !environment.partitions().register(writer.id(), partition, attempt)) {
                    partition.release();
                }
            }
        }
    }

    /** Abandons what is still open: unfinished writers' files and pages go, gates close. */
    @Override
    public void close() {
        for (int k = 0; k < writers.length; k++) {
            ResultPartitionWriter writer = writers[k];
            if (writer != null) {
                writer.close();
                writers[k] = null;
            }
        }
        closeGates();
    }

    private void closeGates() {
        for (InputGate gate : gates) {
            gate.close();
        }
        gates.clear();
    }

    private PartitionId partitionId(ProducedPartition produced) {
        return new PartitionId(produced.partition(), descriptor.attempt());
    }
}
