package io.railyard.shuffle.partition;

import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A consumer's view of its inputs: one channel per (partition, subpartition) it reads; buffers
 * arrive from any channel, in order within each channel, decoded and checked by the worker's IO
 * scheduler. A consumer polls, processes a buffer's records and {@link Buffer#recycle() recycles}
 * it.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Memory: the gate is one buffer-pool owner guaranteed {@code shuffle.read.gate-pages} pages
 *       whatever its number of channels, and never holds more.
 *   <li>Credit: channels that want data wait in a FIFO; the gate hands one to the IO scheduler only
 *       with a credit of up to {@value #MAX_CHANNEL_CREDIT} pages reserved out of its free pages,
 *       and takes back what the read did not use. So the IO thread never waits for, nor is refused,
 *       a page; channels are served round-robin; and every page is either queued for the consumer,
 *       held by it, or reserved for a read in flight: a consumer that recycles what it polls never
 *       waits for memory, in any consumption order. A consumer that holds buffers of every channel
 *       at once (a merge) needs gate pages ≥ channels.
 *   <li>Packing: small buffers of any channels are slices of the gate's current page; a new page is
 *       taken only out of a channel's credit, and a page goes back to the pool when its last slice
 *       is recycled.
 * </ul>
 *
 * <p>Threading: {@link #poll()}, {@link #availability()}, {@link #isFinished()} and {@link
 * #close()} are called by the consumer; buffers may be recycled from any thread. Lock order: gate,
 * then scheduler, then buffer pool.
 */
public final class InputGate implements AutoCloseable {
    static final int MAX_CHANNEL_CREDIT = 4;

    private final String name;
    private final BufferOwner owner;
    private final IoScheduler scheduler;
    private final Consumer<InputGate> onClose;
    private final int capacity;
    private final int maxCredit;
    private final int pageSize;
    private @Nullable SharedPage filling;
    private final List<ChannelReader> channels;
    private final ArrayDeque<Buffer> queue = new ArrayDeque<>();
    private final ArrayDeque<ChannelReader> wanting = new ArrayDeque<>();
    private CompletableFuture<Void> availability = new CompletableFuture<>();
    private @Nullable PartitionLostException failure;
    private int reserved;
    private int finishedChannels;
    private boolean closed;

    InputGate(
            String name,
            BufferOwner owner,
            IoScheduler scheduler,
            List<? extends ResultPartition> partitions,
            int subpartition,
            Consumer<InputGate> onClose) {
        this.name = name;
        this.onClose = onClose;
        this.owner = owner;
        this.scheduler = scheduler;
        this.capacity = owner.guaranteedPages();
        this.pageSize = scheduler.pageSize();
        // Many channels: one page each per turn (sections are small), so more of them can be in
        // flight at once and joined into shared reads; few channels: deeper read-ahead.
        this.maxCredit = partitions.size() * MAX_CHANNEL_CREDIT > capacity ? 1 : MAX_CHANNEL_CREDIT;
        this.channels = new ArrayList<>(partitions.size());
        for (int i = 0; i < partitions.size(); i++) {
            ChannelReader channel = new ChannelReader(this, i, partitions.get(i), subpartition);
            channels.add(channel);
            partitions.get(i).readers.add(channel);
        }
        if (channels.isEmpty()) {
            availability.complete(null);
        }
    }

    /** The gate's name (the owner name in the buffer pool). */
    public String name() {
        return name;
    }

    /** Number of channels; channel {@code i} reads the i-th partition given at open. */
    public int numChannels() {
        return channels.size();
    }

    /**
     * The next buffer from any channel, or null if none is ready yet. O(1). Allocates nothing when
     * it returns a buffer; a call that finds the queue empty after {@link #availability()} had
     * completed allocates the next availability future (once per such transition, not per call).
     *
     * @throws PartitionLostException if a channel's partition is lost, released or corrupt
     */
    public synchronized @Nullable Buffer poll() throws PartitionLostException {
        if (failure != null) {
            throw failure;
        }
        Buffer next = queue.poll();
        if (next == null) {
            if (availability.isDone() && !isFinishedLocked()) {
                availability = new CompletableFuture<>();
            }
            return null;
        }
        return next;
    }

    /** A future completed when {@link #poll()} may return a buffer, the gate ends, or fails. */
    public synchronized CompletableFuture<Void> availability() {
        return availability;
    }

    /** Whether every channel ended and every buffer was polled. */
    public synchronized boolean isFinished() {
        return isFinishedLocked();
    }

    /** Pages this gate holds (queued and polled-but-not-recycled). */
    public int pagesInUse() {
        return owner.pagesInUse();
    }

    /**
     * Stops reading: queued buffers are recycled; buffers the consumer still holds are recycled by
     * it later, after which the gate's pages are all back. Idempotent.
     */
    @Override
    public void close() {
        List<Buffer> drop;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            drop = new ArrayList<>(queue);
            queue.clear();
            wanting.clear();
            availability.complete(null);
        }
        scheduler.cancel(channels);
        for (Buffer buffer : drop) {
            buffer.recycle();
        }
        synchronized (this) {
            SharedPage fill = filling;
            if (fill != null && fill.slices == 0) {
                filling = null;
                owner.recycle(fill.page);
            }
        }
        closeOwnerIfIdle();
        onClose.accept(this);
    }

    synchronized void start() {
        for (ChannelReader channel : channels) {
            channel.wanting = true;
            wanting.add(channel);
        }
        dispatchLocked();
    }

    /**
     * Called by the IO thread while it reads the file of {@code channel} for another gate: gives
     * the channel its turn now, out of order, if it is waiting and pages are free; true if so (the
     * IO thread then serves it and calls {@link #served}).
     */
    synchronized boolean tryDispatchNow(ChannelReader channel) {
        if (closed || failure != null || !channel.wanting) {
            return false;
        }
        int free = capacity - owner.pagesInUse() - reserved;
        if (free <= 0) {
            return false;
        }
        channel.wanting = false; // its entry in the FIFO is skipped
        channel.inService = true;
        channel.credit = Math.min(maxCredit, free);
        reserved += channel.credit;
        return true;
    }

    /**
     * Called by the IO thread: room for the channel's next buffer of {@code bytes}, as a buffer not
     * yet queued. Small buffers of any channels are packed into the gate's current page; a new page
     * comes out of the channel's credit. Null if the gate closed or failed, or the channel's credit
     * is spent (or, rarely, the pool is short: the channel then waits its next turn). Allocates the
     * buffer and its slice of the page, and a {@link SharedPage} when it starts a new page.
     */
    synchronized @Nullable Buffer tryTake(ChannelReader channel, int bytes) {
        if (closed || failure != null) {
            return null;
        }
        SharedPage fill = filling;
        if (fill == null || pageSize - fill.used < bytes) {
            if (channel.credit <= 0) {
                return null;
            }
            Page page = owner.tryRequest();
            if (page == null) {
                return null;
            }
            channel.credit--;
            reserved--;
            filling = new SharedPage(page);
            if (fill != null && fill.slices == 0) {
                owner.recycle(fill.page); // nothing of it is out
            }
            fill = filling;
        }
        Buffer buffer = new Buffer(this, channel.index, fill, fill.used, bytes);
        fill.used += bytes;
        fill.slices++;
        return buffer;
    }

    /**
     * Called by the IO thread after serving {@code channel}: its unused credit comes back, and it
     * queues again for its next turn if it has more data.
     */
    synchronized void served(ChannelReader channel, boolean wantsMore) {
        reserved -= channel.credit;
        channel.credit = 0;
        channel.inService = false;
        boolean again = wantsMore || channel.dataArrived;
        channel.dataArrived = false;
        if (again && !closed && failure == null && !channel.done) {
            channel.wanting = true;
            wanting.add(channel);
        }
        dispatchLocked();
    }

    /**
     * Called by a hybrid partition when data arrived for {@code channel}, which was waiting for it
     * (or the partition was lost): the channel queues for a turn, or, if the IO thread is serving
     * it right now, queues again when it is served.
     */
    synchronized void dataAvailable(ChannelReader channel) {
        if (closed || failure != null || channel.done) {
            return;
        }
        if (channel.inService) {
            channel.dataArrived = true;
        } else if (!channel.wanting) {
            channel.wanting = true;
            wanting.add(channel);
            dispatchLocked();
        }
    }

    /** Whether the gate was closed or failed: its channels stop. */
    synchronized boolean isClosedOrFailed() {
        return closed || failure != null;
    }

    /** Hands waiting channels to the scheduler while free pages can back their credit. */
    private void dispatchLocked() {
        while (!closed && failure == null && !wanting.isEmpty()) {
            int free = capacity - owner.pagesInUse() - reserved;
            if (free <= 0) {
                return;
            }
            ChannelReader channel = wanting.poll();
            if (!channel.wanting) {
                continue; // served out of order meanwhile
            }
            channel.wanting = false;
            channel.inService = true;
            channel.credit = Math.min(maxCredit, free);
            reserved += channel.credit;
            scheduler.ready(channel);
        }
    }

    /** Called by the IO thread: {@code buffer} (from {@link #tryTake}) holds decoded data. */
    void deliver(Buffer buffer) {
        synchronized (this) {
            if (!closed) {
                queue.add(buffer);
                availability.complete(null);
                return;
            }
        }
        release(buffer.shared);
    }

    /** Called by the IO thread: {@code channel} has no more data. */
    synchronized void channelFinished(ChannelReader channel) {
        finishedChannels++;
        if (isFinishedLocked()) {
            availability.complete(null);
        }
    }

    /** Called by the IO thread: the gate fails with {@code cause}. */
    void fail(PartitionLostException cause) {
        synchronized (this) {
            if (failure == null) {
                failure = cause;
            }
            wanting.clear();
            availability.complete(null);
        }
        scheduler.cancel(channels);
    }

    private boolean isFinishedLocked() {
        return finishedChannels == channels.size() && queue.isEmpty();
    }

    /** One slice of {@code shared} is done with; the page goes back when none is out. */
    void release(SharedPage shared) {
        synchronized (this) {
            shared.slices--;
            if (shared.slices == 0) {
                if (shared == filling) {
                    filling = null; // an idle page would hold credit other channels need
                }
                owner.recycle(shared.page);
            }
            dispatchLocked();
        }
        closeOwnerIfIdle();
    }

    private void closeOwnerIfIdle() {
        synchronized (this) {
            if (closed && owner.pagesInUse() == 0) {
                owner.close();
            }
        }
    }

    /** A page of the gate shared by the buffers sliced out of it; guarded by the gate. */
    static final class SharedPage {
        final Page page;
        int used;
        int slices;

        SharedPage(Page page) {
            this.page = page;
        }
    }

    /**
     * A decoded buffer of one channel: {@link #data()} holds a run of that channel's record stream
     * (records may continue into the channel's next buffer). Small buffers share a page; recycle
     * each exactly once.
     */
    public static final class Buffer {
        private final InputGate gate;
        private final int channel;
        private final SharedPage shared;
        private final ByteBuffer data;
        private boolean recycled;

        Buffer(InputGate gate, int channel, SharedPage shared, int offset, int length) {
            this.gate = gate;
            this.channel = channel;
            this.shared = shared;
            this.data = shared.page.buffer().slice(offset, length);
        }

        /** The channel this buffer came from. */
        public int channel() {
            return channel;
        }

        /** The bytes, from position to limit; valid until {@link #recycle()}. */
        public ByteBuffer data() {
            return data;
        }

        /**
         * Returns its share of the page; the last share returns the page to the pool. Call once;
         * any thread. O(1); allocates nothing while no request waits in the pool (a channel it
         * hands back to the IO thread may grow the scheduler's queue, amortised).
         */
        public void recycle() {
            synchronized (this) {
                if (recycled) {
                    throw new IllegalStateException(
                            "buffer of channel " + channel + " recycled twice");
                }
                recycled = true;
            }
            gate.release(shared);
        }

        /** Called by the IO thread when decoding into it failed. */
        void discard() {
            recycle();
        }
    }
}
