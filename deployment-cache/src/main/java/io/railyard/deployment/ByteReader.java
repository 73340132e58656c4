package io.railyard.deployment;

/**
 * A bounds-checked reader over a byte range. Every read that would pass the end, and every value
 * outside the range the caller allows, throws {@link CorruptDescriptorException} naming the offset
 * and the field. Not thread-safe.
 */
final class ByteReader {
    private final byte[] bytes;
    private final int end;
    private final boolean inflated;
    private int position;

    /** A reader of {@code bytes[offset, end)} of the framed bytes. */
    ByteReader(byte[] bytes, int offset, int end) {
        this(bytes, offset, end, false);
    }

    /**
     * A reader of {@code bytes[offset, end)}: of the framed bytes, or of a payload inflated from
     * them if {@code inflated} (its errors then say so, as their offsets are the payload's).
     */
    ByteReader(byte[] bytes, int offset, int end, boolean inflated) {
        this.bytes = bytes;
        this.position = offset;
        this.end = end;
        this.inflated = inflated;
    }

    /** The exception for field {@code field} at {@code offset} of what this reader reads. */
    CorruptDescriptorException corrupt(int offset, String field, String problem) {
        return new CorruptDescriptorException(offset, inflated, field, problem);
    }

    int position() {
        return position;
    }

    int remaining() {
        return end - position;
    }

    int readByte(String field) {
        need(1, field);
        return bytes[position++] & 0xFF;
    }

    /** An unsigned LEB128 varint in {@code [0, max]}. */
    int readVarint(String field, int max) {
        int start = position;
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = readByte(field);
            if (shift == 28 && (b & 0xF0) != 0) {
                throw corrupt(start, field, "varint overflows an int");
            }
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                if (value < 0 || value > max) {
                    throw corrupt(start, field, "value " + value + " not in [0, " + max + "]");
                }
                return value;
            }
        }
        throw corrupt(start, field, "varint longer than 5 bytes");
    }

    long readLong(String field) {
        need(8, field);
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (bytes[position++] & 0xFF);
        }
        return value;
    }

    int readInt(String field) {
        need(4, field);
        int value = 0;
        for (int i = 0; i < 4; i++) {
            value = (value << 8) | (bytes[position++] & 0xFF);
        }
        return value;
    }

    /** Copies the next {@code length} bytes; {@code length} is checked against what is left. */
    byte[] readBytes(int length, String field) {
        need(length, field);
        byte[] copy = new byte[length];
        System.arraycopy(bytes, position, copy, 0, length);
        position += length;
        return copy;
    }

    void skip(int length, String field) {
        need(length, field);
        position += length;
    }

    void need(int length, String field) {
        if (length < 0 || length > end - position) {
            throw corrupt(
                    position,
                    field,
                    "needs " + length + " bytes, " + (end - position) + " left (truncated?)");
        }
    }

    void expectEnd(String what) {
        if (position != end) {
            throw corrupt(position, what, (end - position) + " unexpected trailing bytes");
        }
    }
}
