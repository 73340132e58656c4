package io.railyard.benchmarks.procedures;

import static io.railyard.benchmarks.procedures.Throughputs.failure;
import static io.railyard.benchmarks.procedures.Throughputs.measured;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Consumers;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Failure;
import io.railyard.benchmarks.procedures.ShuffleThroughput.HybridCounts;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Throughput;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.HybridPartitionWriter;
import io.railyard.shuffle.partition.HybridStats;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleMemory;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.PartitionId;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The shuffle measurement at a tiny scale: it runs every kind, checks its data, counts files and
 * where hybrid bytes went, says what memory a run needs, cleans up.
 */
class ShuffleThroughputTest {
    @TempDir Path dir;

    private ShuffleThroughput.Settings settings(int parallelism, int pages, Path directory) {
        return new ShuffleThroughput.Settings(
                parallelism,
                300_000,
                100,
                4,
                ShuffleOptions.builder().pageSizeBytes(4096).totalPages(pages).build(),
                directory);
    }

    /**
     * A hybrid run with several regions per producer: 2 MB from 4 producers through 8-page sort
     * buffers (32 KiB regions), an ample pool (4,096 pages of 4 KiB, 4 gates of 16 pages).
     */
    private ShuffleThroughput.Settings hybrid(Consumers consumers) {
        return new ShuffleThroughput.Settings(
                4,
                2_000_000,
                100,
                2,
                ShuffleOptions.builder()
                        .pageSizeBytes(4096)
                        .totalPages(4096)
                        .sortBufferPages(8)
                        .gatePages(16)
                        .compression(ShuffleOptions.Compression.NONE)
                        .build(),
                dir,
                EnumSet.of(PartitionKind.HYBRID_FULL, PartitionKind.HYBRID_SELECTIVE),
                consumers);
    }

