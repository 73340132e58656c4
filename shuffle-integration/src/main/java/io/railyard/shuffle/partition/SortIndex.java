package io.railyard.shuffle.partition;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The index of a sort-based partition file: for each region, one 16-byte entry per subpartition,
 * {@code offset (8) | length (4) | CRC32C (4)} of the subpartition's section of the data file. The
 * checksum covers the offset, the length, the region and the subpartition, so an entry that is
 * corrupt or read from the wrong place is detected. Entry {@code (r, s)} is at byte {@code (r × n +
 * s) × 16}: one positioned read, no directory. A broadcast region has n equal entries pointing at
 * one section. Not thread-safe (one per writer and per IO thread); no allocation.
 */
final class SortIndex {
    static final int ENTRY_BYTES = 16;

    private final CRC32C crc = new CRC32C();
    private final ByteBuffer covered = ByteBuffer.allocate(20);

    /**
     * Byte position of entry {@code (region, subpartition)} in a file of {@code n} subpartitions.
     */
    static long position(int region, int subpartition, int n) {
        return ((long) region * n + subpartition) * ENTRY_BYTES;
    }

    /** Appends the entry for {@code (region, subpartition)} to {@code target}. */
    void put(ByteBuffer target, long offset, int length, int region, int subpartition) {
        target.putLong(offset)
                .putInt(length)
                .putInt(checksum(offset, length, region, subpartition));
    }

    /** Whether {@code entry[0, 16)} holds a valid entry for {@code (region, subpartition)}. */
    boolean valid(ByteBuffer entry, int region, int subpartition) {
        return entry.getInt(12)
                == checksum(entry.getLong(0), entry.getInt(8), region, subpartition);
    }

    private int checksum(long offset, int length, int region, int subpartition) {
        covered.clear();
        covered.putLong(offset).putInt(length).putInt(region).putInt(subpartition).flip();
        crc.reset();
        crc.update(covered);
        return (int) crc.getValue();
    }
}
