package io.railyard.shuffle.buffer;

import java.nio.ByteBuffer;

/**
 * One page of network memory: a fixed slice of the pool's off-heap memory, held by one {@link
 * BufferOwner} at a time. Its buffer is cleared when handed out; the holder may move its position
 * and limit freely and must {@link BufferOwner#recycle recycle} it exactly once.
 */
public final class Page {
    private final ByteBuffer buffer;
    private final int index;

    Page(ByteBuffer buffer, int index) {
        this.buffer = buffer;
        this.index = index;
    }

    /** The page's memory: the same direct buffer object every time. O(1), no allocation. */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** The page's number in its pool, from 0. */
    public int index() {
        return index;
    }
}
