package io.railyard.deployment;

import java.util.Arrays;

/** A growable byte buffer with unsigned LEB128 varints. Not thread-safe. */
final class ByteWriter {
    private byte[] bytes;
    private int size;

    ByteWriter(int capacity) {
        this.bytes = new byte[Math.max(16, capacity)];
    }

    int size() {
        return size;
    }

    /** Empties the buffer for reuse, keeping its capacity. O(1). */
    void reset() {
        size = 0;
    }

    void writeByte(int value) {
        ensure(1);
        bytes[size++] = (byte) value;
    }

    void writeBytes(byte[] source, int offset, int length) {
        ensure(length);
        System.arraycopy(source, offset, bytes, size, length);
        size += length;
    }

    /** Writes a non-negative int as 1 to 5 bytes, 7 bits at a time, low bits first. */
    void writeVarint(int value) {
        if (value < 0) {
            throw new IllegalArgumentException("varints are non-negative, was " + value);
        }
        ensure(5);
        int v = value;
        while ((v & ~0x7F) != 0) {
            bytes[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        bytes[size++] = (byte) v;
    }

    void writeLong(long value) {
        ensure(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (value >>> shift);
        }
    }

    void writeInt(int value) {
        ensure(4);
        for (int shift = 24; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (value >>> shift);
        }
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    byte[] buffer() {
        return bytes;
    }

    /** Makes room for {@code more} bytes after {@link #size()} in {@link #buffer()}. */
    void ensureCapacity(int more) {
        ensure(more);
    }

    /** Counts {@code n} bytes written into {@link #buffer()} directly after {@link #size()}. */
    void skip(int n) {
        if (n < 0 || size + n > bytes.length) {
            throw new IllegalArgumentException(
                    "skip " + n + " at " + size + " of a buffer of " + bytes.length);
        }
        size += n;
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(size + more, 2 * bytes.length));
        }
    }
}
