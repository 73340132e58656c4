package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.buffer.Page;

/**
 * A page of a {@link LocalInputGate} shared by the buffers sliced out of it ({@link LocalBuffer}):
 * small buffers of any of the gate's channels are packed into it one after another, and the page
 * goes back to the pool once the last slice is recycled.
 *
 * <p>Threading: the bytes sliced so far and the slices not yet recycled are guarded by the gate's
 * monitor, which each method takes (reentrantly when the gate holds it), but for {@link #roomSeen},
 * which the IO thread reads without it. O(1) per call; allocates nothing.
 */
final class SharedPage {
    final Page page;
    private final LocalInputGate gate;
    private final int pageSize;

    @GuardedBy("gate")
    private int used;

    @GuardedBy("gate")
    private int slices;

    /** {@code page}, of {@code pageSize} bytes, of {@code gate}, nothing sliced out of it yet. */
    SharedPage(LocalInputGate gate, Page page, int pageSize) {
        this.gate = gate;
        this.page = page;
        this.pageSize = pageSize;
    }

    /** Whether a slice of {@code bytes} fits the rest of the page. */
    boolean fits(int bytes) {
        synchronized (gate) {
            return pageSize - used >= bytes;
        }
    }

    /** Cuts a slice of {@code bytes} off the rest of the page; returns its offset. */
    int slice(int bytes) {
        synchronized (gate) {
            int offset = used;
            used += bytes;
            slices++;
            return offset;
        }
    }

    /** A slice was recycled; true if none is out any more. */
    boolean releaseSlice() {
        synchronized (gate) {
            slices--;
            return slices == 0;
        }
    }

    /** Whether slices of the page are out. */
    boolean hasSlices() {
        synchronized (gate) {
            return slices > 0;
        }
    }

    /**
     * The bytes left in the page, read without the lock by the IO thread, which slices almost all
     * of them (so it mostly reads its own count).
     */
    @SuppressWarnings("GuardedBy") // the IO thread's own writes, read without the lock
    int roomSeen() {
        return pageSize - used;
    }
}
