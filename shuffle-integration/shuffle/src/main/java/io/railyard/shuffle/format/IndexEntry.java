package io.railyard.shuffle.format;

import java.nio.ByteBuffer;

/**
 * The one place that knows the 16-byte entry of a {@link SortIndex sort index}: its field offsets,
 * and a reusable view (a flyweight, as in SBE and Agrona) that reads and writes those fields at
 * absolute positions of a buffer it does not own.
 *
 * <pre>
 * offset  size  field
 *      0     8  section offset: where the subpartition's section starts in the data file
 *      8     4  section length in bytes (0 for a subpartition with no data in the region)
 *     12     4  CRC32C of (section offset, section length, region, subpartition)
 * </pre>
 *
 * <p>Multi-byte fields are big-endian (the buffers' default order). {@link #wrap} only records the
 * buffer and offset; accessors neither check nor move the buffer's position or limit. Computing and
 * verifying the checksum is {@link SortIndex}'s job.
 *
 * <p>Not thread-safe: a view is owned by one writer, or used under its partition's lock. Every
 * method is O(1) and allocates nothing.
 */
public final class IndexEntry {
    /** Offset of the 8-byte section offset. */
    static final int SECTION_OFFSET_FIELD_OFFSET = 0;

    /** Offset of the 4-byte section length. */
    static final int SECTION_LENGTH_FIELD_OFFSET = 8;

    /** Offset of the 4-byte CRC32C. */
    static final int CRC_FIELD_OFFSET = 12;

    /** Bytes of one entry. */
    public static final int BYTES = 16;

    private ByteBuffer buffer = ByteBuffer.allocate(0);
    private int offset;

    /** Points this view at the entry that starts at {@code offset} in {@code buffer}. */
    public IndexEntry wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** Where the section starts in the data file. */
    public long sectionOffset() {
        return buffer.getLong(offset + SECTION_OFFSET_FIELD_OFFSET);
    }

    /** The section's length in bytes. */
    public int sectionLength() {
        return buffer.getInt(offset + SECTION_LENGTH_FIELD_OFFSET);
    }

    /** The stored CRC32C. */
    int crc() {
        return buffer.getInt(offset + CRC_FIELD_OFFSET);
    }

    /** Writes every field. Returns this view. */
    IndexEntry write(long sectionOffset, int sectionLength, int crc) {
        buffer.putLong(offset + SECTION_OFFSET_FIELD_OFFSET, sectionOffset);
        buffer.putInt(offset + SECTION_LENGTH_FIELD_OFFSET, sectionLength);
        buffer.putInt(offset + CRC_FIELD_OFFSET, crc);
        return this;
    }
}
