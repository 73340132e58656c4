package io.railyard.benchmarks.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Kind;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Reason;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.ShuffleMemory;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shuffle measurement at a tiny scale: it runs, checks its data, counts files, cleans up. */
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

    @Test
    void measure_smallShuffle_bothKindsReadEverythingAndCountFiles() throws Exception {
        ShuffleThroughput.Result result =
                ShuffleThroughput.measure(settings(5, 2048, dir), step -> {});

        assertThat(result.limit().writeMbPerSecond()).isPositive();
        // Direct IO works on the usual Linux file systems; where it does not, the result says so.
        if (result.deviceLimit().failure() == null) {
            assertThat(result.deviceLimit().readMbPerSecond()).isPositive();
        } else {
            assertThat(result.deviceLimit().failure().reason()).isEqualTo(Reason.UNSUPPORTED);
        }
        assertThat(result.sort().failure()).isNull();
        assertThat(result.sort().readMbPerSecond()).isPositive();
        assertThat(result.sort().files()).isEqualTo(2 * 5);
        assertThat(result.hash().failure()).isNull();
        assertThat(result.hash().files()).isEqualTo(5 * 5);
        assertThat(result.ioFailure()).isNull();
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void measure_hashBeyondMemory_isNotRunAndSaysWhatItNeeds() throws Exception {
        ShuffleThroughput.Settings settings = settings(100, 400, dir);

        ShuffleThroughput.Result result = ShuffleThroughput.measure(settings, step -> {});

        assertThat(result.sort().failure()).isNull();
        ShuffleThroughput.Failure failure = result.hash().failure();
        assertThat(failure).isNotNull();
        assertThat(failure.reason()).isEqualTo(Reason.INSUFFICIENT_MEMORY);
        // 4 hash writers at once (100 subpartitions + 1 page to compress), plus the IO scheduler.
        long required = (4 * 101 + ShuffleMemory.ioSchedulerPages(settings.options())) * 4096L;
        assertThat(failure.requiredMemoryBytes()).isEqualTo(required);
        assertThat(ShuffleThroughput.requiredMemoryBytes(settings, Kind.HASH)).isEqualTo(required);
        assertThat(failure.message())
                .contains("needs " + (required >> 10) + " KiB of network memory, has 1600 KiB")
                .contains("4 tasks at once, each a hash writer of 101 pages");
        assertThat(result.hash().files()).isZero();
        assertThat(result.ioFailure()).as("a memory shortfall is not a failed run").isNull();
    }

    @Test
    void measure_diskFull_recordsTheIoFailureAndLeavesNothing() throws Exception {
        try (FileSystem small =
                Jimfs.newFileSystem(
                        Configuration.unix().toBuilder().setMaxSize(64 << 10).build())) {
            Path parent = Files.createDirectories(small.getPath("/shuffle"));

            ShuffleThroughput.Result result =
                    ShuffleThroughput.measure(settings(2, 2048, parent), step -> {});

            ShuffleThroughput.Failure failure = result.ioFailure();
            assertThat(failure).isNotNull();
            assertThat(failure.message())
                    .contains("sequential limit: /shuffle/railyard-shuffle-")
                    .contains("out of disk space after");
            assertThat(result.limit().failure()).isEqualTo(failure);
            try (var files = Files.list(parent)) {
                assertThat(files).isEmpty();
            }
        }
    }
}
