package io.railyard.shuffle.partition;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The index of a sort-based partition file: for each region, a block of one {@link IndexEntry} per
 * subpartition at the region's start, locating the subpartition's section in the same file (the
 * entry's layout is named there). The checksum covers the section's offset and length, the region
 * and the subpartition, so an entry that is corrupt or read from the wrong place is detected. Entry
 * {@code (r, s)} is at byte {@code start(r) + s × 16}, where the partition keeps {@code start(r)}
 * in memory: one positioned read. A broadcast region has n equal entries pointing at one section.
 * Not thread-safe (one per writer, and one per partition used under its lock); every method is O(1)
 * and allocates nothing.
 */
final class SortIndex {
    /** Bytes the checksum covers: offset (8), length (4), region (4), subpartition (4). */
    private static final int COVERED_BYTES = 20;

    private final CRC32C crc = new CRC32C();
    private final ByteBuffer covered = ByteBuffer.allocate(COVERED_BYTES);
    private final IndexEntry appending = new IndexEntry();

    /**
     * Appends the entry for {@code (region, subpartition)} at {@code target}'s position, which
     * moves past it; {@code target} must have {@link IndexEntry#BYTES} remaining.
     */
    void put(ByteBuffer target, long offset, int length, int region, int subpartition) {
        int at = target.position();
        appending
                .wrap(target, at)
                .write(offset, length, checksum(offset, length, region, subpartition));
        target.position(at + IndexEntry.BYTES);
    }

    /** Whether {@code entry} holds a valid entry for {@code (region, subpartition)}. */
    boolean valid(IndexEntry entry, int region, int subpartition) {
        return entry.crc()
                == checksum(entry.sectionOffset(), entry.sectionLength(), region, subpartition);
    }

    private int checksum(long offset, int length, int region, int subpartition) {
        covered.clear();
        covered.putLong(offset).putInt(length).putInt(region).putInt(subpartition).flip();
        crc.reset();
        crc.update(covered);
        return (int) crc.getValue();
    }
}
