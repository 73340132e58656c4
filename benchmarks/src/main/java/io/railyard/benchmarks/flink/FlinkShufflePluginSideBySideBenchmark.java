package io.railyard.benchmarks.flink;

import com.sun.management.OperatingSystemMXBean;
import io.railyard.benchmarks.procedures.LongJobs;
import io.railyard.benchmarks.procedures.LongJobs.Exchange;
import io.railyard.benchmarks.procedures.LongJobs.Shape;
import io.railyard.flink.RailyardShuffleServiceFactory;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.worker.Tally;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.shuffle.ShuffleServiceOptions;
import org.jspecify.annotations.Nullable;
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
 * The same Flink batch jobs on the same MiniCluster, with Flink's own shuffle (sort-merge blocking
 * partitions, tiered hybrid) or with Railyard's plugin ({@code shuffle-service-factory.class:
 * io.railyard.flink.RailyardShuffleServiceFactory}): flink-benchmarks' {@code
 * BlockingPartitionBenchmark} shape and its keyed all-to-all variant, BLOCKING, HYBRID_FULL and
 * HYBRID_SELECTIVE, as {@link MiniClusterSideBySideBenchmark} builds them ({@link FlinkBatchJobs}:
 * 1 TaskManager × 8 slots, parallelism 4, 64 MiB of network memory in 32 KiB pages). Both sides run
 * Flink's tasks, scheduler and serialization; only the shuffle differs. Both check that the sinks
 * counted exactly the records sent.
 *
 * <p>Scores as {@link MiniClusterSideBySideBenchmark}'s: {@code job:records} is records/s, {@code
 * job:cpu} the cores the process kept busy; {@code shuffle} is last by name, so each RAILYARD row
 * is beside the FLINK row of the same job.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar FlinkShufflePluginSideBySide} (12
 * rows).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class FlinkShufflePluginSideBySideBenchmark {
    /** The edge: the plain source → sink (forward) or a keyed all-to-all exchange. */
    @Param({"SOURCE_SINK", "KEYED_ALL_TO_ALL"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Shape shape;

    /** The exchange mode of the edge. */
    @Param({"BLOCKING", "HYBRID_FULL", "HYBRID_SELECTIVE"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Exchange mode;

    /** Longs per source subtask, subtasks × that per job. */
    @Param({"10000000"})
    public long recordsPerSubtask;

    /**
     * Subtasks per vertex; the MiniCluster has max(8, subtasks) slots. {@code -p subtasks=64 -p
     * shape=KEYED_ALL_TO_ALL} is the fan-out row (64 × 64 connections). Not named parallelism,
     * which the JMH smoke tests set to 1,000 in every benchmark that has it.
     */
    @Param({"4"})
    public int subtasks;

    /** Whose shuffle the MiniCluster runs; JMH varies it fastest, so pairs are adjacent. */
    @Param({"RAILYARD", "FLINK"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Shuffle shuffle;

    /** Whose shuffle a side-by-side row's MiniCluster runs. */
    public enum Shuffle {
        /** Railyard's plugin. */
        RAILYARD,
        /** Flink's own (Netty) shuffle. */
        FLINK
    }

    private static final OperatingSystemMXBean OS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private @Nullable FlinkBatchJobs flink;

    @SuppressWarnings("NullAway.Init") // set in setup
    private Tally expected;

    /** The cluster's configuration beyond {@link FlinkBatchJobs#configuration}. */
    static Configuration shuffleConfiguration(Shuffle shuffle) {
        Configuration config = new Configuration();
        if (shuffle == Shuffle.RAILYARD) {
            config.set(
                    ShuffleServiceOptions.SHUFFLE_SERVICE_FACTORY_CLASS,
                    RailyardShuffleServiceFactory.class.getName());
        }
        return config;
    }

    /** Starts the MiniCluster with the row's shuffle. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        expected = LongJobs.expected(recordsPerSubtask, subtasks);
        flink =
                FlinkBatchJobs.start(
                        Path.of(System.getProperty("java.io.tmpdir")),
                        ShuffleOptions.Compression.NONE,
                        mode,
                        shuffleConfiguration(shuffle),
                        Math.max(LongJobs.SLOTS, subtasks));
    }

    /** Stops the MiniCluster and removes its files. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        FlinkBatchJobs f = flink;
        flink = null;
        if (f != null) {
            f.close();
        }
    }

    /** Runs one job; returns what its sinks counted (checked against {@link LongJobs#expected}). */
    @Benchmark
    public Tally job(MiniClusterSideBySideBenchmark.Records counter) throws Exception {
        FlinkBatchJobs f = flink;
        if (f == null) {
            throw new IllegalStateException(shuffle + ": not set up");
        }
        long cpuBefore = OS.getProcessCpuTime();
        Tally got = FlinkBatchJobs.check(f.run(shape, recordsPerSubtask, subtasks), expected);
        counter.cpu += (OS.getProcessCpuTime() - cpuBefore) / 1e9;
        counter.records += got.records();
        return got;
    }
}
