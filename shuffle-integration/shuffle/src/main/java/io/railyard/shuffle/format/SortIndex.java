package io.railyard.shuffle.format;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * The index of a sort-based partition file: for each region, a block of one {@link IndexEntry} per
 * subpartition at the region's start, locating the subpartition's section in the same file (the
 * entry's layout is named there). The checksum covers the section's offset and length, the region
 * and the subpartition, so an entry that is corrupt or read from the wrong place is detected. Entry
 * {@code (r, s)} is at byte {@code start(r) + s × 16}, where the partition keeps {@code start(r)}
 * in memory: one positioned read. A broadcast region has n equal entries pointing at one section.
 * Not thread-safe (one per writer, and one per partition used under its lock); every method is O(1)
 * and allocates nothing but the exception {@link #check} throws.
 */
public final class SortIndex {
    /** Bytes the checksum covers: offset (8), length (4), region (4), subpartition (4). */
    private static final int COVERED_BYTES = 20;

    private final CRC32C crc = new CRC32C();
    private final ByteBuffer covered = ByteBuffer.allocate(COVERED_BYTES);
    private final IndexEntry appending = new IndexEntry();

    /**
     * Appends the entry for {@code (region, subpartition)} at {@code target}'s position, which
     * moves past it; {@code target} must have {@link IndexEntry#BYTES} remaining.
     */
    public void put(ByteBuffer target, long offset, int length, int region, int subpartition) {
        int at = target.position();
        appending
                .wrap(target, at)
                .write(offset, length, checksum(offset, length, region, subpartition));
        target.position(at + IndexEntry.BYTES);
    }

    /** Whether {@code entry} holds a valid entry for {@code (region, subpartition)}. */
    public boolean valid(IndexEntry entry, int region, int subpartition) {
        return entry.crc()
                == checksum(entry.sectionOffset(), entry.sectionLength(), region, subpartition);
    }

    /**
     * Checks that {@code entry} is the valid entry of {@code (region, subpartition)} and that the
     * section it locates lies inside a data file of {@code fileBytes} bytes; throws naming where
     * the entry was read ({@code at}) otherwise.
     */
    public void check(
            IndexEntry entry, int region, int subpartition, long fileBytes, FrameContext at)
            throws CorruptPartitionFileException {
        if (!valid(entry, region, subpartition)) {
            throw at.corrupt(
                    "index entry checksum mismatch (region "
                            + region
                            + ", subpartition "
                            + subpartition
                            + ")");
        }
        long offset = entry.sectionOffset();
        int length = entry.sectionLength();
        // fileBytes - length, not offset + length: a forged offset near 2^63 would wrap around.
        if (offset < 0 || length < 0 || offset > fileBytes - length) {
            throw at.corrupt(
                    String.format(
                            Locale.ROOT,
                            "index entry outside the data file: region %d, subpartition %d,"
                                    + " section offset %d, length %d, but the file has %d bytes",
                            region,
                            subpartition,
                            offset,
                            length,
                            fileBytes));
        }
    }

    private int checksum(long offset, int length, int region, int subpartition) {
        covered.clear();
        covered.putLong(offset).putInt(length).putInt(region).putInt(subpartition).flip();
        crc.reset();
        crc.update(covered);
        return (int) crc.getValue();
    }
}
