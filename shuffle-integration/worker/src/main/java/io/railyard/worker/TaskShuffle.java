package io.railyard.worker;

import io.railyard.deployment.GroupDescriptors;
import io.railyard.deployment.InputDescriptor;
import io.railyard.deployment.ProducedPartition;
import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.buffer.InsufficientNetworkMemoryException;
import io.railyard.shuffle.buffer.NetworkBufferPool;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.ResultPartitionWriter;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One task attempt's shuffle, made from its deployment descriptor by {@link
 * ShuffleEnvironment#deploy}: a result-partition writer per produced partition (output {@code k}
 * writes the attempt's partition of its k-th produced dataset) and an input gate per consumed
 * group, reading the subpartition the descriptor names of every partition of the group, wherever it
 * lives.
 *
 * <p>Lifecycle: nothing is created at deployment, so an attempt waiting for a slot holds no network
 * memory; {@link #tryStart} when the task starts creates and registers the partitions readable
 * while written, creates the blocking ones and opens the gates (consumers wait for partitions not
 * registered yet); {@link #finish} finishes every writer and registers the blocking partitions
 * (unless the attempt was cancelled meanwhile: then they are released); {@link #close} abandons
 * whatever is still open — unfinished writers' files and pages go, gates close. Partitions that
 * were registered stay: the JobManager releases them. From deployment to {@link #close}, the
 * worker's registry expects the attempt's partitions ({@link PartitionRegistry#expect}): their
 * consumers wait for a producer that waits for a slot or for memory as long as it waits.
 *
 * <p>Not thread-safe: owned by the task's thread (its deployment by the thread that deploys).
 */
public final class TaskShuffle implements AutoCloseable {
    /** The attempt that owns the shuffle, as the registry and the waits see it. */
    public interface Attempt extends PartitionRegistry.Producer, PartitionRegistry.Waiter {}

    private final ShuffleEnvironment environment;
    private final TaskDeploymentDescriptor descriptor;
    private final Attempt attempt;
    private final @Nullable ResultPartitionWriter[] writers;
    private final List<InputGate> gates = new ArrayList<>();
    private final List<GroupInput> opened = new ArrayList<>(); // the inputs its gates read
    private boolean registered; // the partitions readable while written are registered
    private final int streamingPages; // its pipelined and hybrid writers' pledge
    private boolean streamingCounted; // that pledge is in the environment's count

    TaskShuffle(
            ShuffleEnvironment environment, TaskDeploymentDescriptor descriptor, Attempt owner) {
        this.environment = environment;
        this.descriptor = descriptor;
        this.attempt = owner;
        this.writers = new ResultPartitionWriter[descriptor.produced().size()];
        this.streamingPages = streamingWriterPages();
        for (ProducedPartition produced : descriptor.produced()) {
            environment.partitions().expect(partitionId(produced), owner);
        }
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
        registered = true;
        environment.addStreamingWriterPages(streamingPages);
        streamingCounted = true;
    }

    /**
     * Pages its writers of partitions read while written (pipelined, hybrid) pledge. O(outputs).
     */
    private int streamingWriterPages() {
        int pages = 0;
        for (ProducedPartition produced : descriptor.produced()) {
            PartitionKind kind = environment.kindOf(produced.type());
            if (kind.isReadableWhileWritten()) {
                pages += environment.shuffle().writerPages(kind, produced.numSubpartitions());
            }
        }
        return pages;
    }

    /** Its pipelined and hybrid writers finished or were abandoned: their pledge stops counting. */
    private void endStreamingPledge() {
        if (streamingCounted) {
            environment.addStreamingWriterPages(-streamingPages);
            streamingCounted = false;
        }
    }

    /**
     * What an attempt to start the task gave ({@link #tryStart}): its gates, or what it must wait
     * for before it tries again.
     */
    public sealed interface Start {
        /**
         * The task started.
         *
         * @param gates its gates, one per consumed group
         */
        record Started(List<InputGate> gates) implements Start {}

        /**
         * The worker's network memory cannot pledge the task's writers and gates now; nothing it
         * created is left. Try again once a guarantee came back after {@code mark} ({@link
         * NetworkBufferPool#onPledgeReturned}); {@code shortage} says what was missing.
         */
        record AwaitMemory(
                NetworkBufferPool pool, long mark, InsufficientNetworkMemoryException shortage)
                implements Start {}

        /**
         * The task's {@code pages} could be pledged, but not given at once without asking borrowers
         * back, and pages lent to pipelined partitions will cover them as their consumers read:
         * nothing was created. Try again once they are spare ({@link NetworkBufferPool#onSpare}),
         * or without waiting ({@code tryStart(false)}) once none come.
         */
        record AwaitSpare(NetworkBufferPool pool, int pages) implements Start {}
    }

    /**
     * Pages starting the task pledges: its writers' ({@link
     * io.railyard.shuffle.partition.ShuffleWorker#writerPages}) and its gates'. O(outputs +
     * inputs).
     */
    public int pagesToStart() {
        long pages =
                (long) descriptor.inputs().size() * environment.shuffle().options().gatePages();
        for (ProducedPartition produced : descriptor.produced()) {
            pages +=
                    environment
                            .shuffle()
                            .writerPages(
                                    environment.kindOf(produced.type()),
                                    produced.numSubpartitions());
        }
        return (int) Math.min(Integer.MAX_VALUE, pages);
    }

    /**
     * Tries to start the task without waiting: creates and registers the partitions readable while
     * written, creates the blocking partitions, and opens the gates (which read their partitions as
     * they are registered). When the worker's network memory cannot pledge what it needs, what this
     * call created is closed again and it says what to wait for; the caller decides how long (a
     * guarantee given back while a try runs, and pledged to another owner before it ends, is not
     * seen: wait for the next). With {@code mayAwaitSpare}, a start whose pages the pool could
     * pledge only by asking borrowers back, while pages lent to pipelined partitions would cover
     * them once consumed, creates nothing and says to wait for them ({@link Start.AwaitSpare}):
     * pipelined data then stays in memory instead of being spilled for a task that can wait. A task
     * with inputs never waits so: pages lent to pipelined partitions come back only as their
     * consumers read, and it may be one of them. A source that writes a pipelined or hybrid
     * partition also waits (with {@code mayAwaitSpare}) while the spare pages would not hold its
     * pages and, beside them, as many as the pipelined and hybrid writers started on the worker
     * pledge: room for their resident regions. Without it, sources start until their pledges take
     * every page, and each region they seal goes to disk (3,000 × 3,000 with 10,000 records per
     * source in 16 MiB: 58 % of the bytes spilled, 63 s; with it 0.4 % and 15.7 s).
     *
     * <p>Costs: each try after a memory shortage creates again what the last one closed (blocking
     * partitions' files included).
     *
     * @throws IOException if a partition's file cannot be created, if a group cannot be resolved or
     *     a partition was released ({@link io.railyard.shuffle.PartitionLostException} names it)
     * @throws IllegalStateException if an input reads more than one subpartition (a gate reads one)
     */
    public Start tryStart(boolean mayAwaitSpare) throws IOException {
        NetworkBufferPool pool = environment.shuffle().bufferPool();
        int pledgeable = pool.pledgeablePages();
        if (mayAwaitSpare && !registered && descriptor.inputs().isEmpty()) {
            int pages = pagesToStart();
            int spare = pool.sparePages();
            if (spare < pages && pages <= pledgeable && spare + pool.drainingPages() >= pages) {
                return new Start.AwaitSpare(pool, pages);
            }
            int reserve = streamingPages > 0 ? environment.streamingWriterPages() : 0;
            if (spare < pages + reserve && pages <= pledgeable) {
                return new Start.AwaitSpare(pool, pages + reserve);
            }
        }
        try {
            if (!registered) {
                createEarlyPartitions();
            }
            createBlockingPartitions();
            return new Start.Started(openInputGates());
        } catch (InsufficientNetworkMemoryException e) {
            abandonStart();
            // What the attempt gave back is not memory coming back: watch from here, unless
            // more can be pledged now than before the attempt (another owner gave some back).
            long mark = pool.pledgesReturned();
            return new Start.AwaitMemory(
                    pool, pool.pledgeablePages() > pledgeable ? mark - 1 : mark, e);
        }
    }

    /**
     * Fails a gate whose partitions' producers never registered one, and whose worker registered
     * nothing for the registry's wait: the consumer's check while it waits for input. O(inputs).
     */
    public void checkInputWaits() {
        for (GroupInput input : opened) {
            input.checkWaits();
        }
    }

    /**
     * Closes what a failed {@link #tryStart} created: unregistered writers, blocking ones, gates.
     */
    private void abandonStart() {
        for (int k = 0; k < writers.length; k++) {
            ResultPartitionWriter writer = writers[k];
            if (writer != null && (!registered || !writer.kind().isReadableWhileWritten())) {
                writer.close();
                writers[k] = null;
            }
        }
        closeGates();
    }

    /**
     * Creates the blocking partitions (readable once finished, registered by {@link #finish}); the
     * partitions readable while written are {@link #tryStart}'s to create, since they must be
     * registered when they are. When the task starts.
     */
    private void createBlockingPartitions() throws IOException {
        for (int k = 0; k < writers.length; k++) {
            ProducedPartition produced = descriptor.produced().get(k);
            PartitionKind kind = environment.kindOf(produced.type());
            if (writers[k] == null && !kind.isReadableWhileWritten()) {
                writers[k] =
                        environment
                                .shuffle()
                                .createPartition(
                                        partitionId(produced), produced.numSubpartitions(), kind);
            }
        }
    }

    /**
     * Opens one gate per consumed group on the subpartition the descriptor names; the gates start
     * reading at once, each partition as soon as its producer registers it. Never waits.
     *
     * @throws IOException if a group cannot be resolved or a partition was released ({@link
     *     io.railyard.shuffle.PartitionLostException} names it)
     * @throws IllegalStateException if an input reads more than one subpartition (a gate reads one)
     */
    public List<InputGate> openInputGates() throws IOException {
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
            GroupInput shared = environment.openInput(group);
            opened.add(shared);
            String name = "t" + descriptor.task() + ".a" + descriptor.attempt() + ".in" + k;
            gates.add(
                    environment.openGate(
                            name, descriptor, group, shared, input.firstSubpartition()));
            PartitionLostException lost = shared.feed().failure();
            if (lost != null) {
                throw lost; // a partition released before the task started: it fails at once
            }
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
        endStreamingPledge();
        for (int k = 0; k < writers.length; k++) {
            ResultPartitionWriter writer = writers[k];
            if (writer != null) {
                ResultPartition partition = writer.finish();
                writers[k] = null;
                if (!writer.kind().isReadableWhileWritten() // registered when it started
                        && !environment.partitions().register(writer.id(), partition, attempt)) {
                    partition.release();
                }
            }
        }
    }

    /**
     * Abandons what is still open: unfinished writers' files and pages go, gates close, and the
     * registry no longer expects the partitions it did not register.
     */
    @Override
    public void close() {
        endStreamingPledge();
        for (ProducedPartition produced : descriptor.produced()) {
            environment.partitions().withdraw(partitionId(produced));
        }
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
        opened.clear();
    }

    private PartitionId partitionId(ProducedPartition produced) {
        return new PartitionId(produced.partition(), descriptor.attempt());
    }
}
