package io.railyard.shuffle.local;

import static com.google.common.base.Preconditions.checkArgument;

import io.railyard.topology.JobGraph;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The built-in job logic for any job graph: each subtask of a vertex without inputs generates
 * {@code recordsPerSource} records of {@code recordBytes} bytes from a seed; every other task
 * forwards each record it reads to each of its outputs, keyed by the record's first four bytes (an
 * all-to-all edge is a keyed exchange); a task without outputs is a sink that commits the tally of
 * what it read. So every record reaches each sink once per path from its source, and {@link
 * #expectedReceived} is that count.
 *
 * <p>{@link #failing} makes one task attempt throw at one record, to exercise failover.
 */
public final class ForwardingJob implements TaskCode.Factory {
    private final JobGraph graph;
    private final long recordsPerSource;
    private final int recordBytes;
    private final long seed;
    private final int failVertex;
    private final int failSubtask;
    private final int failAttempt;
    private final long failAtRecord;
    private final double failRate;

    @SuppressWarnings("TooManyParameters") // private: the factories name what they set
    private ForwardingJob(
            JobGraph graph,
            long recordsPerSource,
            int recordBytes,
            long seed,
            int failVertex,
            int failSubtask,
            int failAttempt,
            long failAtRecord,
            double failRate) {
        checkArgument(recordsPerSource >= 0, "records must be >= 0, was %s", recordsPerSource);
        checkArgument(recordBytes >= 8, "record bytes must be >= 8, was %s", recordBytes);
        this.graph = graph;
        this.recordsPerSource = recordsPerSource;
        this.recordBytes = recordBytes;
        this.seed = seed;
        this.failVertex = failVertex;
        this.failSubtask = failSubtask;
        this.failAttempt = failAttempt;
        this.failAtRecord = failAtRecord;
        this.failRate = failRate;
    }

    /** The job of {@code graph}: {@code recordsPerSource} records per source subtask. */
    public static ForwardingJob of(
            JobGraph graph, long recordsPerSource, int recordBytes, long seed) {
        return new ForwardingJob(graph, recordsPerSource, recordBytes, seed, -1, -1, -1, -1, 0);
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
                vertex,
                subtask,
                attempt,
                atRecord,
                failRate);
    }

    /**
     * The same job, except that every task attempt fails with probability {@code rate} (drawn from
     * the seed, the task and the attempt, so a run repeats) at a record drawn from {@code [0,
     * records per source]}; a task that reads fewer records does not fail.
     *
     * @throws IllegalArgumentException if {@code rate} is not in [0, 1]
     */
    public ForwardingJob failingAtRate(double rate) {
        checkArgument(rate >= 0 && rate <= 1, "fail rate must be in [0, 1], was %s", rate);
        return new ForwardingJob(
                graph,
                recordsPerSource,
                recordBytes,
                seed,
                failVertex,
                failSubtask,
                failAttempt,
                failAtRecord,
                rate);
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
        long injected =
                vertex == failVertex && subtask == failSubtask && attempt == failAttempt
                        ? failAtRecord
                        : -1;
        long failAt = injected >= 0 ? injected : drawnFailure(vertex, subtask, attempt);
        return context -> run(context, failAt);
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
                return draw.nextLong(recordsPerSource + 1);
            }
        }
        return -1;
    }

    private Tally run(TaskContext context, long failAt) throws Exception {
        Tally.Counter counter = new Tally.Counter();
        long[] handled = new long[1];
        if (graph.numInputEdges(context.vertex()) == 0) {
            ByteBuffer record = ByteBuffer.allocate(recordBytes);
            SplittableRandom random = random(context.vertex(), context.subtask());
            for (long i = 0; i < recordsPerSource; i++) {
                fill(record, random);
                handle(context, record, counter, handled, failAt);
            }
        } else {
            context.readInputs(
                    (channel, record) -> handle(context, record, counter, handled, failAt));
        }
        return counter.tally();
    }

    private void handle(
            TaskContext context,
            ByteBuffer record,
            Tally.Counter counter,
            long[] handled,
            long at) {
        if (handled[0]++ == at) {
            throw new InjectedFailure(
                    "injected failure of vertex "
                            + context.vertex()
                            + " subtask "
                            + context.subtask()
                            + " attempt "
                            + context.attempt()
                            + " at record "
                            + at);
        }
        counter.add(record);
        int key = record.getInt(record.position());
        for (int k = 0; k < context.numOutputs(); k++) {
            try {
                context.emit(k, record.duplicate(), key);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
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
        ByteBuffer record = ByteBuffer.allocate(recordBytes);
        for (int s = 0; s < graph.parallelism(v); s++) {
            SplittableRandom random = random(v, s);
            for (long i = 0; i < recordsPerSource; i++) {
                fill(record, random);
                generated.add(record);
            }
        }
        return generated.tally();
    }
}
