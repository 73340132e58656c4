package io.railyard.benchmarks.flink;

import com.sun.management.OperatingSystemMXBean;
import io.railyard.benchmarks.procedures.Delivered;
import io.railyard.benchmarks.procedures.NetworkThroughput;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Network throughput over TCP on loopback in one JVM, side by side (see {@link SideBySide}), in the
 * shape of flink-benchmarks' {@code StreamNetworkThroughputBenchmarkExecutor.networkThroughput}: 4
 * record-writer threads, each writing 8-byte records round-robin into a pipelined partition of
 * {@code channels} subpartitions, made readable every {@code flushMillis}; one receiving thread
 * reads all {@code 4 × channels} subpartitions over one TCP connection and decodes every record.
 * Railyard's side is {@link NetworkThroughput} (a producing shuffle worker's {@code PIPELINED}
 * partitions served by its {@code DataServer}, read through a {@code TransportClient}'s gates),
 * Flink 2.3's is {@link FlinkNetworkThroughput} (two {@code NettyShuffleEnvironment}s, {@code
 * PIPELINED_BOUNDED} partitions, {@code RecordWriter}s with output flushers, a union of remote
 * input gates); each class's Javadoc says what it builds and where the two topologies differ (Flink
 * groups the channels by partition, one gate each; Railyard by subpartition, since a Railyard gate
 * reads one subpartition of each of its partitions).
 *
 * <p>An invocation sends 5,000,000 records (1,250,000 per writer, then an end-of-round record to
 * every subpartition and a flush, as Flink's writers end a round) and waits until the receiver has
 * read them all; both sides check that the receiver read exactly the records sent, count and sum of
 * values. Partitions, connections and gates live for the trial, as in Flink's benchmark.
 *
 * <p>Scores: {@code networkThroughput} is records per millisecond (Flink's unit); {@code
 * networkThroughput:cpuMillis} is the process's CPU milliseconds per millisecond during the
 * invocations (an {@link AuxCounters} counter: the cores kept busy, every thread counted). CPU
 * seconds per GB of record payload (8 bytes per record) is {@code cpuMillis / (records/ms × 8 ×
 * 10^-6)}. Pairs are adjacent ({@code system} varies fastest); the ratio is their quotient.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar NetworkThroughputSideBySide -wi 2 -i 3
 * -f 1} (8 rows, each a fork of its own); pick rows with {@code -p channels=1000 -p flushMillis=1}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@OperationsPerInvocation(NetworkThroughputSideBySideBenchmark.RECORDS_PER_INVOCATION)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx3g", "-XX:MaxDirectMemorySize=3g"})
public class NetworkThroughputSideBySideBenchmark {
    /** Records per invocation (flink-benchmarks: 5,000,000). */
    static final int RECORDS_PER_INVOCATION = 5_000_000;

    private static final OperatingSystemMXBean OS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** Subpartitions per partition (flink-benchmarks: 100 and 1,000). */
    @Param({"100", "1000"})
    public int channels;

    /** The flush interval of every writer in milliseconds (flink-benchmarks: 1 and 100). */
    @Param({"1", "100"})
    public int flushMillis;

    /** Railyard or Flink; JMH varies it fastest (last in name order), so pairs are adjacent. */
    @Param({"RAILYARD", "FLINK"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public SideBySide system;

    private long iterationCpuNanos;
    private long iterationRecords;
    private long iterationWallNanos;

    private @Nullable NetworkThroughput railyard;
    private @Nullable FlinkNetworkThroughput flink;

    /** CPU time the process used during the iteration's invocations: per ms, the cores busy. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Cpu {
        /** CPU milliseconds of every thread of the process during the invocations. */
        public double cpuMillis;

        /** Starts the iteration's count. */
        @Setup(Level.Iteration)
        public void reset() {
            cpuMillis = 0;
        }
    }

    /** Starts the system's two sides, their connection and every gate. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        if (system == SideBySide.RAILYARD) {
            railyard =
                    NetworkThroughput.start(
                            NetworkThroughput.Settings.flinkShape(
                                    channels, Duration.ofMillis(flushMillis)),
                            Path.of(System.getProperty("java.io.tmpdir")));
        } else {
            flink =
                    FlinkNetworkThroughput.start(
                            NetworkThroughput.FLINK_WRITERS, channels, flushMillis);
        }
    }

    /** Starts the iteration's own CPU, record and time counts (printed at its end). */
    @Setup(Level.Iteration)
    public void startIteration() {
        iterationCpuNanos = 0;
        iterationRecords = 0;
        iterationWallNanos = 0;
    }

    /**
     * Prints the iteration's CPU seconds per GB of record payload and the cores busy, from its own
     * counts (a cross-check of {@code cpuMillis}).
     */
    @TearDown(Level.Iteration)
    public void printIteration() {
        double gigabytes = iterationRecords * (double) NetworkThroughput.RECORD_BYTES / 1e9;
        System.out.printf(
                Locale.ROOT,
                "  [%s] %.0f records/ms, %.2f cores, %.2f CPU s/GB of payload%n",
                system,
                iterationRecords / (iterationWallNanos / 1e6),
                iterationCpuNanos / (double) iterationWallNanos,
                iterationCpuNanos / 1e9 / gigabytes);
    }

    /** Stops both sides and removes Railyard's files. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        NetworkThroughput r = railyard;
        FlinkNetworkThroughput f = flink;
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

    /** Sends and receives one round; returns what the receiver read (checked against the sent). */
    @Benchmark
    public Delivered networkThroughput(Cpu cpu) throws Exception {
        NetworkThroughput r = railyard;
        FlinkNetworkThroughput f = flink;
        long before = OS.getProcessCpuTime();
        long start = System.nanoTime();
        Delivered read;
        if (r != null) {
            read = r.run(RECORDS_PER_INVOCATION);
        } else if (f != null) {
            read = f.run(RECORDS_PER_INVOCATION);
        } else {
            throw new IllegalStateException(system + ": not set up");
        }
        long used = OS.getProcessCpuTime() - before;
        iterationWallNanos += System.nanoTime() - start;
        iterationCpuNanos += used;
        iterationRecords += read.records();
        cpu.cpuMillis += used / 1e6;
        return read;
    }
}
