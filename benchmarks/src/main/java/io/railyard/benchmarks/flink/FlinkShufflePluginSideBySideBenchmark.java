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
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.shuffle.ShuffleServiceOptions;
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
 * The same Flink batch jobs on the same MiniCluster, with Flink's own shuffle (sort-merge blocking
 * partitions, tiered hybrid) or with Railyard's plugin ({@code shuffle-service-factory.class:
 * io.railyard.flink.RailyardShuffleServiceFactory}): flink-benchmarks' {@code
 * BlockingPartitionBenchmark} shape and its keyed all-to-all variant, BLOCKING, HYBRID_FULL and
 * HYBRID_SELECTIVE, as {@link MiniClusterSideBySideBenchmark} builds them ({@link FlinkBatchJobs}:
 * 1 TaskManager × 8 slots, parallelism 4, 64 MiB of network memory in 32 KiB pages). Both sides run
 * Flink's tasks, scheduler and serialization; only the shuffle differs. Both check that the sinks
 * counted exactly the records sent.
 *
 * <p>Scores ({@link Counters}): {@code job:records} is records/s, {@code job:cpu} the cores the
 * process kept busy, {@code job:writtenMiB} and {@code job:readMiB} the MiB/s the process wrote and
 * read (per job: divide by the {@code job} score); {@code shuffle} is last by name, so each
 * RAILYARD row is beside the FLINK row of the same job. Both shuffles compress alike: the plugin
 * follows Flink's codec, NONE here. {@code -p networkMiB=N} finds the least network memory a row
 * runs in.
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

    /**
     * The TaskManager's network memory in MiB (min = max; Flink's default minimum is 64). Lower it
     * to find the least each shuffle runs a row in: a row that does not fit fails its job.
     */
    @Param({"64"})
    public int networkMiB;

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
        return shuffleConfiguration(shuffle, LongJobs.NETWORK_MEMORY_BYTES >> 20);
    }

    /** The same with {@code networkMiB} of network memory. */
    static Configuration shuffleConfiguration(Shuffle shuffle, long networkMiB) {
        Configuration config = new Configuration();
        MemorySize network = MemorySize.ofMebiBytes(networkMiB);
        config.set(TaskManagerOptions.NETWORK_MEMORY_MIN, network);
        config.set(TaskManagerOptions.NETWORK_MEMORY_MAX, network);
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
                        shuffleConfiguration(shuffle, networkMiB),
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
    public Tally job(Counters counter) throws Exception {
        FlinkBatchJobs f = flink;
        if (f == null) {
            throw new IllegalStateException(shuffle + ": not set up");
        }
        long cpuBefore = OS.getProcessCpuTime();
        long[] ioBefore = ProcessIo.read();
        Tally got = FlinkBatchJobs.check(f.run(shape, recordsPerSubtask, subtasks), expected);
        long[] ioAfter = ProcessIo.read();
        counter.cpu += (OS.getProcessCpuTime() - cpuBefore) / 1e9;
        counter.records += got.records();
        counter.writtenMiB += (ioAfter[0] - ioBefore[0]) / (double) (1 << 20);
        counter.readMiB += (ioAfter[1] - ioBefore[1]) / (double) (1 << 20);
        return got;
    }

    /**
     * What the iteration's jobs did, per second of the iteration: records, the cores the process
     * kept busy (as {@link MiniClusterSideBySideBenchmark.Records}), and the MiB the process wrote
     * and read through system calls ({@code wchar} and {@code rchar} of {@code /proc/self/io}:
     * partition files, mostly, as the MiniCluster's one TaskManager reads its partitions without
     * sockets; 0 where there is no such file). Divided by the {@code job} score (jobs/s), a counter
     * is per job.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Counters {
        /** Records received by the sinks. */
        public long records;

        /** CPU seconds of the whole process. */
        public double cpu;

        /** MiB written by the process's system calls. */
        public double writtenMiB;

        /** MiB read by the process's system calls. */
        public double readMiB;

        /** Starts the iteration's counts. */
        @Setup(Level.Iteration)
        public void reset() {
            records = 0;
            cpu = 0;
            writtenMiB = 0;
            readMiB = 0;
        }
    }
}
