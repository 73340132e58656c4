package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.format.IndexEntry;
import io.railyard.shuffle.partition.ShuffleHarness.Stream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every consumer reads exactly the records sent to it, in order (ARCHITECTURE.md, Reliability
 * invariant 1 and rows 19, 24): random streams (0 B to several pages, skew, broadcast), hash and
 * sort, with and without LZ4, at the minimum budget and an ample one; afterwards every page is back
 * and release deletes every file.
 */
class ShufflePropertyTest {
    static java.util.stream.Stream<Arguments> cases() {
        java.util.stream.Stream.Builder<Arguments> cases = java.util.stream.Stream.builder();
        IntStream.range(0, 40)
                .forEach(
                        seed -> {
                            for (PartitionKind kind :
                                    List.of(PartitionKind.SORT, PartitionKind.HASH)) {
                                for (Compression compression : Compression.values()) {
                                    cases.add(Arguments.of(seed, kind, compression, seed % 2 == 0));
                                }
                            }
                        });
        return cases.build();
    }

    @ParameterizedTest(name = "seed {0} {1} {2} minimum budget {3}")
    @MethodSource("cases")
    void everyConsumerReadsExactlyItsRecords(
            int seed,
            PartitionKind kind,
            Compression compression,
            boolean minimum,
            @TempDir Path dir)
            throws Exception {
        // The name's hash, not the enum's: an enum's identity hash differs between JVM runs.
        SplittableRandom random = new SplittableRandom(seed * 7919L + kind.name().hashCode());
        int pageSize = random.nextBoolean() ? 256 : 1024;
        int n = 1 + random.nextInt(12);
        int producers = 1 + random.nextInt(4);
        ShuffleOptions probe =
                ShuffleOptions.builder()
                        .pageSizeBytes(pageSize)
                        .totalPages(1 << 12)
                        .sortBufferPages(1 + random.nextInt(8))
                        .writeBatchPages(1 + random.nextInt(4))
                        .readBatchPages(1 + random.nextInt(4))
                        .gatePages(1 + random.nextInt(4))
                        .compression(compression)
                        .build();
        int writer =
                kind == PartitionKind.SORT
                        ? SortFormatWriter.pagesNeeded(probe)
                        : HashPartitionWriter.pagesNeeded(probe, n);
        int needed = IoScheduler.pagesNeeded(probe) + Math.max(writer, probe.gatePages());
        ShuffleOptions options =
                probe.toBuilder().totalPages(minimum ? needed : needed * 4).build();
        List<Stream> streams = new ArrayList<>();
        List<BlockingPartition> partitions = new ArrayList<>();
        try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
            for (int p = 0; p < producers; p++) {
                int drawn = random.nextInt(200);
                // Every third seed's first producer writes nothing on purpose (reliability row 19).
                int records = p == 0 && seed % 3 == 0 ? 0 : drawn;
                Stream stream = ShuffleHarness.randomStream(random, n, records, pageSize);
                streams.add(stream);
                partitions.add(ShuffleHarness.write(worker, kind, p, n, stream));
            }
            assertThat(worker.bufferPool().pagesInUse())
                    .isEqualTo(IoScheduler.pagesNeeded(options));
            for (int c = 0; c < n; c++) {
                try (InputGate gate = worker.openGate("c" + c, partitions, c)) {
                    List<List<byte[]>> read = ShuffleHarness.drain(gate);
                    for (int p = 0; p < producers; p++) {
                        ShuffleHarness.assertRecords(
                                read.get(p),
                                streams.get(p).expected(c),
                                "seed " + seed + " producer " + p + " consumer " + c);
                    }
                }
            }
            long frames = 0;
            long index = 0; // sort files: an index block per region, its entries as counted
            for (BlockingPartition partition : partitions) {
                frames += partition.frameBytes();
                if (partition instanceof SortPartition sort) {
                    index += sort.indexEntries() * IndexEntry.BYTES;
                }
            }
            assertThat(worker.stats().bytesWritten()).isEqualTo(frames + index);
            assertThat(worker.stats().bytesRead()).isGreaterThanOrEqualTo(frames);
            for (BlockingPartition partition : partitions) {
                partition.release();
                for (Path file : partition.files()) {
                    assertThat(file).doesNotExist();
                }
            }
            assertThat(worker.bufferPool().pagesInUse())
                    .isEqualTo(IoScheduler.pagesNeeded(options));
        }
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }
}
