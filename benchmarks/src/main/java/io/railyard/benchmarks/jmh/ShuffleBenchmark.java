package io.railyard.benchmarks.jmh;

import io.railyard.benchmarks.procedures.ShuffleThroughput;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * One whole shuffle, single shot: P producers write {@code mebibytes} of 256-byte records through
 * sort-based, hash-based or hybrid partitions and P consumers read them (after the producers for
 * sort and hash; while they write for hybrid, attached as {@code consumers} says), producers 8 at a
 * time, in one worker with {@code memoryMib} of network memory (files in a marked directory under
 * java.io.tmpdir, deleted at the end and on Ctrl-C). What does not fit fails at once, naming the
 * memory it would need, which is the point: hash-based partitions at P = 1,000, and hybrid ones
 * with early consumers from P = 100 on in 64 MiB (every writer and every gate at once); hybrid with
 * {@code -p consumers=WAVES} fits at P = 1,000. MB/s against the disk, and where hybrid bytes went,
 * are the {@code shuffle} command's business.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ShuffleBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class ShuffleBenchmark {
    /** Producers = consumers. */
    @Param({"1", "100", "1000"})
    public int parallelism;

    /** Partition kind. */
    @Param({"SORT", "HASH", "HYBRID_FULL", "HYBRID_SELECTIVE"})
    public PartitionKind kind = PartitionKind.SORT;

    /** When the consumers of a hybrid kind attach (ignored by sort and hash). */
    @Param({"EARLY"})
    public ShuffleThroughput.Consumers consumers = ShuffleThroughput.Consumers.EARLY;

    /** MiB of records per shuffle. */
    @Param({"256"})
    public int mebibytes;

    /** Network memory of the worker, in MiB. */
    @Param({"64"})
    public int memoryMib;

    @SuppressWarnings("NullAway.Init") // set in setup
    private ShuffleThroughput.Fixture fixture;

    /** A directory and the settings. */
    @Setup
    public void setUp() throws IOException {
        fixture =
                ShuffleThroughput.Fixture.create(
                        parallelism,
                        mebibytes,
                        (long) memoryMib << 20,
                        ShuffleOptions.Compression.NONE,
                        kind,
                        consumers);
    }

    /** Removes the directory (each shuffle deleted its files already) and its exit hook. */
    @TearDown
    public void tearDown() throws IOException {
        fixture.close();
    }

    /** Writes and reads everything; fails naming the memory needed if it does not fit. */
    @Benchmark
    public double shuffle() throws IOException {
        ShuffleThroughput.Throughput result = ShuffleThroughput.run(fixture.settings(), kind);
        if (result instanceof ShuffleThroughput.Throughput.Measured measured) {
            return measured.readMbPerSecond();
        }
        throw new IllegalStateException(
                ((ShuffleThroughput.Throughput.Failed) result).failure().message());
    }
}