    @Test
    void measure_smallShuffle_everyKindReadsEverythingAndCountsFiles() throws Exception {
        ShuffleThroughput.Result result =
                ShuffleThroughput.measure(settings(5, 2048, dir), step -> {});
        Delivered written = WrittenRecords.of(settings(5, 2048, dir));

        assertThat(measured(result.limits().pageCache()).writeMbPerSecond()).isPositive();
        // Direct IO works on the usual Linux file systems; where it does not, the result says so.
        if (result.limits().device() instanceof Throughput.Measured device) {
            assertThat(device.readMbPerSecond()).isPositive();
        } else {
            assertThat(failure(result.limits().device())).isInstanceOf(Failure.Unsupported.class);
        }
        assertThat(result.systems()).containsOnlyKeys(ShuffleThroughput.KINDS);
        for (PartitionKind kind : ShuffleThroughput.KINDS) {
            Throughput.Measured t = measured(result.system(kind), ShuffleThroughput.key(kind));
            assertThat(t.writeMbPerSecond()).as(ShuffleThroughput.key(kind)).isPositive();
            assertThat(t.readMbPerSecond()).as(ShuffleThroughput.key(kind)).isPositive();
            assertThat(t.hybrid() != null)
                    .as(ShuffleThroughput.key(kind))
                    .isEqualTo(kind.isReadableWhileWritten());
            assertThat(t.delivered()).as(ShuffleThroughput.key(kind)).isEqualTo(written);
        }
        assertThat(written.records()).isEqualTo(3000);
        assertThat(measured(result.limits().pageCache()).delivered()).isNull();
        assertThat(result.flinkSort()).isNull();
        assertThat(result.system(PartitionKind.SORT).files())
                .isEqualTo(5); // one file per partition
        assertThat(result.system(PartitionKind.HASH).files()).isEqualTo(5 * 5);
        // Full: one data file per producer (it writes everything). Selective: nothing spilled in
        // an ample pool, and a data file is made only at a first spill.
        assertThat(result.system(PartitionKind.HYBRID_FULL).files()).isEqualTo(5);
        assertThat(result.system(PartitionKind.HYBRID_SELECTIVE).files()).isZero();
        assertThat(result.ioFailure()).isNull();
        assertThat(result.setup().consumers()).isEqualTo(Consumers.EARLY);
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void measure_someKinds_runsOnlyThoseInKindOrder() throws Exception {
        ShuffleThroughput.Settings settings =
                new ShuffleThroughput.Settings(
                        3,
                        30_000,
                        100,
                        2,
                        ShuffleOptions.builder().pageSizeBytes(4096).totalPages(1024).build(),
                        dir,
                        Set.of(PartitionKind.HYBRID_SELECTIVE, PartitionKind.SORT),
                        Consumers.LATE);

        ShuffleThroughput.Result result = ShuffleThroughput.measure(settings, step -> {});

        assertThat(result.systems().keySet())
                .containsExactly(PartitionKind.SORT, PartitionKind.HYBRID_SELECTIVE);
        assertThat(result.system(PartitionKind.HASH)).isNull();
        assertThat(ShuffleThroughput.steps(settings)).isEqualTo(3);
    }

    @Test
    void run_hybridEarlyConsumersAmplePool_selectiveStaysInMemory_fullWritesAllReadsMemory() {
        ShuffleThroughput.Settings settings = hybrid(Consumers.EARLY);

        Throughput.Measured full =
                measured(ShuffleThroughput.run(settings, PartitionKind.HYBRID_FULL));
        Throughput.Measured selective =
                measured(ShuffleThroughput.run(settings, PartitionKind.HYBRID_SELECTIVE));

        HybridCounts fullCounts = full.hybrid();
        HybridCounts selectiveCounts = selective.hybrid();
        assertThat(selectiveCounts.diskWriteFraction())
                .as("%s", selectiveCounts)
                .isLessThanOrEqualTo(0.10);
        assertThat(fullCounts.diskWriteFraction())
                .as("%s", fullCounts)
                .isGreaterThanOrEqualTo(0.99);
        assertThat(fullCounts.memoryReadFraction())
                .as("%s", fullCounts)
                .isGreaterThanOrEqualTo(0.9);
        for (HybridCounts counts : new HybridCounts[] {fullCounts, selectiveCounts}) {
            HybridStats stats = counts.stats();
            assertThat(stats.bytesReadFromMemory() + stats.bytesReadFromDisk())
                    .as("every frame produced is read once")
                    .isEqualTo(stats.bytesProduced());
            assertThat(counts.diskReadFraction() + counts.memoryReadFraction())
                    .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
            assertThat(counts.peakBorrowedPages()).isPositive();
            assertThat(stats.residentPages()).as("released: nothing resident").isZero();
        }
    }

    @ParameterizedTest
    @CsvSource({
        "LATE, HYBRID_FULL",
        "LATE, HYBRID_SELECTIVE",
        "WAVES, HYBRID_FULL",
        "WAVES, HYBRID_SELECTIVE"
    })
    void run_hybridLateOrInWaves_readsEveryByte(Consumers consumers, PartitionKind kind)
            throws Exception {
        Throughput.Measured t = measured(ShuffleThroughput.run(hybrid(consumers), kind));

        assertThat(t.readMbPerSecond()).isPositive();
        HybridStats stats = t.hybrid().stats();
        assertThat(stats.bytesReadFromMemory() + stats.bytesReadFromDisk())
                .isEqualTo(stats.bytesProduced());
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    /**
     * Pacing is an upper bound on the producers' rate: 4 MB at 20 MB/s cannot be written in less
     * than about 0.2 s (the last 255 records of a producer are not paced: 5 %). Unpaced, the same
     * run writes at hundreds of MB/s, so the bound fails if pacing is lost.
     */
    @ParameterizedTest
    @CsvSource({"SORT", "HYBRID_SELECTIVE"})
    void run_pacedProducers_writeNoFasterThanThePace(PartitionKind kind) throws Exception {
        ShuffleThroughput.Settings base = hybrid(Consumers.EARLY);
        ShuffleThroughput.Settings paced =
                new ShuffleThroughput.Settings(
                        base.parallelism(),
                        4_000_000,
                        base.recordBytes(),
                        base.slots(),
                        base.options(),
                        dir,
                        EnumSet.of(kind),
                        Consumers.EARLY,
                        20_000_000);

        Throughput.Measured t = measured(ShuffleThroughput.run(paced, kind));

        assertThat(t.writeMbPerSecond()).isPositive().isLessThanOrEqualTo(20 * 1.05);
    }

    @Test
    void measure_hashBeyondMemory_isNotRunAndSaysWhatItNeeds() throws Exception {
        ShuffleThroughput.Settings settings = settings(100, 400, dir);

        ShuffleThroughput.Result result = ShuffleThroughput.measure(settings, step -> {});

        measured(result.system(PartitionKind.SORT));
        assertThat(failure(result.system(PartitionKind.HASH)))
                .isInstanceOf(Failure.InsufficientMemory.class);
        Failure.InsufficientMemory failure =
                (Failure.InsufficientMemory) failure(result.system(PartitionKind.HASH));
        // 4 hash writers at once (100 subpartitions + 1 page to compress), plus the IO scheduler.
        long required = (4 * 101 + ShuffleMemory.ioSchedulerPages(settings.options())) * 4096L;
        assertThat(failure.requiredMemoryBytes()).isEqualTo(required);
        assertThat(ShuffleThroughput.requiredMemoryBytes(settings, PartitionKind.HASH))
                .isEqualTo(required);
        assertThat(failure.message())
                .contains("needs " + (required >> 10) + " KiB of network memory, has 1600 KiB")
                .contains("4 tasks at once, each a hash writer of 101 pages");
        assertThat(result.system(PartitionKind.HASH).files()).isZero();
        assertThat(result.ioFailure()).as("a memory shortfall is not a failed run").isNull();
    }

    @Test
    void measure_hybridEarlyBeyondMemory_isNotRunAndSaysWhatItNeeds() throws Exception {
        ShuffleThroughput.Settings settings = settings(100, 400, dir);
        int io = ShuffleMemory.ioSchedulerPages(settings.options());

        ShuffleThroughput.Result result = ShuffleThroughput.measure(settings, step -> {});

        for (PartitionKind kind :
                EnumSet.of(PartitionKind.HYBRID_FULL, PartitionKind.HYBRID_SELECTIVE)) {
            assertThat(failure(result.system(kind)))
                    .as(ShuffleThroughput.key(kind))
                    .isInstanceOf(Failure.InsufficientMemory.class);
            Failure.InsufficientMemory failure =
                    (Failure.InsufficientMemory) failure(result.system(kind));
            // Every writer (64 sort-buffer pages + 1 + 1 to compress) and every gate (64 pages).
            long required = (io + 100L * (66 + 64)) * 4096;
            assertThat(failure.requiredMemoryBytes()).isEqualTo(required);
            assertThat(failure.message())
                    .startsWith(
                            "needs " + (required >> 10) + " KiB of network memory, has 1600 KiB")
                    .contains("100 hybrid writers of 66 pages and 100 input gates of 64 pages")
                    .contains("early consumers")
                    .endsWith("; the writers alone need " + ((io + 6_600L) * 4) + " KiB");
        }
    }

    @ParameterizedTest
    @EnumSource(Consumers.class)
    void requiredMemoryBytes_hybrid_growsWithParallelismUnlessInWaves(Consumers consumers) {
        ShuffleThroughput.Settings settings = settings(1000, 2048, dir).withConsumers(consumers);
        int io = ShuffleMemory.ioSchedulerPages(settings.options());

        long tasks = consumers == Consumers.WAVES ? 4 : 1000;
        assertThat(ShuffleThroughput.requiredMemoryBytes(settings, PartitionKind.HYBRID_SELECTIVE))
                .isEqualTo((io + tasks * (66 + 64)) * 4096);
    }

    @Test
    void memoryNeeds_hybridThatFitsWithSmallerGates_saysHowSmall() {
        // 4 writers of 66 pages + 17 for the IO scheduler leave 219 of 500 pages: 54 per gate.
        ShuffleThroughput.Settings settings = settings(4, 500, dir);

        assertThat(ShuffleThroughput.memoryNeeds(settings, PartitionKind.HYBRID_FULL))
                .startsWith("needs 2148 KiB of network memory, has 2000 KiB")
                .endsWith("; it fits with input gates of at most 54 pages");
    }

    @Test
    void hybridWriterPages_isWhatTheWorkerTakes() throws Exception {
        for (ShuffleOptions.Compression compression : ShuffleOptions.Compression.values()) {
            ShuffleOptions options =
                    ShuffleOptions.builder()
                            .pageSizeBytes(4096)
                            .totalPages(512)
                            .compression(compression)
                            .build();
            try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
                int before = worker.stats().pagesInUse();
                try (HybridPartitionWriter writer =
                        (HybridPartitionWriter)
                                worker.createPartition(
                                        new PartitionId(0, 0), 3, PartitionKind.HYBRID_SELECTIVE)) {
                    assertThat(writer.partition().isFinished()).isFalse();
                    assertThat(worker.stats().pagesInUse() - before)
                            .as("%s", compression)
                            .isEqualTo(ShuffleThroughput.hybridWriterPages(options));
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Consumers.class)
    void run_hybridFullOnAFullDisk_recordsTheIoFailure_returnsEveryPage_leavesNothing(
            Consumers consumers) throws Exception {
        try (FileSystem small =
                Jimfs.newFileSystem(
                        Configuration.unix().toBuilder().setMaxSize(512 << 10).build())) {
            Path parent = Files.createDirectories(small.getPath("/shuffle"));
            ShuffleThroughput.Settings settings =
                    new ShuffleThroughput.Settings(
                            4,
                            2_000_000,
                            100,
                            2,
                            hybrid(consumers).options(),
                            parent,
                            EnumSet.of(PartitionKind.HYBRID_FULL),
                            consumers);

            // Full mode writes every byte: 2 MB cannot fit in 512 KiB. The worker closes only
            // with every page back, so a leak would fail the run with an IllegalStateException.
            Throughput t = ShuffleThroughput.run(settings, PartitionKind.HYBRID_FULL);

            assertThat(failure(t)).isInstanceOf(Failure.IoError.class);
            assertThat(failure(t).message()).startsWith("hybrid-full: ");
            try (var files = Files.list(parent)) {
                assertThat(files).isEmpty();
            }
        }
    }

    @Test
    void measure_diskFull_recordsTheIoFailureAndLeavesNothing() throws Exception {
        try (FileSystem small =
                Jimfs.newFileSystem(
                        Configuration.unix().toBuilder().setMaxSize(64 << 10).build())) {
            Path parent = Files.createDirectories(small.getPath("/shuffle"));

            ShuffleThroughput.Result result =
                    ShuffleThroughput.measure(settings(2, 2048, parent), step -> {});

            Failure.IoError failure = result.ioFailure();
            assertThat(failure).isNotNull();
            assertThat(failure.message())
                    .contains("sequential limit: /shuffle/railyard-shuffle-")
                    .contains("out of disk space after");
            assertThat(failure(result.limits().pageCache())).isEqualTo(failure);
            try (var files = Files.list(parent)) {
                assertThat(files).isEmpty();
            }
        }
    }
}
