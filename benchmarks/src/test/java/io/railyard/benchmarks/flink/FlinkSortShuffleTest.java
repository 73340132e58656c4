package io.railyard.benchmarks.flink;

import static io.railyard.benchmarks.procedures.Throughputs.failure;
import static io.railyard.benchmarks.procedures.Throughputs.measured;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.Delivered;
import io.railyard.benchmarks.procedures.ShuffleThroughput;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Consumers;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Failure;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Settings;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Throughput;
import io.railyard.benchmarks.procedures.WrittenRecords;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.partition.PartitionKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CI twin of the shuffle comparison ({@code shuffle --with-flink}): Railyard's sort partitions
 * and Flink's {@code SortMergeResultPartition}, driven by {@link ShuffleThroughput} and {@link
 * FlinkSortShuffle} on the same settings, deliver exactly the records producers wrote, checked
 * against an oracle that hashes every record of the generator one by one. Small P, small bytes,
 * compression off and on; 20-byte records (many per page, compressible, some spanning pages) and
 * 5,000-byte ones (each spans pages of 4 KiB). Asserts records, never speed.
 */
class FlinkSortShuffleTest {
    @TempDir Path dir;

    private Settings settings(int parallelism, int recordBytes, Compression compression) {
        return new Settings(
                parallelism,
                300_001,
                recordBytes,
                4,
                ShuffleOptions.builder()
                        .pageSizeBytes(4096)
                        .totalPages(4096)
                        .compression(compression)
                        .build(),
                dir,
                EnumSet.of(PartitionKind.SORT),
                Consumers.EARLY);
    }

    @ParameterizedTest(name = "P = {0}, {1}-byte records, {2}")
    @CsvSource({
        "1, 20, NONE",
        "7, 20, NONE",
        "32, 20, NONE",
        "1, 20, LZ4",
        "7, 20, LZ4",
        "32, 20, LZ4",
        "1, 5000, NONE",
        "7, 5000, LZ4",
        "32, 5000, NONE"
    })
    void bothSides_deliverExactlyWhatProducersWrote(
            int parallelism, int recordBytes, Compression compression) throws Exception {
        Settings settings = settings(parallelism, recordBytes, compression);
        Delivered written = WrittenRecords.of(settings);

        Throughput.Measured railyard =
                measured(ShuffleThroughput.run(settings, PartitionKind.SORT), "railyard");
        Throughput.Measured flink = measured(FlinkSortShuffle.run(settings), "flink");

        assertThat(written.bytes()).isEqualTo(settings.bytes());
        assertThat(railyard.delivered()).isEqualTo(written);
        assertThat(flink.delivered()).isEqualTo(written);
        assertThat(flink.files())
                .as("a data and an index file per partition")
                .isEqualTo(2L * parallelism);
        assertThat(flink.writeMbPerSecond()).isPositive();
        assertThat(flink.readMbPerSecond()).isPositive();
        try (var files = Files.list(dir)) {
            assertThat(files).as("every file and directory deleted").isEmpty();
        }
    }

    @Test
    void run_writersLeaveNoReadBuffer_isNotMeasuredAndSaysWhatItNeeds() {
        // 4 writers at once of 7 pages (4 + 2 + 1) fill all 28 pages: no room for the read pool.
        Settings settings =
                new Settings(
                        8,
                        10_000,
                        100,
                        4,
                        ShuffleOptions.builder()
                                .pageSizeBytes(4096)
                                .totalPages(28)
                                .sortBufferPages(4)
                                .writeBatchPages(2)
                                .compression(Compression.NONE)
                                .build(),
                        dir,
                        EnumSet.of(PartitionKind.SORT),
                        Consumers.EARLY);

        Throughput flink = FlinkSortShuffle.run(settings);

        assertThat(failure(flink)).isInstanceOf(Failure.InsufficientMemory.class);
        Failure.InsufficientMemory failure = (Failure.InsufficientMemory) failure(flink);
        assertThat(failure.requiredMemoryBytes()).isEqualTo(29 * 4096L);
        assertThat(failure.message())
                .isEqualTo(
                        "needs 116 KiB of network memory, has 112 KiB: 4 writers at once, each a"
                                + " Flink sort-merge writer of 7 buffers (a Railyard sort writer's"
                                + " pages) of 4 KiB, plus at least 1 buffer for Flink's"
                                + " batch-shuffle read pool");
    }
}
