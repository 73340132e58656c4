package io.railyard.shuffle.format;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The one place that knows the 24-byte frame header: its field offsets, and a reusable view (a
 * flyweight, as in SBE and Agrona) that reads and writes those fields at absolute positions of a
 * buffer it does not own. Every frame writer and reader goes through it.
 *
 * <pre>
 * offset  size  field
 *      0     2  magic 0x5279 ("Ry")
 *      2     1  version (1)
 *      3     1  codec (0 none, 1 lz4)
 *      4     4  lane: the subpartition, or -1 for data every subpartition reads (broadcast)
 *      8     4  sequence: the frame's number within its lane, from 0
 *     12     4  uncompressed payload length
 *     16     4  stored payload length
 *     20     4  CRC32C of bytes [0, 20) and of the stored payload
 *     24     n  stored payload
 * </pre>
 *
 * <p>Multi-byte fields are in the buffer's byte order (big-endian: pages and scratch buffers are
 * never reordered). {@link #wrap} only records the buffer and offset; accessors neither check nor
 * move the buffer's position or limit, except {@link #updateChecksum}, which says what it leaves.
 * Checking the values (magic, version, lengths) is {@link FrameCodec}'s job.
 *
 * <p>Not thread-safe: a view is owned by one thread (a codec, or the IO thread) and re-wrapped per
 * frame. Every method is O(1) and allocates nothing.
 */
public final class FrameHeader {
    /** Offset of the 2-byte magic. */
    static final int MAGIC_FIELD_OFFSET = 0;

    /** Offset of the 1-byte format version. */
    static final int VERSION_FIELD_OFFSET = 2;

    /** Offset of the 1-byte codec id. */
    static final int CODEC_FIELD_OFFSET = 3;

    /** Offset of the 4-byte lane (subpartition, or {@link FrameCodec#BROADCAST_LANE}). */
    static final int LANE_FIELD_OFFSET = 4;

    /** Offset of the 4-byte frame number within its lane. */
    static final int SEQUENCE_FIELD_OFFSET = 8;

    /** Offset of the 4-byte uncompressed payload length. */
    static final int UNCOMPRESSED_LENGTH_FIELD_OFFSET = 12;

    /** Offset of the 4-byte stored (possibly compressed) payload length. */
    static final int STORED_LENGTH_FIELD_OFFSET = 16;

    /** Offset of the 4-byte CRC32C; the checksum covers the header bytes before it. */
    static final int CRC_FIELD_OFFSET = 20;

    /** Bytes of the header; the stored payload follows. */
    public static final int BYTES = 24;

    /** The magic every frame starts with ("Ry"). */
    static final int MAGIC = 0x5279;

    /** The format version this code writes and reads. */
    static final int VERSION = 1;

    private ByteBuffer buffer = ByteBuffer.allocate(0);
    private int offset;

    /** Points this view at the header that starts at {@code offset} in {@code buffer}. */
    public FrameHeader wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** Where the header starts in the wrapped buffer. */
    int offset() {
        return offset;
    }

    /** The magic, as an unsigned 16-bit value. */
    int magic() {
        return buffer.getShort(offset + MAGIC_FIELD_OFFSET) & 0xFFFF;
    }

    /** The format version (signed byte, as stored). */
    int version() {
        return buffer.get(offset + VERSION_FIELD_OFFSET);
    }

    /** The codec id (signed byte, as stored). */
    int codec() {
        return buffer.get(offset + CODEC_FIELD_OFFSET);
    }

    /** The lane: a subpartition, or {@link FrameCodec#BROADCAST_LANE}. */
    public int lane() {
        return buffer.getInt(offset + LANE_FIELD_OFFSET);
    }

    /** The frame's number within its lane. */
    public int sequence() {
        return buffer.getInt(offset + SEQUENCE_FIELD_OFFSET);
    }

    /** The payload's length before compression. */
    public int uncompressedLength() {
        return buffer.getInt(offset + UNCOMPRESSED_LENGTH_FIELD_OFFSET);
    }

    /** The payload's length as stored after the header. */
    int storedLength() {
        return buffer.getInt(offset + STORED_LENGTH_FIELD_OFFSET);
    }

    /** The stored CRC32C. */
    int crc() {
        return buffer.getInt(offset + CRC_FIELD_OFFSET);
    }

    /**
     * Writes every field but the checksum: the magic and version of this format and the given
     * values. Returns this view.
     */
    FrameHeader write(int codec, int lane, int sequence, int uncompressedLength, int storedLength) {
        buffer.putShort(offset + MAGIC_FIELD_OFFSET, (short) MAGIC);
        buffer.put(offset + VERSION_FIELD_OFFSET, (byte) VERSION);
        buffer.put(offset + CODEC_FIELD_OFFSET, (byte) codec);
        buffer.putInt(offset + LANE_FIELD_OFFSET, lane);
        buffer.putInt(offset + SEQUENCE_FIELD_OFFSET, sequence);
        buffer.putInt(offset + UNCOMPRESSED_LENGTH_FIELD_OFFSET, uncompressedLength);
        buffer.putInt(offset + STORED_LENGTH_FIELD_OFFSET, storedLength);
        return this;
    }

    /** Writes the checksum field. */
    void crc(int crc) {
        buffer.putInt(offset + CRC_FIELD_OFFSET, crc);
    }

    /**
     * Feeds the header bytes the checksum covers ({@code [0, CRC_FIELD_OFFSET)}) to {@code
     * checksum}; leaves the wrapped buffer cleared (position 0, limit its capacity).
     */
    void updateChecksum(CRC32C checksum) {
        buffer.clear().position(offset).limit(offset + CRC_FIELD_OFFSET);
        checksum.update(buffer);
        buffer.clear();
    }
}
