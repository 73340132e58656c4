package io.railyard.benchmarks.flink;

import com.sun.management.OperatingSystemMXBean;
import io.railyard.benchmarks.procedures.LongJobs;
import io.railyard.benchmarks.procedures.LongJobs.Exchange;
import io.railyard.benchmarks.procedures.LongJobs.Shape;
import io.railyard.benchmarks.procedures.RailyardBatchJobs;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.worker.Tally;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Whole batch jobs, side by side (see {@link SideBySide}): flink-benchmarks' {@code
 * BlockingPartitionBenchmark} shape (a source of longs → sink, P = 4 or {@code subtasks}, chaining
 * off) and a keyed all-to-all variant, each with BLOCKING, HYBRID_FULL and HYBRID_SELECTIVE
 * exchanges, run on Railyard's local engine ({@link RailyardBatchJobs}) or on Flink 2.3's
 * MiniCluster ({@link FlinkBatchJobs}) with the same records ({@link LongJobs}: {@code
 * recordsPerSubtask} longs per source subtask, subtasks × that per job), 8 slots, 64 MiB of network
 * memory in 32 KiB pages and the same compression. Each invocation runs one job from submission to
 * its end; both sides check that their sinks counted exactly the records sent (count and checksum),
 * Railyard also that nothing leaked.
 *
 * <p>Scores: {@code job} is jobs/s, {@code job:records} the records the sinks received per second
 * (an {@link AuxCounters} counter), the number to compare, and {@code job:cpu} the cores the
 * process kept busy meanwhile (so records/s ÷ cpu is records per CPU-second); the ratio is the
 * quotient of the adjacent RAILYARD and FLINK rows ({@code system} is last by name, so JMH varies
 * it fastest). Throughput mode with 1-second iterations: an iteration runs whole jobs until a
 * second has passed, so at least one job, and a job should take a second or more ({@code
 * recordsPerSubtask} large enough) for the score to be the job's own. One engine or MiniCluster per
 * trial (fork), files in a marked directory under java.io.tmpdir.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar MiniClusterSideBySide} (12 rows, about
 * 11 minutes on 2 cores; at the default 10,000,000 longs per source subtask a Railyard job takes
 * about a second there, a Flink job two to three); pick rows with {@code -p shape=SOURCE_SINK -p
 * mode=BLOCKING}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class MiniClusterSideBySideBenchmark {
    /** The edge: the plain source → sink (forward) or a keyed all-to-all exchange. */
    @Param({"SOURCE_SINK", "KEYED_ALL_TO_ALL"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Shape shape;

    /** The exchange mode of the edge. */
    @Param({"BLOCKING", "HYBRID_FULL", "HYBRID_SELECTIVE"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Exchange mode;

    /** Longs per source subtask (flink-benchmarks: 15,000,000), subtasks × that per job. */
    @Param({"10000000"})
    public long recordsPerSubtask;

    /**
     * Subtasks per vertex, on the same {@value LongJobs#SLOTS} slots on both sides: {@code -p
     * subtasks=1000 -p shape=KEYED_ALL_TO_ALL -p mode=BLOCKING -p recordsPerSubtask=10000} is the
     * row at 1,000 × 1,000 (10^6 connections, tasks in waves of 8). Not named parallelism, which
     * the JMH smoke tests set to 1,000 in every benchmark that has it.
     */
    @Param({"4"})
    public int subtasks;

    /** The codec of both sides (Flink's {@code taskmanager.network.compression.codec}). */
    @Param({"NONE"})
    public ShuffleOptions.Compression compression = ShuffleOptions.Compression.NONE;

    /** Railyard or Flink; JMH varies it fastest (last in name order), so pairs are adjacent. */
    @Param({"RAILYARD", "FLINK"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public SideBySide system;

    /** Pages of a Railyard gate in the engine of {@link RailyardBatchJobs} (64). */
    static final int GATE_PAGES =
            RailyardBatchJobs.options(ShuffleOptions.Compression.NONE).gatePages();

    private static final OperatingSystemMXBean OS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private @Nullable RailyardBatchJobs railyard;
    private @Nullable FlinkBatchJobs flink;

    @SuppressWarnings("NullAway.Init") // set in setup
    private Tally expected;

    /** What the iteration's jobs did: JMH reports each per second of the iteration. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Records {
        /** Records received by the sinks of the iteration's jobs: records/s. */
        public long records;

        /**
         * CPU seconds the whole process used during the iteration's jobs (every thread: tasks, IO,
         * Flink's actors, JIT, GC): per second, the cores the jobs kept busy. Records ÷ this is
         * records per CPU-second, which other processes' load on the machine disturbs far less than
         * records/s.
         */
        public double cpu;

        /** Starts the iteration's counts. */
        @Setup(Level.Iteration)
        public void reset() {
            records = 0;
            cpu = 0;
        }
    }

    /** Starts the system's engine or MiniCluster and computes what every job's sinks must count. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        expected = LongJobs.expected(recordsPerSubtask, subtasks);
        Path parent = Path.of(System.getProperty("java.io.tmpdir"));
        if (system == SideBySide.RAILYARD) {
            railyard = RailyardBatchJobs.start(parent, compression);
        } else {
            flink = FlinkBatchJobs.start(parent, compression, mode, gateBuffers());
        }
    }

    /**
     * Flink's input gates need at most as many buffers as Railyard's gates have pages ({@link
     * #GATE_PAGES}, 64): Flink's default for batch jobs, 1,000, makes 8 gates of 1,000 channels ask
     * for 8,000 of the 2,048 buffers in 64 MiB, and the job fails. Below 32 channels per gate (2
     * buffers each and 8 floating) Flink asks for fewer anyway, so the rows at 4 subtasks are
     * Flink's defaults.
     */
    static Configuration gateBuffers() {
        Configuration config = new Configuration();
        config.set(
                NettyShuffleEnvironmentOptions.NETWORK_READ_MAX_REQUIRED_BUFFERS_PER_GATE,
                GATE_PAGES);
        return config;
    }

    /** Stops the engine or the MiniCluster and removes its files. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        RailyardBatchJobs r = railyard;
        FlinkBatchJobs f = flink;
        railyard = null;
        flink = null;
        try {
            if (r != null) {
                r.close();
            }
        } finally {
            if (f != null) {
                f.close();
            }
        }
    }

    /** Runs one job; returns what its sinks counted (checked against {@link LongJobs#expected}). */
    @Benchmark
    public Tally job(Records counter) throws Exception {
        RailyardBatchJobs r = railyard;
        FlinkBatchJobs f = flink;
        long cpuBefore = OS.getProcessCpuTime();
        Tally got;
        if (r != null) {
            got =
                    RailyardBatchJobs.check(
                            r.run(shape, mode, recordsPerSubtask, subtasks), expected);
        } else if (f != null) {
            got = FlinkBatchJobs.check(f.run(shape, recordsPerSubtask, subtasks), expected);
        } else {
            throw new IllegalStateException(system + ": not set up");
        }
        counter.cpu += (OS.getProcessCpuTime() - cpuBefore) / 1e9;
        counter.records += got.records();
        return got;
    }
}
