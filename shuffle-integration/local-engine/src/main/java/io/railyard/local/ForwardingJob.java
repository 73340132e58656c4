package io.railyard.local;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.topology.JobGraph;
import io.railyard.worker.Tally;
import io.railyard.worker.TaskCode;
import io.railyard.worker.TaskContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The built-in job logic for any job graph: each subtask of a vertex without inputs (a source)
 * generates records of {@code recordBytes} bytes from a seed — {@code recordsPerSource} of them
 * unless {@link #withSource} sets the vertex's counts, per subtask and with hot subtasks; every
 * other task forwards each record it reads to each of its outputs, keyed by the record's first four
 * bytes (an all-to-all edge is a keyed exchange); a task without outputs is a sink that commits the
 * tally of what it read. So every record reaches each sink once per path from its source, and
 * {@link #expectedReceived} is that count.
 *
 * <p>{@link #failing} makes one task attempt throw at one record, to exercise failover. Immutable
 * and thread-safe: each method returning a job returns a new one.
 */
public final class ForwardingJob implements TaskCode.Factory {
    private final JobGraph graph;
    private final long recordsPerSource;
    private final int recordBytes;
    private final long seed;
    private final @Nullable SourceRecords[] sources; // per vertex; null: recordsPerSource each
    private final Injected injected;
    private final double failRate;
    private final long mostPerSubtask; // the most records any source subtask generates

    /** The one attempt that throws at one record, or none (vertex -1). */
    private record Injected(int vertex, int subtask, int attempt, long atRecord) {
        static final Injected NONE = new Injected(-1, -1, -1, -1);
    }

    /**
     * How many records each subtask of one source vertex generates: {@code hotPerSubtask} for
     * subtasks {@code 0 .. hotSubtasks - 1} (its hot subtasks), {@code perSubtask} for the others.
     *
     * @param perSubtask records of each subtask that is not hot, {@code >= 0}
     * @param hotSubtasks how many subtasks, from subtask 0 on, are hot, {@code >= 0}
     * @param hotPerSubtask records of each hot subtask, {@code >= 0}
     */
    public record SourceRecords(long perSubtask, int hotSubtasks, long hotPerSubtask) {
        /**
         * Checks the counts.
         *
         * @throws IllegalArgumentException naming the negative count
         */
        public SourceRecords {
            checkArgument(perSubtask >= 0, "records per subtask must be >= 0, was %s", perSubtask);
            checkArgument(hotSubtasks >= 0, "hot subtasks must be >= 0, was %s", hotSubtasks);
            checkArgument(
                    hotPerSubtask >= 0,
                    "records per hot subtask must be >= 0, was %s",
                    hotPerSubtask);
        }

        /** {@code perSubtask} records for every subtask, none hot. */
        public static SourceRecords uniform(long perSubtask) {
            return new SourceRecords(perSubtask, 0, perSubtask);
        }

        /** The records subtask {@code subtask} generates. */
        public long of(int subtask) {
            return subtask < hotSubtasks ? hotPerSubtask : perSubtask;
        }
    }

    private ForwardingJob(
            JobGraph graph,
            long recordsPerSource,
            int recordBytes,
            long seed,
            @Nullable SourceRecords[] sources,
            Injected injected,
            double failRate) {
        checkArgument(recordsPerSource >= 0, "records must be >= 0, was %s", recordsPerSource);
        checkArgument(recordBytes >= 8, "record bytes must be >= 8, was %s", recordBytes);
        this.graph = graph;
        this.recordsPerSource = recordsPerSource;
        this.recordBytes = recordBytes;
        this.seed = seed;
        this.sources = sources;
        this.injected = injected;
        this.failRate = failRate;
        this.mostPerSubtask = mostPerSourceSubtask();
    }

    /** The job of {@code graph}: {@code recordsPerSource} records per source subtask. */
    public static ForwardingJob of(
            JobGraph graph, long recordsPerSource, int recordBytes, long seed) {
        return new ForwardingJob(
                graph,
                recordsPerSource,
                recordBytes,
                seed,
                new SourceRecords[graph.numJobVertices()],
                Injected.NONE,
                0);
    }

    /**
     * The same job, except that the subtasks of source vertex {@code vertex} generate as many
     * records as {@code records} says (its seeds unchanged: a subtask's first records are the same
     * whatever its count). {@link #expectedReceived} follows.
     *
     * @throws IllegalArgumentException if {@code vertex} has inputs (it generates nothing), or if
     *     {@code records} has more hot subtasks than the vertex has subtasks
     * @throws IndexOutOfBoundsException if there is no such vertex
     */
    public ForwardingJob withSource(int vertex, SourceRecords records) {
        checkElementIndex(vertex, graph.numJobVertices(), "vertex");
        checkArgument(
                graph.numInputEdges(vertex) == 0,
                "vertex '%s' has inputs: only a vertex without inputs generates records",
                graph.vertexName(vertex));
        checkArgument(
                records.hotSubtasks() <= graph.parallelism(vertex),
                "vertex '%s' has %s subtasks, fewer than %s hot subtasks",
                graph.vertexName(vertex),
                graph.parallelism(vertex),
                records.hotSubtasks());
        @Nullable SourceRecords[] changed = sources.clone();
        changed[vertex] = records;
        return new ForwardingJob(
                graph, recordsPerSource, recordBytes, seed, changed, injected, failRate);
    }

    /**
     * The records subtask {@code subtask} of {@code vertex} generates in every attempt: 0 if the
     * vertex has inputs.
     *
     * @throws IndexOutOfBoundsException if there is no such vertex
     */
    public long recordsOf(int vertex, int subtask) {
        if (graph.numInputEdges(vertex) > 0) {
            return 0;
        }
        SourceRecords records = sources[vertex];
        return records == null ? recordsPerSource : records.of(subtask);
    }

    /**
     * The same job, except that attempt {@code attempt} of subtask {@code subtask} of {@code
     * vertex} throws when it handles its {@code atRecord}-th record (counting from 0).
     */
    public ForwardingJob failing(int vertex, int subtask, int attempt, long atRecord) {
        return new ForwardingJob(
                graph,
                recordsPerSource,
                recordBytes,
                seed,
                sources,
                new Injected(vertex, subtask, attempt, atRecord),
                failRate);
    }

    /**
     * The same job, except that every task attempt fails with probability {@code rate} (drawn from
     * the seed, the task and the attempt, so a run repeats) at a record drawn from {@code [0, n]}:
     * for a source subtask n is the records it generates, for any other task the most any source
     * subtask generates; a task that handles fewer records does not fail.
     *
     * @throws IllegalArgumentException if {@code rate} is not in [0, 1]
     */
    public ForwardingJob failingAtRate(double rate) {
        checkArgument(rate >= 0 && rate <= 1, "fail rate must be in [0, 1], was %s", rate);
        return new ForwardingJob(
                graph, recordsPerSource, recordBytes, seed, sources, injected, rate);
    }

    /** The exception an injected failure throws. */
    public static final class InjectedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InjectedFailure(String message) {
            super(message);
        }
    }

    @Override
    public TaskCode create(int vertex, int subtask, int attempt) {
        long chosen =
                vertex == injected.vertex()
                                && subtask == injected.subtask()
                                && attempt == injected.attempt()
                        ? injected.atRecord()
                        : -1;
        long failAt = chosen >= 0 ? chosen : drawnFailure(vertex, subtask, attempt);
        return new Forwarding(failAt);
    }

    /** Where the attempt fails under the fail rate, or -1. */
    private long drawnFailure(int vertex, int subtask, int attempt) {
        if (failRate > 0) {
            SplittableRandom draw =
                    new SplittableRandom(
                            seed * 0x9E3779B97F4A7C15L
                                    ^ ((long) vertex << 42)
                                    ^ ((long) subtask << 21)
                                    ^ attempt);
            if (draw.nextDouble() < failRate) {
                long bound =
                        graph.numInputEdges(vertex) == 0
                                ? recordsOf(vertex, subtask)
                                : mostPerSubtask;
                return draw.nextLong(bound + 1);
            }
        }
        return -1;
    }

    /**
     * One attempt of the built-in logic, as a cooperative task: a source generates its records
     * while its outputs have room, any other task forwards what its inputs have; each yields when
     * it may not go on and resumes where it stopped.
     */
    private final class Forwarding implements TaskCode, RecordDecoder.RecordSink {
        private final long failAt;
        private final Tally.Counter counter = new Tally.Counter();
        private long handled;
        private @Nullable TaskContext context;
        // A source's state: its generator, its record buffer, how many it generated so far.
        private @Nullable SplittableRandom random;
        private final ByteBuffer record = ByteBuffer.allocate(recordBytes);
        private long generated;

        Forwarding(long failAt) {
            this.failAt = failAt;
        }

        @Override
        public Step run(TaskContext task) throws IOException {
            context = task;
            if (graph.numInputEdges(task.vertex()) > 0) {
                return task.readInputs(this) ? Step.done(counter.tally()) : Step.YIELD;
            }
            SplittableRandom source = random;
            if (source == null) {
                source = random(task.vertex(), task.subtask());
                random = source;
            }
            long n = recordsOf(task.vertex(), task.subtask());
            while (generated < n) {
                if (!task.canContinue()) {
                    return Step.YIELD;
                }
                fill(record, source);
                generated++;
                accept(0, record);
            }
            return Step.done(counter.tally());
        }

        @Override
        public void accept(int channel, ByteBuffer in) {
            TaskContext task = Objects.requireNonNull(context);
            if (handled++ == failAt) {
                throw new InjectedFailure(
                        "injected failure of vertex "
                                + task.vertex()
                                + " subtask "
                                + task.subtask()
                                + " attempt "
                                + task.attempt()
                                + " at record "
                                + failAt);
            }
            counter.add(in);
            int key = in.getInt(in.position());
            for (int k = 0; k < task.numOutputs(); k++) {
                try {
                    task.emit(k, in.duplicate(), key);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    /** The most records any source subtask generates. O(V). */
    private long mostPerSourceSubtask() {
        long most = 0;
        for (int v = 0; v < graph.numJobVertices(); v++) {
            if (graph.numInputEdges(v) == 0) {
                for (int s : new int[] {0, graph.parallelism(v) - 1}) { // a hot one, a cold one
                    most = Math.max(most, recordsOf(v, s));
                }
            }
        }
        return most;
    }

    private SplittableRandom random(int vertex, int subtask) {
        return new SplittableRandom(seed ^ ((long) vertex << 40) ^ ((long) subtask << 20));
    }

    private void fill(ByteBuffer record, SplittableRandom random) {
        record.clear();
        while (record.remaining() >= 8) {
            record.putLong(random.nextLong());
        }
        while (record.hasRemaining()) {
            record.put((byte) random.nextInt());
        }
        record.flip();
    }

    /**
     * What each vertex's tasks together receive: every record of every source that reaches it, once
     * per path (a sink commits exactly that). O(sources' records + V × edges).
     *
     * @return per vertex id, its tally (a source's is what it generates)
     */
    public Tally[] expectedReceived() {
        int n = graph.numJobVertices();
        Tally[] received = new Tally[n];
        for (int done = 0; done < n; ) { // a vertex once all its producers are done
            for (int v = 0; v < n; v++) {
                if (received[v] == null && producersDone(v, received)) {
                    received[v] = graph.numInputEdges(v) == 0 ? generated(v) : inbound(v, received);
                    done++;
                }
            }
        }
        return received;
    }

    private boolean producersDone(int v, Tally[] received) {
        for (int k = 0; k < graph.numInputEdges(v); k++) {
            if (received[graph.edgeProducer(graph.inputEdge(v, k))] == null) {
                return false;
            }
        }
        return true;
    }

    private Tally inbound(int v, Tally[] received) {
        Tally in = Tally.ZERO;
        for (int k = 0; k < graph.numInputEdges(v); k++) {
            in = in.plus(received[graph.edgeProducer(graph.inputEdge(v, k))]);
        }
        return in;
    }

    private Tally generated(int v) {
        Tally.Counter generated = new Tally.Counter();
        for (int s = 0; s < graph.parallelism(v); s++) {
            forEachGenerated(v, s, generated::add);
        }
        return generated.tally();
    }

    /**
     * Hands every record subtask {@code subtask} of {@code vertex} generates, in every attempt and
     * in order, to {@code action}: none if the vertex has inputs. One buffer is refilled for each
     * record ({@code [position, limit)} is the record; big-endian, so its key is {@code
     * getInt(position())}): valid only during the call. For oracles that follow each record further
     * than {@link #expectedReceived} does (to a subtask, by key). O(records).
     *
     * @throws IndexOutOfBoundsException if there is no such vertex or subtask
     */
    public void forEachGenerated(int vertex, int subtask, Consumer<ByteBuffer> action) {
        checkElementIndex(vertex, graph.numJobVertices(), "vertex");
        checkElementIndex(subtask, graph.parallelism(vertex), "subtask");
        ByteBuffer record = ByteBuffer.allocate(recordBytes);
        SplittableRandom random = random(vertex, subtask);
        for (long i = recordsOf(vertex, subtask); i > 0; i--) {
            fill(record, random);
            action.accept(record);
        }
    }
}
