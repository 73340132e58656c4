package io.railyard.benchmarks.procedures;

import static com.google.common.base.Preconditions.checkArgument;

import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import io.railyard.worker.Tally;
import io.railyard.worker.TaskCode;
import io.railyard.worker.TaskContext;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The small batch jobs that Railyard's local engine ({@link RailyardBatchJobs}) and Flink's
 * MiniCluster ({@code io.railyard.benchmarks.flink.FlinkBatchJobs}) both run, record for record:
 * the shape of flink-benchmarks' {@code BlockingPartitionBenchmark}. {@value #PARALLELISM} source
 * subtasks each emit the longs {@code 0 .. n-1} (Flink's {@code LongSource}: {@code n} records per
 * source <em>subtask</em>, so a job moves {@code 4n}); {@value #PARALLELISM} sink subtasks count
 * them and sum their {@link #hash}. One edge, chaining off, of a {@link Shape} and an {@link
 * Exchange}.
 *
 * <p>Records: a long as 8 big-endian bytes (Railyard frames it with a 1-byte varint length, Flink
 * with a 4-byte length). Keyed edges send value {@code v} to sink {@code floorMod((int) v, 4)} on
 * both sides. {@link #expected} is what the sinks must report together; each side checks it after
 * every job.
 *
 * <p>Both sides get the same resources: {@value #SLOTS} slots on one worker (one TaskManager), so a
 * hybrid job runs its 4 sources and 4 sinks at once (Flink's hybrid shuffle runs each task in a
 * slot of its own), {@link #NETWORK_MEMORY_BYTES} of network memory in {@link #PAGE_BYTES} pages
 * (segments), the same compression.
 *
 * <p>Immutable and thread-safe.
 */
public final class LongJobs implements TaskCode.Factory {
    /** Source and sink subtasks (flink-benchmarks' "benchmarking machine has 4 CPU cores"). */
    public static final int PARALLELISM = 4;

    /**
     * Slots of the one worker / TaskManager: one per task, so hybrid producers and consumers
     * overlap.
     */
    public static final int SLOTS = 2 * PARALLELISM;

    /** Network memory of the worker / TaskManager: 64 MiB (Flink's local default). */
    public static final long NETWORK_MEMORY_BYTES = 64L << 20;

    /** Page / memory-segment size: 32 KiB (both systems' default). */
    public static final int PAGE_BYTES = 32 << 10;

    /** Bytes of one record's payload: a long. */
    public static final int RECORD_BYTES = Long.BYTES;

    /** How the source's records reach the sinks. */
    public enum Shape {
        /**
         * flink-benchmarks' BlockingPartitionBenchmark: source → sink at the same parallelism and
         * no partitioner, i.e. Flink's FORWARD edge, POINTWISE (sink i reads source i only).
         */
        SOURCE_SINK(DistributionPattern.POINTWISE),
        /**
         * A keyed all-to-all exchange: every source writes 4 subpartitions, value {@code v} to sink
         * {@code floorMod((int) v, 4)}; every sink reads every source.
         */
        KEYED_ALL_TO_ALL(DistributionPattern.ALL_TO_ALL);

        private final DistributionPattern pattern;

        Shape(DistributionPattern pattern) {
            this.pattern = pattern;
        }

        /** The edge's distribution pattern. */
        public DistributionPattern pattern() {
            return pattern;
        }
    }

    /**
     * The exchange mode of the edge: Flink's {@code BatchShuffleMode} / {@code
     * GlobalStreamExchangeMode} ALL_EXCHANGES_* and the result-partition type it gives the edge.
     */
    public enum Exchange {
        /** Sinks start when every source finished; sort-based partitions on both sides. */
        BLOCKING(ResultPartitionType.BLOCKING),
        /** Hybrid, every record spilled (re-consumable). */
        HYBRID_FULL(ResultPartitionType.HYBRID_FULL),
        /** Hybrid, spilled only under memory pressure (consumed once). */
        HYBRID_SELECTIVE(ResultPartitionType.HYBRID_SELECTIVE);

        private final ResultPartitionType type;

        Exchange(ResultPartitionType type) {
            this.type = type;
        }

        /** The result-partition type of the edge (the same name in Flink's enum). */
        public ResultPartitionType type() {
            return type;
        }
    }

    private final long recordsPerSubtask;

    private LongJobs(long recordsPerSubtask) {
        this.recordsPerSubtask = recordsPerSubtask;
    }

    /**
     * The task code of the job with {@code recordsPerSubtask} records per source subtask, for
     * {@link #graph}'s graph.
     *
     * @throws IllegalArgumentException if {@code recordsPerSubtask} is negative
     */
    public static LongJobs of(long recordsPerSubtask) {
        checkRecords(recordsPerSubtask);
        return new LongJobs(recordsPerSubtask);
    }

    /** Records per source subtask. */
    public long recordsPerSubtask() {
        return recordsPerSubtask;
    }

    /** Railyard's job graph: vertex 0 "source" (4) → vertex 1 "sink" (4), one edge. */
    public static JobGraph graph(Shape shape, Exchange exchange) {
        return graph(shape, exchange, PARALLELISM);
    }

    /**
     * The job graph of {@link #graph(Shape, Exchange)} with {@code parallelism} subtasks per vertex
     * (a keyed all-to-all edge of parallelism × parallelism connections).
     *
     * @throws IllegalArgumentException if {@code parallelism} is below 1
     */
    public static JobGraph graph(Shape shape, Exchange exchange, int parallelism) {
        return JobGraph.builder()
                .addVertex("source", parallelism)
                .addVertex("sink", parallelism)
                .connect("source", "sink", shape.pattern(), exchange.type())
                .build();
    }

    /**
     * The per-record checksum term of both sides' sinks: MurmurHash3's 64-bit finalizer of the
     * value, a bijection that spreads every bit, so a sum of them changes when a record is lost,
     * duplicated or altered (except with probability about 2^-64). O(1).
     */
    public static long hash(long value) {
        long h = value;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        return h ^ (h >>> 33);
    }

    /**
     * What the sinks must receive together: {@code 4n} records and the sum of {@link #hash} over
     * {@code 0 .. n-1}, 4 times. O(n).
     *
     * @throws IllegalArgumentException if {@code recordsPerSubtask} is negative
     */
    public static Tally expected(long recordsPerSubtask) {
        return expected(recordsPerSubtask, PARALLELISM);
    }

    /**
     * What the sinks must receive together when {@code parallelism} source subtasks each emit
     * {@code 0 .. n-1}. O(n).
     *
     * @throws IllegalArgumentException if {@code recordsPerSubtask} is negative or {@code
     *     parallelism} below 1
     */
    public static Tally expected(long recordsPerSubtask, int parallelism) {
        checkRecords(recordsPerSubtask);
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be >= 1, was " + parallelism);
        }
        long sum = 0;
        for (long v = 0; v < recordsPerSubtask; v++) {
            sum += hash(v);
        }
        return new Tally(parallelism * recordsPerSubtask, parallelism * sum);
    }

    /**
     * A source task (no inputs) emits {@code 0 .. n-1}, value {@code v} keyed {@code (int) v}; a
     * sink task (no outputs) commits the count and hash sum of what it reads.
     */
    @Override
    public TaskCode create(int vertex, int subtask, int attempt) {
        return new Task();
    }

    /** One attempt, as a cooperative task: a source or a sink by its outputs. */
    private final class Task implements TaskCode, RecordDecoder.RecordSink {
        private final ByteBuffer record = ByteBuffer.allocate(RECORD_BYTES);
        private long next; // a source's next value
        private long records; // a sink's count and checksum
        private long checksum;
        private int subtask;

        @Override
        public Step run(TaskContext context) throws Exception {
            subtask = context.subtask();
            if (context.numOutputs() == 0) {
                return context.readInputs(this)
                        ? Step.done(new Tally(records, checksum))
                        : Step.YIELD;
            }
            checkArgument(
                    context.numOutputs() == 1,
                    "a source has one output, has %s",
                    context.numOutputs());
            for (; next < recordsPerSubtask; next++) {
                if (!context.canContinue()) {
                    return Step.YIELD;
                }
                record.clear();
                record.putLong(next).flip();
                context.emit(0, record, (int) next);
            }
            return Step.done(Tally.ZERO);
        }

        @Override
        public void accept(int channel, ByteBuffer in) {
            if (in.remaining() != RECORD_BYTES) {
                throw new IllegalStateException(
                        "sink "
                                + subtask
                                + " read a record of "
                                + in.remaining()
                                + " bytes on channel "
                                + channel
                                + ", expected "
                                + RECORD_BYTES);
            }
            long value = in.getLong(in.position());
            if (in.order() == ByteOrder.LITTLE_ENDIAN) {
                value = Long.reverseBytes(value);
            }
            records++;
            checksum += hash(value);
        }
    }

    private static void checkRecords(long recordsPerSubtask) {
        checkArgument(
                recordsPerSubtask >= 0,
                "records per source subtask must be >= 0, was %s",
                recordsPerSubtask);
    }
}
