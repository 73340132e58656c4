package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.PartitionLostException;
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
 * The {@link InputGate} of partitions its own worker holds: one channel per (partition,
 * subpartition) it reads; buffers arrive from any channel, in order within each channel, decoded
 * and checked by the worker's IO scheduler.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Memory: the gate is one buffer-pool owner guaranteed {@code shuffle.read.gate-pages} pages
 *       whatever its number of channels, and never holds more.
 *   <li>Turns: channels that want data wait in a FIFO; the gate hands them to the IO scheduler
 *       while it has a free page and fewer channels in service than its pages and {@value
 *       #MAX_IN_SERVICE}. Before reading for a channel the IO thread asks the gate how much it can
 *       take now ({@link #turnBytes()}: the room left in its pages, at most {@value
 *       #MAX_TURN_PAGES} pages), and reads no more. Nothing is reserved per channel: a gate of
 *       1,000 channels whose sections are 1 KiB keeps most of its channels in service at once, so
 *       the IO thread can serve the same file for many gates in one read (it also gives a waiting
 *       channel of another gate its turn early when that gate has room). So the IO thread never
 *       waits for a page; channels are served round-robin; every page is either queued for the
 *       consumer or held by it: a consumer that recycles what it polls never waits for memory, in
 *       any consumption order. A consumer that holds buffers of every channel at once (a merge)
 *       needs gate pages ≥ channels.
 *   <li>Batching: what the IO thread decodes for a gate during one round is handed over at its end
 *       in one lock with at most one wake-up ({@link #publish}), and {@link #poll()} takes every
 *       published buffer in one lock, so neither side pays a lock or a wake-up per buffer.
 *   <li>Packing: small buffers of any channels are slices of the gate's current page; a new page is
 *       taken only while the gate holds fewer than its pages, and a page goes back to the pool when
 *       its last slice is recycled.
 * </ul>
 *
 * <p>Threading: {@link #poll()}, {@link #availability()}, {@link #isFinished()} and {@link
 * #close()} are called by the consumer; buffers may be recycled from any thread. The gate's monitor
 * guards its queue, its channels' turns and its pages' accounting; its place in the lock order is
 * in the {@code io.railyard.shuffle} package documentation. A few fields are written under it and
 * read without it by the IO thread ({@link #turnBytes()}) or the consumer's fast path ({@link
 * #poll()}): they are volatile, and those reads are the only accesses outside the lock.
 */
final class LocalInputGate implements InputGate {
    /** Pages one channel's turn may read at most (one when channels outnumber pages / this). */
    static final int MAX_TURN_PAGES = 4;

    /**
     * Channels of one gate in the IO scheduler's hands at once (or fewer, its pages). Few enough
     * that most of a 1,000-channel gate's channels still wait when another gate's read passes their
     * file, so they join it; 8, 16 and 64 measured alike at 1,000 × 1,000 on this machine, with the
     * fewest reads at 8 and 16.
     */
    static final int MAX_IN_SERVICE = 16;

    /**
     * The longest a consumer is left unwoken while data is published for it (nanoseconds): the
     * latency a deferred wake-up may add; see {@link #publish}.
     */
    static final long MAX_WAKE_DELAY = 1_000_000;

    // A channel's turn, as bits of turns[channel.index]: it waits in the FIFO (WANTING); the IO
    // thread has its turn, from dispatch to served (IN_SERVICE); data arrived meanwhile (ARRIVED).
    private static final byte WANTING = 1;
    private static final byte IN_SERVICE = 2;
    private static final byte ARRIVED = 4;

    private final String name;
    private final BufferOwner owner;
    private final IoScheduler scheduler;
    private final Consumer<LocalInputGate> onClose;
    private final int capacity;
    private final long maxTurnBytes;
    private final int maxInService;
    // Only gates of blocking partitions defer wake-ups: a hybrid consumer that is late lets its
    // producers' memory fill, and the rest is spilled and read back from disk.
    private final boolean defersWakeUps;
    private final int pageSize;
    private final List<ChannelReader> channels;

    @GuardedBy("this")
    private final byte[] turns;

    // The page being filled; read without the lock by turnBytes() (on the IO thread, which is the
    // only one that fills it).
    @GuardedBy("this")
    private volatile @Nullable SharedPage filling;

    // Published buffers; poll swaps the whole queue with the consumer's empty batch at once.
    @GuardedBy("this")
    private ArrayDeque<LocalBuffer> queue = new ArrayDeque<>();

    @GuardedBy("this")
    private long queueBytes;

    // Confined to the consumer: buffers taken from the queue in one lock, returned one by one.
    private ArrayDeque<LocalBuffer> taken = new ArrayDeque<>();
    private long takenBytes;
    // Confined to the IO thread: what it decoded for this gate this round, and the channels that
    // ended; published together by publish(), with one lock and at most one wake-up.
    private final ArrayList<LocalBuffer> decoded = new ArrayList<>();
    private int channelsEnded;
    // Confined to the IO thread: published buffers the consumer was not woken for (see publish),
    // and whether the IO thread's list of deferred gates holds this one.
    private boolean wakeDeferred;
    private boolean onDeferredList;

    @GuardedBy("this")
    private long deferredSince;

    @GuardedBy("this")
    private final ArrayDeque<ChannelReader> wanting = new ArrayDeque<>();

    @GuardedBy("this")
    private CompletableFuture<Void> availability = new CompletableFuture<>();

    // Why the gate failed: a PartitionLostException, or an IllegalStateException once the
    // worker's IO thread died; read without the lock by poll() and turnBytes().
    @GuardedBy("this")
    private volatile @Nullable Exception failure;

    @GuardedBy("this")
    private int inService;

    // Pages this gate holds; read without the lock by turnBytes(). The pool knows too, but asking
    // it takes the pool's lock, which every recycle contends for.
    @GuardedBy("this")
    private volatile int pagesHeld;

    @GuardedBy("this")
    private int finishedChannels;

    // Read without the lock by turnBytes().
    @GuardedBy("this")
    private volatile boolean closed;

    LocalInputGate(
            String name,
            BufferOwner owner,
            IoScheduler scheduler,
            List<? extends ResultPartition> partitions,
            int subpartition,
            Consumer<LocalInputGate> onClose) {
        this.name = name;
        this.onClose = onClose;
        this.owner = owner;
        this.scheduler = scheduler;
        this.capacity = owner.guaranteedPages();
        this.pageSize = scheduler.pageSize();
        // Many channels: one page each per turn (sections are small), so more of them can be in
        // flight at once and joined into shared reads; few channels: deeper read-ahead.
        int turnPages = partitions.size() * MAX_TURN_PAGES > capacity ? 1 : MAX_TURN_PAGES;
        this.maxTurnBytes = (long) turnPages * pageSize;
        this.maxInService = Math.max(1, Math.min(capacity, MAX_IN_SERVICE));
        this.channels = new ArrayList<>(partitions.size());
        this.turns = new byte[partitions.size()];
        boolean hybrid = false;
        for (int i = 0; i < partitions.size(); i++) {
            ChannelReader channel = new ChannelReader(this, i, partitions.get(i), subpartition);
            channels.add(channel);
            partitions.get(i).readers.add(channel);
            hybrid |= partitions.get(i) instanceof HybridPartition;
        }
        this.defersWakeUps = !hybrid;
        if (channels.isEmpty()) {
            availability.complete(null);
        }
    }

    /** The gate's name (the owner name in the buffer pool). */
    @Override
    public String name() {
        return name;
    }

    /** Number of channels; channel {@code i} reads the i-th partition given at open. */
    @Override
    public int numChannels() {
        return channels.size();
    }

    /**
     * The next buffer from any channel, or null if none is ready yet. O(1). Takes every buffer
     * published so far in one lock and returns them one by one without locking. Allocates nothing
     * when it returns a buffer; a call that finds nothing after {@link #availability()} had
     * completed allocates the next availability future (once per such transition, not per call).
     *
     * @throws PartitionLostException if a channel's partition is lost, released or corrupt
     * @throws IllegalStateException if the worker's IO thread died (its error is the cause)
     */
    @Override
    public @Nullable LocalBuffer poll() throws PartitionLostException {
        throwIfFailed(failureSeen());
        LocalBuffer next = taken.poll();
        if (next == null) {
            next = takePublished();
        }
        if (next != null) {
            takenBytes -= next.data().remaining();
        }
        return next;
    }

    private synchronized @Nullable LocalBuffer takePublished() throws PartitionLostException {
        throwIfFailed(failure);
        if (queue.isEmpty()) {
            if (availability.isDone() && !isFinishedLocked()) {
                availability = new CompletableFuture<>();
            }
            return null;
        }
        ArrayDeque<LocalBuffer> published = queue;
        queue = taken;
        taken = published;
        takenBytes = queueBytes;
        queueBytes = 0;
        return taken.poll();
    }

    /** Bytes of the buffers {@link #poll()} returns without waiting. O(1). */
    @Override
    public long bytesReady() {
        synchronized (this) {
            return takenBytes + queueBytes;
        }
    }

    /** A future completed when {@link #poll()} may return a buffer, the gate ends, or fails. */
    @Override
    public synchronized CompletableFuture<Void> availability() {
        return availability;
    }

    /** Whether every channel ended and every buffer was polled. */
    @Override
    public boolean isFinished() {
        if (!taken.isEmpty()) {
            return false;
        }
        synchronized (this) {
            return isFinishedLocked();
        }
    }

    /** Pages this gate holds (queued and polled-but-not-recycled). */
    @Override
    public int pagesInUse() {
        return owner.pagesInUse();
    }

    /**
     * Stops reading: queued buffers are recycled; buffers the consumer still holds are recycled by
     * it later, after which the gate's pages are all back. Idempotent.
     */
    @Override
    public void close() {
        List<LocalBuffer> drop;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            drop = new ArrayList<>(queue);
            drop.addAll(taken);
            queue.clear();
            taken.clear();
            queueBytes = 0;
            takenBytes = 0;
            wanting.clear();
            availability.complete(null);
        }
        scheduler.cancel(channels);
        for (LocalBuffer buffer : drop) {
            buffer.recycle();
        }
        synchronized (this) {
            SharedPage fill = filling;
            if (fill != null && !fill.hasSlices()) {
                filling = null;
                recycleLocked(fill.page);
            }
        }
        closeOwnerIfIdle();
        onClose.accept(this);
    }

    /**
     * Whether {@code io} is the IO scheduler of this gate's worker, the only one that may serve its
     * channels (see {@link IoScheduler}'s joining of waiting readers).
     */
    boolean isServedBy(IoScheduler io) {
        return scheduler == io;
    }

    synchronized void start() {
        for (ChannelReader channel : channels) {
            turns[channel.index] |= WANTING;
            wanting.add(channel);
        }
        dispatchLocked();
    }

    /**
     * Called by the IO thread while it reads the file of {@code channel} for another gate: gives
     * the channel its turn now, out of order, if it is waiting and a page is free; true if so (the
     * IO thread then serves it and calls {@link #served}).
     *
     * <p>A free page, as {@link #dispatchLocked} asks, not just room left in the current page: a
     * channel given a turn for the rest of a page whose next frame does not fit reads and takes
     * nothing, and while its consumer holds the gate's other pages it was given that turn again in
     * every round, spending the file's read budget before the channels after it in the file, which
     * then never read (reliability row 24: consumers holding a buffer of one gate while waiting for
     * another, at the minimum budget, starved for ever).
     */
    synchronized boolean tryDispatchNow(ChannelReader channel) {
        if (closed || failure != null || !has(channel, WANTING) || pagesHeld >= capacity) {
            return false;
        }
        enterService(channel); // its entry in the FIFO is skipped
        return true;
    }

    /**
     * Called by the IO thread before it reads for one of this gate's channels: the bytes worth
     * reading for it now, at most {@link #MAX_TURN_PAGES} pages (one page when the gate has more
     * channels than that many pages each) and at most what the gate can take — the room in its
     * current page plus its free pages. Only the IO thread takes room, and it serves one channel of
     * a gate at a time, so the room does not shrink before the channel's frames are taken (a frame
     * that does not fit the rest of a page may still be refused: it is read again at the channel's
     * next turn). Takes no lock: the consumer only frees room meanwhile, so a stale view errs by a
     * refused frame at most, and {@link #tryTake} decides under the lock.
     */
    @SuppressWarnings("GuardedBy") // reads without the lock, as documented above
    long turnBytes() {
        if (closed || failure != null) {
            return 0;
        }
        SharedPage fill = filling;
        long free = Math.max(0, capacity - pagesHeld);
        return Math.min(maxTurnBytes, free * pageSize + (fill == null ? 0 : fill.roomSeen()));
    }

    /** The gate's failure as the consumer's fast path sees it, without the lock. */
    @SuppressWarnings("GuardedBy") // a volatile read: a failure is never cleared once set
    private @Nullable Exception failureSeen() {
        return failure;
    }

    /**
     * Throws {@code failed}, the gate's failure, if there is one: a lost partition, or the IO
     * thread's death.
     */
    private static void throwIfFailed(@Nullable Exception failed) throws PartitionLostException {
        if (failed instanceof PartitionLostException lost) {
            throw lost;
        }
        if (failed instanceof IllegalStateException stopped) {
            throw stopped;
        }
    }

    /**
     * Called by the IO thread: room for the channel's next buffer of {@code bytes}, as a buffer not
     * yet queued. Small buffers of any channels are packed into the gate's current page; a new page
     * is taken while the gate holds fewer than its pages. Null if the gate closed or failed or has
     * no room for it (or, rarely, the pool is short): the channel then waits its next turn.
     * Allocates the buffer and its slice of the page, and a {@link SharedPage} when it starts a new
     * page.
     */
    @SuppressWarnings("NonAtomicVolatileUpdate") // written only under the gate's lock
    synchronized @Nullable LocalBuffer tryTake(ChannelReader channel, int bytes) {
        if (closed || failure != null) {
            return null;
        }
        SharedPage fill = filling;
        if (fill == null || !fill.fits(bytes)) {
            if (pagesHeld >= capacity) {
                return null;
            }
            Page page = owner.tryRequest();
            if (page == null) {
                return null;
            }
            pagesHeld++;
            SharedPage next = new SharedPage(this, page);
            filling = next;
            if (fill != null && !fill.hasSlices()) {
                recycleLocked(fill.page); // nothing of it is out
            }
            fill = next;
        }
        return new LocalBuffer(this, channel.index, fill, fill.slice(bytes), bytes);
    }

    /**
     * Called by the IO thread after serving {@code channel}: it leaves service, and queues again
     * for its next turn if it has more data.
     */
    synchronized void served(ChannelReader channel, boolean wantsMore) {
        if (has(channel, IN_SERVICE)) {
            turns[channel.index] &= ~IN_SERVICE;
            inService--;
        }
        boolean again = wantsMore || has(channel, ARRIVED);
        turns[channel.index] &= ~ARRIVED;
        if (again && !closed && failure == null && !channel.done) {
            turns[channel.index] |= WANTING;
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
        if (has(channel, IN_SERVICE)) {
            turns[channel.index] |= ARRIVED;
        } else if (!has(channel, WANTING)) {
            turns[channel.index] |= WANTING;
            wanting.add(channel);
            dispatchLocked();
        }
    }

    /** Whether the gate was closed or failed: its channels stop. */
    synchronized boolean isClosedOrFailed() {
        return closed || failure != null;
    }

    /**
     * Hands waiting channels to the scheduler while the gate has a free page (room for any frame)
     * and fewer channels in service than its pages and {@value #MAX_IN_SERVICE}.
     */
    @GuardedBy("this")
    private void dispatchLocked() {
        while (!closed
                && failure == null
                && !wanting.isEmpty()
                && inService < maxInService
                && pagesHeld < capacity) {
            ChannelReader channel = wanting.poll();
            if (!has(channel, WANTING)) {
                continue; // served out of order meanwhile
            }
            enterService(channel);
            scheduler.ready(channel);
        }
    }

    @GuardedBy("this")
    private boolean has(ChannelReader channel, byte bit) {
        return (turns[channel.index] & bit) != 0;
    }

    /** A waiting channel gets its turn: it leaves the FIFO (its entry is skipped) for service. */
    @GuardedBy("this")
    private void enterService(ChannelReader channel) {
        turns[channel.index] = (byte) ((turns[channel.index] & ~WANTING) | IN_SERVICE);
        inService++;
    }

    /**
     * Called by the IO thread: {@code buffer} (from {@link #tryTake}) holds decoded data; the
     * consumer sees it at the next {@link #publish}. No lock. True if the gate had nothing to
     * publish before (the caller then publishes it once it is done with the gate for now).
     */
    boolean deliver(LocalBuffer buffer) {
        decoded.add(buffer);
        return decoded.size() == 1 && channelsEnded == 0;
    }

    /**
     * Called by the IO thread: {@code channel} has no more data, which the consumer sees at the
     * next {@link #publish} (after the channel's last buffers). True as {@link #deliver}.
     */
    boolean channelFinished(ChannelReader channel) {
        channelsEnded++;
        return decoded.isEmpty() && channelsEnded == 1;
    }

    /**
     * Called by the IO thread at the end of a round: hands everything it delivered since the last
     * call to the consumer in one lock; true if it handed over buffers. O(buffers); allocates
     * nothing.
     *
     * <p>The consumer of a gate of blocking partitions is woken (its {@link #availability()}
     * completed) only when waiting longer would not bring more: the gate ended, failed or closed,
     * {@code force} is set (the IO thread is about to idle), no channel of the gate is in the IO
     * thread's hands, the gate holds half its pages, or the first deferred buffer waited {@value
     * #MAX_WAKE_DELAY} ns. Otherwise the wake-up is deferred ({@link #wakeDeferred}) and the IO
     * thread calls again after its next round: a consumer woken for each round's few kilobytes
     * spends more on being woken than on the data (1,000-channel gates of 1 KiB sections). A
     * consumer that is running sees published buffers at its next poll either way.
     */
    boolean publish(boolean force) {
        boolean drop;
        synchronized (this) {
            drop = closed;
            if (!drop) {
                for (int i = 0; i < decoded.size(); i++) {
                    LocalBuffer buffer = decoded.get(i);
                    queue.add(buffer);
                    queueBytes += buffer.data().remaining();
                }
            }
            finishedChannels += channelsEnded;
            boolean pending = !queue.isEmpty() && !availability.isDone();
            boolean wake =
                    force
                            || !defersWakeUps
                            || failure != null
                            || isFinishedLocked()
                            || inService == 0
                            || pagesHeld * 2 >= capacity
                            || (wakeDeferred && System.nanoTime() - deferredSince > MAX_WAKE_DELAY);
            if (pending && !wake && !wakeDeferred) {
                deferredSince = System.nanoTime();
            }
            wakeDeferred = pending && !wake;
            if ((pending && wake) || isFinishedLocked()) {
                availability.complete(null);
            }
        }
        if (drop) {
            for (int i = 0; i < decoded.size(); i++) {
                release(decoded.get(i).shared);
            }
        }
        boolean handed = !decoded.isEmpty();
        decoded.clear();
        channelsEnded = 0;
        return handed;
    }

    /** Whether the consumer was not woken for published buffers (the IO thread's). */
    boolean wakeDeferred() {
        return wakeDeferred;
    }

    /**
     * The IO thread puts the gate on its list of gates to publish to again; false if it is on it
     * already.
     */
    boolean enterDeferredList() {
        boolean enter = !onDeferredList;
        onDeferredList = true;
        return enter;
    }

    /** The IO thread took the gate off its list of gates to publish to again. */
    void leaveDeferredList() {
        onDeferredList = false;
    }

    /**
     * The worker's IO thread died of {@code cause}: the gate fails (unless it failed before) with
     * an {@link IllegalStateException} naming it, and a waiting consumer is woken. Any thread.
     */
    void ioThreadDied(Throwable cause) {
        synchronized (this) {
            if (failure == null) {
                failure =
                        new IllegalStateException(
                                "input gate '"
                                        + name
                                        + "' cannot be read: the worker's IO thread died of "
                                        + cause,
                                cause);
            }
            wanting.clear();
            availability.complete(null);
        }
    }

    /**
     * The worker closed while this gate was open: the gate fails (unless it failed before) with an
     * {@link IllegalStateException} naming it, then closes, so a consumer still polling is told at
     * once instead of waiting for data that will never come. Any thread.
     */
    void workerClosed() {
        synchronized (this) {
            if (failure == null) {
                failure =
                        new IllegalStateException(
                                "input gate '"
                                        + name
                                        + "' cannot be read: its shuffle worker closed");
            }
        }
        close();
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

    @GuardedBy("this")
    private boolean isFinishedLocked() {
        return finishedChannels == channels.size() && queue.isEmpty();
    }

    /** One slice of {@code shared} is done with; the page goes back when none is out. */
    void release(SharedPage shared) {
        synchronized (this) {
            if (shared.releaseSlice()) {
                if (shared == filling) {
                    filling = null; // an idle page would hold room other gates' pages need
                }
                recycleLocked(shared.page);
            }
            dispatchLocked();
        }
        closeOwnerIfIdle();
    }

    @GuardedBy("this")
    @SuppressWarnings("NonAtomicVolatileUpdate") // written only under the gate's lock
    private void recycleLocked(Page page) {
        pagesHeld--;
        owner.recycle(page);
    }

    private void closeOwnerIfIdle() {
        synchronized (this) {
            if (closed && pagesHeld == 0) {
                owner.close();
            }
        }
    }

    /**
     * A page of the gate shared by the buffers sliced out of it: the bytes sliced so far and the
     * slices not yet recycled, guarded by the gate's monitor (each method takes it, reentrantly
     * when the gate holds it).
     */
    static final class SharedPage {
        final Page page;
        private final LocalInputGate gate;

        @GuardedBy("gate")
        private int used;

        @GuardedBy("gate")
        private int slices;

        SharedPage(LocalInputGate gate, Page page) {
            this.gate = gate;
            this.page = page;
        }

        /** Whether a slice of {@code bytes} fits the rest of the page. */
        boolean fits(int bytes) {
            synchronized (gate) {
                return gate.pageSize - used >= bytes;
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
         * The bytes left in the page, read without the lock by the IO thread, the only thread that
         * slices (so it reads its own count).
         */
        @SuppressWarnings("GuardedBy") // the IO thread's own writes, read without the lock
        int roomSeen() {
            return gate.pageSize - used;
        }
    }

    /**
     * A decoded buffer of one channel: {@link #data()} holds a run of that channel's record stream
     * (records may continue into the channel's next buffer). Small buffers share a page; recycle
     * each exactly once.
     */
    static final class LocalBuffer implements InputGate.Buffer {
        private final LocalInputGate gate;
        private final int channel;
        private final SharedPage shared;
        private final ByteBuffer data;

        @GuardedBy("this")
        private boolean recycled;

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

        /**
         * Returns its share of the page; the last share returns the page to the pool. Call once;
         * any thread. O(1); allocates nothing while no request waits in the pool (a channel it
         * hands back to the IO thread may grow the scheduler's queue, amortised).
         */
        @Override
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
