package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.Delivered;
import io.railyard.benchmarks.procedures.ShuffleThroughput;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Consumers;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Throughput;
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
 * One whole sort-based shuffle, side by side (see {@link SideBySide}): P producers write {@code
 * mebibytes} of 256-byte records and P consumers read every subpartition to its end, through
 * Railyard's sort partitions ({@link ShuffleThroughput#run} of {@link PartitionKind#SORT}) or Flink
 * 2.1's {@code SortMergeResultPartition} ({@link FlinkSortShuffle#run}), with the same records, 8
 * slots, 64 MiB of network memory and 32 KiB pages, compressed as {@code compression} says. Each
 * side checks that its consumers read exactly the records written. Single shot: milliseconds per
 * shuffle, writing and reading together, files in a marked directory under java.io.tmpdir; MB/s of
 * each phase against the disk are {@code shuffle --with-flink}'s business.
 *
 * <p>Not on {@link SideBySideBenchmark}: its parallelisms (1,000 to 10,000) are the scheduler's,
 * and neither side needs Flink's main-thread executor here. {@code system} is still the last
 * parameter by name, so JMH varies it fastest and pairs are adjacent.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ShuffleSideBySide}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class ShuffleSideBySideBenchmark {
    /** Producers = consumers. */
    @Param({"1", "100", "1000"})
    public int parallelism;

    /** MiB of records per shuffle: small, so a smoke run stays short. */
    @Param({"64"})
    public int mebibytes;

    /** The codec of both sides (Flink's LZ4 {@code BufferCompressor} for LZ4). */
    @Param({"NONE"})
    public ShuffleOptions.Compression compression = ShuffleOptions.Compression.NONE;

    /** Railyard or Flink; JMH varies it fastest (last in name order), so pairs are adjacent. */
    @Param({"RAILYARD", "FLINK"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public SideBySide system;

    @SuppressWarnings("NullAway.Init") // set in setup
    private ShuffleThroughput.Fixture fixture;

    /** A directory and the settings. */
    @Setup
    public void setUp() throws IOException {
        fixture =
                ShuffleThroughput.Fixture.create(
                        parallelism,
                        mebibytes,
                        64L << 20,
                        compression,
                        PartitionKind.SORT,
                        Consumers.EARLY);
    }

    /** Removes the directory (each shuffle deleted its files already) and its exit hook. */
    @TearDown
    public void tearDown() throws IOException {
        fixture.close();
    }

    /** Writes and reads everything; returns the records read (checked against those written). */
    @Benchmark
    public long shuffle() {
        Throughput result =
                system == SideBySide.RAILYARD
                        ? ShuffleThroughput.run(fixture.settings(), PartitionKind.SORT)
                        : FlinkSortShuffle.run(fixture.settings());
        if (result instanceof Throughput.Failed failed) {
            throw new IllegalStateException(system + ": " + failed.failure().message());
        }
        Delivered read = ((Throughput.Measured) result).delivered();
        if (read == null) {
            throw new IllegalStateException(system + ": nothing read");
        }
        return read.records();
    }
}
