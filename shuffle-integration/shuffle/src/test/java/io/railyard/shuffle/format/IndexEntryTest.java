package io.railyard.shuffle.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.topology.PartitionId;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The sort index entry view: the on-disk offsets (pinned here with literals), a round trip at an
 * offset inside a larger buffer, and {@link SortIndex} writing and checking through it.
 */
class IndexEntryTest {
    private static final int AT = 5;

    @Test
    void offsets_areTheDocumentedOnDiskLayout() {
        assertThat(IndexEntry.SECTION_OFFSET_FIELD_OFFSET).isEqualTo(0);
        assertThat(IndexEntry.SECTION_LENGTH_FIELD_OFFSET).isEqualTo(8);
        assertThat(IndexEntry.CRC_FIELD_OFFSET).isEqualTo(12);
        assertThat(IndexEntry.BYTES).isEqualTo(16);
    }

    @Test
    void write_thenRead_roundTripsAtAnOffsetAndTouchesNothingElse() {
        ByteBuffer buffer = ByteBuffer.allocate(32);
        Arrays.fill(buffer.array(), (byte) 0x33);
        IndexEntry entry = new IndexEntry().wrap(buffer, AT).write(1L << 40, 65_536, -7);

        assertThat(entry.sectionOffset()).isEqualTo(1L << 40);
        assertThat(entry.sectionLength()).isEqualTo(65_536);
        assertThat(entry.crc()).isEqualTo(-7);
        assertThat(buffer.getLong(AT)).isEqualTo(1L << 40);
        assertThat(buffer.getInt(AT + 8)).isEqualTo(65_536);
        assertThat(buffer.getInt(AT + 12)).isEqualTo(-7);
        for (int i = 0; i < buffer.capacity(); i++) {
            if (i < AT || i >= AT + IndexEntry.BYTES) {
                assertThat(buffer.get(i)).as("byte %s", i).isEqualTo((byte) 0x33);
            }
        }
        assertThat(buffer.position()).isZero();
    }

    @Test
    void sortIndexPut_appendsAnEntryTheViewReadsAndValidatesForItsRegionAndSubpartitionOnly() {
        SortIndex index = new SortIndex();
        ByteBuffer page = ByteBuffer.allocate(64);
        index.put(page, 4096, 300, 2, 1);
        index.put(page, 4396, 0, 2, 2);
        assertThat(page.position()).isEqualTo(2 * IndexEntry.BYTES);

        IndexEntry entry = new IndexEntry().wrap(page, 0);
        assertThat(entry.sectionOffset()).isEqualTo(4096);
        assertThat(entry.sectionLength()).isEqualTo(300);
        assertThat(index.valid(entry, 2, 1)).isTrue();
        assertThat(index.valid(entry, 2, 2)).as("another subpartition").isFalse();
        assertThat(index.valid(entry, 3, 1)).as("another region").isFalse();
        assertThat(index.valid(entry.wrap(page, IndexEntry.BYTES), 2, 2)).isTrue();
        assertThat(entry.sectionOffset()).isEqualTo(4396);
    }

    @Test
    void sortIndexCheck_sectionEndBeyondLongMax_rejectedNamingTheValues() {
        // Found by SortIndexFuzzTest: offset + length wrapped negative and passed the range check.
        SortIndex index = new SortIndex();
        ByteBuffer page = ByteBuffer.allocate(IndexEntry.BYTES);
        index.put(page, Long.MAX_VALUE - 10, 100, 0, 0);
        IndexEntry entry = new IndexEntry().wrap(page, 0);
        FrameContext at = new FrameContext().at(new PartitionId(0, 0), Path.of("/x/p.data"), 32);

        assertThatThrownBy(() -> index.check(entry, 0, 0, 4096, at))
                .isInstanceOf(CorruptPartitionFileException.class)
                .hasMessageContaining("/x/p.data at offset 32")
                .hasMessageContaining(
                        "index entry outside the data file: region 0, subpartition 0, section"
                                + " offset 9223372036854775797, length 100, but the file has 4096"
                                + " bytes");
    }
}
