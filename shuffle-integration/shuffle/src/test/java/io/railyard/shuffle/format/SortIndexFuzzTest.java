package io.railyard.shuffle.format;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.railyard.topology.PartitionId;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Coverage-guided fuzzing (Jazzer) of the sort index ({@link SortIndex}, {@link IndexEntry}) as a
 * reader checks a region's index block — Reliability row 20 ("a wrong index entry, an index past
 * the end of file"). Every entry is either accepted, and then its checksum is the CRC32C of its
 * fields for that region and subpartition (recomputed here independently), its section lies inside
 * the file (by exact arithmetic) and {@link SortIndex#put} writes the same 16 bytes; or it fails
 * with {@link CorruptPartitionFileException} naming the file and the entry's offset, on one line.
 *
 * <p>Input: a header of {@value #HEADER_BYTES} bytes — the region (byte 0), the number of
 * subpartitions (byte 1, 1 to 8), whether this test rewrites each entry's checksum so that the
 * fuzzer's offsets and lengths reach the range check (byte 2, bit 0), the data file's length (bytes
 * 3-10, sign bit cleared) — then the index block, 16 bytes per subpartition. Seeds in {@code
 * SortIndexFuzzTestInputs/}: blocks the index wrote for sections inside and at the end of a file,
 * empty sections, and blocks cut short.
 */
class SortIndexFuzzTest {
    static final int HEADER_BYTES = 11;
    private static final Path FILE = Path.of("/fuzz/p.data");

    private final SortIndex index = new SortIndex();
    private final IndexEntry entry = new IndexEntry();
    private final FrameContext at = new FrameContext();

    @FuzzTest(maxDuration = "10s")
    void check_anyIndexBlock_sectionsInsideTheFileOrCorruptPartitionFile(FuzzedDataProvider data) {
        ByteBuffer header = ByteBuffer.wrap(data.consumeBytes(HEADER_BYTES));
        if (header.remaining() < HEADER_BYTES) {
            return;
        }
        int region = header.get(0) & 0xFF;
        int subpartitions = 1 + (header.get(1) & 7);
        boolean fixChecksums = (header.get(2) & 1) != 0;
        long fileBytes = header.getLong(3) & Long.MAX_VALUE;
        ByteBuffer block = ByteBuffer.wrap(data.consumeRemainingAsBytes());
        for (int s = 0; s < subpartitions; s++) {
            int position = s * IndexEntry.BYTES;
            if (block.capacity() - position < IndexEntry.BYTES) {
                return; // past the end of the file: the partition's check, before the index's
            }
            entry.wrap(block, position);
            if (fixChecksums) {
                index.put(
                        block.position(position),
                        entry.sectionOffset(),
                        entry.sectionLength(),
                        region,
                        s);
                block.clear();
            }
            at.at(new PartitionId(0, 0), FILE, position);
            try {
                index.check(entry, region, s, fileBytes, at);
            } catch (CorruptPartitionFileException e) {
                assertThat(e.offset()).isEqualTo(position);
                assertThat(e.getMessage())
                        .startsWith("partition lost: 'p0.a0': corrupt partition file ")
                        .contains(FILE + " at offset " + position + ": ")
                        .doesNotContain("\n");
                continue;
            }
            assertAccepted(region, s, fileBytes);
        }
    }

    /** What an accepted entry must be: the oracle's arithmetic and checksum, and a round trip. */
    private void assertAccepted(int region, int subpartition, long fileBytes) {
        long offset = entry.sectionOffset();
        int length = entry.sectionLength();
        assertThat(offset).isNotNegative();
        assertThat(length).isNotNegative();
        assertThat(java.math.BigInteger.valueOf(offset).add(java.math.BigInteger.valueOf(length)))
                .as(
                        "end of the section [%s, + %s) in a file of %s bytes",
                        offset, length, fileBytes)
                .isLessThanOrEqualTo(java.math.BigInteger.valueOf(fileBytes));
        ByteBuffer covered = ByteBuffer.allocate(20);
        covered.putLong(offset).putInt(length).putInt(region).putInt(subpartition).flip();
        CRC32C crc = new CRC32C();
        crc.update(covered);
        assertThat(entry.crc()).isEqualTo((int) crc.getValue());
        ByteBuffer rewritten = ByteBuffer.allocate(IndexEntry.BYTES);
        index.put(rewritten, offset, length, region, subpartition);
        IndexEntry again = new IndexEntry().wrap(rewritten, 0);
        assertThat(again.sectionOffset()).isEqualTo(offset);
        assertThat(again.sectionLength()).isEqualTo(length);
        assertThat(again.crc()).isEqualTo(entry.crc());
    }
}
