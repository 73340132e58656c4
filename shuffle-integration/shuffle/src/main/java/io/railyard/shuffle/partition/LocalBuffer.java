package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.nio.ByteBuffer;

/**
 * A decoded buffer of one channel of a {@link LocalInputGate}, in a page of the gate ({@link
 * SharedPage}): {@link #data()} holds a run of that channel's record stream (records may continue
 * into the channel's next buffer). Small buffers share a page; recycle each exactly once.
 *
 * <p>Thread-safe: any thread may recycle it (its own monitor guards the recycled flag, a leaf lock;
 * the page's share is returned after it is released, under the gate's monitor).
 */
final class LocalBuffer implements InputGate.Buffer {
    private final LocalInputGate gate;
    private final int channel;
    private final SharedPage shared;
    private final ByteBuffer data;

    @GuardedBy("this")
    private boolean recycled;

    /** The {@code length} bytes at {@code offset} of {@code shared}, of {@code gate}'s channel. */
    LocalBuffer(LocalInputGate gate, int channel, SharedPage shared, int offset, int length) {
        this.gate = gate;
        this.channel = channel;
        this.shared = shared;
        this.data = shared.page.buffer().slice(offset, length);
    }

    /** The channel this buffer came from. */
    @Override
    public int channel() {
        return channel;
    }

    /** The bytes, from position to limit; valid until {@link #recycle()}. */
    @Override
    public ByteBuffer data() {
        return data;
    }

    /** The page it is a slice of. */
    SharedPage shared() {
        return shared;
    }

    /**
     * Returns its share of the page; the last share returns the page to the pool. Call once; any
     * thread. O(1); allocates nothing while no request waits in the pool.
     */
    @Override
    public void recycle() {
        synchronized (this) {
            if (recycled) {
                throw new IllegalStateException("buffer of channel " + channel + " recycled twice");
            }
            recycled = true;
        }
        gate.release(shared);
    }

    /** Called when decoding into it failed. */
    void discard() {
        recycle();
    }
}
