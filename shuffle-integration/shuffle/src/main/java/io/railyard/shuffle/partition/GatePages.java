package io.railyard.shuffle.partition;

import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import org.jspecify.annotations.Nullable;

/**
 * The pages of one {@link LocalInputGate}: it holds at most {@code capacity} (its owner's
 * guarantee), takes them from its {@link BufferOwner} one at a time, and packs the buffers of any
 * of its channels into the page being filled ({@link SharedPage}) until the next does not fit. A
 * page goes back to the pool when its last slice is recycled, or when the gate closes with nothing
 * sliced out of it.
 *
 * <p>Not thread-safe: reached only through its gate's field, which the gate's monitor guards; every
 * method must be called with that monitor held, but {@link #turnBytesSeen}, the IO thread's
 * lock-free look (the count of pages held and the page being filled are volatile, written only
 * under the monitor). It takes the pool's lock to take or give back a page (the pool comes after
 * the gate in the lock order). O(1) per call; {@link #take} allocates the buffer and its slice, and
 * a {@link SharedPage} when it starts a new page.
 */
final class GatePages {
    private final LocalInputGate gate;
    private final BufferOwner owner;
    private final int capacity;
    private final int pageSize;
    private final long maxTurnBytes;

    // The page being filled; read without the lock by turnBytesSeen() (on the IO thread).
    private volatile @Nullable SharedPage filling;

    // Pages held; read without the lock by turnBytesSeen(). The pool knows too, but asking it
    // takes the pool's lock, which every recycle contends for.
    private volatile int held;

    // The consumer waits for room in a page for a compressed frame it reads in memory.
    private boolean roomWanted;

    /**
     * The pages of {@code gate}, from {@code owner}, at most {@code capacity} (its guarantee) of
     * {@code pageSize} bytes; a session's turn reads {@code maxTurnBytes} at most.
     */
    GatePages(
            LocalInputGate gate, BufferOwner owner, int capacity, int pageSize, long maxTurnBytes) {
        this.gate = gate;
        this.owner = owner;
        this.capacity = capacity;
        this.pageSize = pageSize;
        this.maxTurnBytes = maxTurnBytes;
    }

    /** Pages the gate may hold. */
    int capacity() {
        return capacity;
    }

    /** Pages held now (queued, polled and not recycled, or being filled). */
    int held() {
        return held;
    }

    /** Whether a page is free: room for any frame. */
    boolean hasFreePage() {
        return held < capacity;
    }

    /** Whether the gate holds half its pages or more. */
    boolean halfHeld() {
        return held * 2 >= capacity;
    }

    /**
     * The bytes worth reading for a session's turn now, as the IO thread sees them without the
     * lock: at most {@code maxTurnBytes} and what the gate can take — the room in its current page
     * plus its free pages. See {@link LocalInputGate#turnBytes()}.
     */
    long turnBytesSeen() {
        SharedPage fill = filling;
        long free = Math.max(0, capacity - held);
        return Math.min(maxTurnBytes, free * pageSize + (fill == null ? 0 : fill.roomSeen()));
    }

    /**
     * Room for a buffer of {@code bytes} of channel {@code index}, in the current page or a new one
     * taken while the gate holds fewer than its pages; null if there is none (or, rarely, the pool
     * is short).
     */
    @SuppressWarnings("NonAtomicVolatileUpdate") // written only under the gate's lock
    @Nullable LocalBuffer take(int index, int bytes) {
        SharedPage fill = filling;
        if (fill == null || !fill.fits(bytes)) {
            if (held >= capacity) {
                return null;
            }
            Page page = owner.tryRequest();
            if (page == null) {
                return null;
            }
            held++;
            SharedPage next = new SharedPage(gate, page, pageSize);
            filling = next;
            if (fill != null && !fill.hasSlices()) {
                recycle(fill.page); // nothing of it is out
            }
            fill = next;
        }
        return new LocalBuffer(gate, index, fill, fill.slice(bytes), bytes);
    }

    /** The consumer found no room for a compressed frame: it is told at the next page freed. */
    void wantRoom() {
        roomWanted = true;
    }

    /**
     * One slice of {@code shared} is done with; the page goes back when none is out. True if that
     * freed a page the consumer was waiting for (its availability is then completed).
     */
    boolean release(SharedPage shared) {
        if (!shared.releaseSlice()) {
            return false;
        }
        if (shared == filling) {
            filling = null; // an idle page would hold room other gates' pages need
        }
        recycle(shared.page);
        boolean wanted = roomWanted;
        roomWanted = false;
        return wanted;
    }

    /** The gate closed: the page being filled goes back now if nothing of it is out. */
    void closed() {
        SharedPage fill = filling;
        if (fill != null && !fill.hasSlices()) {
            filling = null;
            recycle(fill.page);
        }
    }

    @SuppressWarnings("NonAtomicVolatileUpdate") // written only under the gate's lock
    private void recycle(Page page) {
        held--;
        owner.recycle(page);
    }
}
