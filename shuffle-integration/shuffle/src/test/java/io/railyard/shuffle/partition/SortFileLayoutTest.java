package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.format.IndexEntry;
import io.railyard.shuffle.format.SortIndex;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The sort partition's on-disk layout (ARCHITECTURE.md, "Sort-based partitions"): one file; each
 * region opens with its index block of one entry per subpartition, whose entries locate the
 * region's sections right after the block (or from the next {@link SortFile#SECTION_ALIGNMENT}
 * boundary, for a large region), back to back in subpartition order.
 */
class SortFileLayoutTest {
    private static final int N = 3;

    @TempDir Path dir;

    /**
     * Both writers of the format: the sort buffer's (2 + 1 pages cannot hold a page per lane and as
     * many again) and the lanes' (8 + 2 can).
     */
    @ParameterizedTest(name = "{0} sort pages, {1} batch pages: {2}")
    @CsvSource({"2, 1, SortPartitionWriter", "8, 2, LanePartitionWriter"})
    void everyRegion_opensWithItsIndexBlock_andItsSectionsFollowIt(
            int sortPages, int batchPages, String writerClass) throws Exception {
        ShuffleOptions options = options(sortPages, batchPages).build();
        SortIndex checks = new SortIndex();
        try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
            BlockingPartition partition;
            try (PartitionWriter writer =
                    ShuffleHarness.blocking(worker, PartitionKind.SORT, 0, N)) {
                assertThat(writer.getClass().getSimpleName()).isEqualTo(writerClass);
                for (int i = 0; i < 300; i++) { // 300 × 100 bytes: more than one region
                    writer.emit(ByteBuffer.allocate(100), i % N);
                }
                partition = writer.finish();
            }
            try (var files = Files.list(dir)) {
                assertThat(files.filter(f -> !f.getFileName().toString().startsWith(".")))
                        .containsExactly(dir.resolve("p0.a0.data"));
            }
            assertThat(partition.files()).isEqualTo(List.of(dir.resolve("p0.a0.data")));
            assertThat(partition.regionCount()).isGreaterThan(1);
            ByteBuffer file = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("p0.a0.data")));
            assertThat((long) file.capacity()).isEqualTo(partition.bytesOnDisk());
            IndexEntry entry = new IndexEntry();
            long regionStart = 0;
            for (int region = 0; region < partition.regionCount(); region++) {
                long blockEnd = regionStart + (long) N * IndexEntry.BYTES;
                int alignment = SortFile.SECTION_ALIGNMENT; // a large region's sections
                long aligned = (blockEnd + alignment - 1) / alignment * alignment;
                entry.wrap(file, (int) regionStart);
                assertThat(entry.sectionOffset()).isIn(blockEnd, aligned);
                long next = entry.sectionOffset();
                for (int s = 0; s < N; s++) {
                    entry.wrap(file, (int) (regionStart + (long) s * IndexEntry.BYTES));
                    assertThat(checks.valid(entry, region, s))
                            .as("entry (%d, %d)", region, s)
                            .isTrue();
                    assertThat(entry.sectionOffset())
                            .as("section (%d, %d)", region, s)
                            .isEqualTo(next);
                    next += entry.sectionLength();
                }
                regionStart = next;
            }
            assertThat(regionStart).as("the last region ends the file").isEqualTo(file.capacity());
            partition.release();
        }
    }

    /**
     * A region whose data is in fewer than 1/8 of the subpartitions has a sparse block: entries for
     * those subpartitions only, its sections right after; the others read as empty, without an
     * entry. Fails if the block were dense (3 × 64 entries) or the reader looked entries up at
     * dense positions (their checksums name another subpartition).
     */
    @Test
    void aRegionWithDataInFewSubpartitions_hasASparseBlock_andReadsBackExactly() throws Exception {
        int n = 64;
        int[] lanes = {5, 50};
        ShuffleOptions options = options(2, 1).gatePages(4).build();
        SortIndex checks = new SortIndex();
        try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
            BlockingPartition partition;
            try (PartitionWriter writer =
                    ShuffleHarness.blocking(worker, PartitionKind.SORT, 0, n)) {
                for (int i = 0; i < 300; i++) {
                    ByteBuffer record = ByteBuffer.allocate(100).putInt(0, i);
                    writer.emit(record, lanes[i % 2]);
                }
                partition = writer.finish();
            }
            assertThat(partition.regionCount()).isGreaterThan(1);
            ByteBuffer file = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("p0.a0.data")));
            IndexEntry entry = new IndexEntry();
            long regionStart = 0;
            for (int region = 0; region < partition.regionCount(); region++) {
                long next = regionStart + (long) lanes.length * IndexEntry.BYTES;
                for (int k = 0; k < lanes.length; k++) {
                    entry.wrap(file, (int) (regionStart + (long) k * IndexEntry.BYTES));
                    assertThat(checks.valid(entry, region, lanes[k]))
                            .as("entry %d of region %d", k, region)
                            .isTrue();
                    assertThat(entry.sectionOffset()).isEqualTo(next);
                    assertThat(entry.sectionLength()).isPositive();
                    next += entry.sectionLength();
                }
                regionStart = next;
            }
            assertThat(regionStart).as("the last region ends the file").isEqualTo(file.capacity());
            for (int c : new int[] {lanes[0], 7, lanes[1]}) {
                try (var gate = worker.openGate("c" + c, List.of(partition), c)) {
                    List<byte[]> read = ShuffleHarness.drain(gate).get(0);
                    int first = c == lanes[0] ? 0 : 1;
                    assertThat(read).hasSize(c == 7 ? 0 : 150);
                    for (int r = 0; r < read.size(); r++) {
                        assertThat(ByteBuffer.wrap(read.get(r)).getInt(0))
                                .as("consumer %d record %d", c, r)
                                .isEqualTo(first + 2 * r);
                    }
                }
            }
            partition.release();
        }
    }

    /** 1 KiB pages, 64 of them, no compression, and the sort and batch pages given. */
    private static ShuffleOptions.Builder options(int sortPages, int batchPages) {
        return ShuffleOptions.builder()
                .pageSizeBytes(1024)
                .sortBufferPages(sortPages)
                .writeBatchPages(batchPages)
                .compression(Compression.NONE)
                .totalPages(64);
    }
}
