package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The {@link InputGate} of partitions in its worker's process: it reads subpartition {@code s} of
 * every partition of a {@link PartitionFeed}, following the feed's log with one cursor; buffers
 * arrive from any channel (channel {@code i} is the feed's partition {@code i}), in order within
 * each channel.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>State per channel only while it has data: the gate keeps a cursor into its feed, the region
 *       it reads in memory now, and at most {@value #MAX_SESSIONS} sessions with the IO thread
 *       ({@link ChannelReader}, one per entry read from disk) — whatever its number of channels. A
 *       channel with nothing for this gate costs it nothing.
 *   <li>Memory reads on the consumer's thread: a region of a hybrid or pipelined partition that is
 *       still in memory is read where it lies, by {@link #poll()}: its frames are checked and
 *       handed over as views of the region's pages (pinned until the last is recycled), without the
 *       IO thread and without a copy. Only what is on disk — blocking partitions, regions written
 *       out or spilled — goes through the IO thread.
 *   <li>Order: the entries of one partition are read one after another (an entry waits while an
 *       earlier one of its partition is still with the IO thread), and the cursor moves only once
 *       every buffer the IO thread handed over was polled, so a channel's buffers keep their order.
 *   <li>Memory: the gate is one buffer-pool owner guaranteed {@code shuffle.read.gate-pages} pages
 *       for what the IO thread reads (and for compressed frames read in memory), and never holds
 *       more. Sessions wait in a FIFO for a turn; the gate hands them to the IO scheduler while it
 *       has a free page and fewer than its pages and {@value #MAX_IN_SERVICE} in service, and the
 *       IO thread reads no more for a session than the gate can take now ({@link #turnBytes()}), so
 *       it never waits for a page.
 *   <li>Batching: what the IO thread decodes for a gate during one round is handed over at its end
 *       in one lock with at most one wake-up ({@link #publish}); {@link #poll()} takes every
 *       published buffer in one lock; small buffers share the gate's current page.
 * </ul>
 *
 * <p>Threading: {@link #poll()}, {@link #availability()}, {@link #isFinished()} and {@link
 * #close()} are called by the consumer, and the cursor and the region read in memory are its own;
 * buffers may be recycled from any thread. The gate's monitor guards its queue, its sessions' turns
 * and its pages' accounting; its place in the lock order is in the {@code io.railyard.shuffle}
 * package documentation. A few fields are written under it and read without it by the IO thread
 * ({@link #turnBytes()}) or the consumer's fast path ({@link #poll()}): they are volatile, and
 * those reads are the only accesses outside the lock.
 */
final class LocalInputGate implements InputGate {
    /** Pages one session's turn may read at most (one when the gate has few pages per session). */
    static final int MAX_TURN_PAGES = 4;

    /**
     * Sessions of one gate in the IO scheduler's hands at once (or fewer, its pages). Few enough
     * that other sessions of a gate still wait when another gate's read passes their file, so they
     * join it; 8, 16 and 64 measured alike at 1,000 × 1,000 on this machine, with the fewest reads
     * at 8 and 16.
     */
    static final int MAX_IN_SERVICE = 16;

    /**
     * Sessions a gate keeps open at once: four times those in service. Some wait while others are
     * read, where a read of another gate may join them, and the IO thread has four rounds of work
     * before a consumer that lags behind must open more: with twice as many, a consumer a few
     * rounds late left the IO thread rounds of a session or two (seen in ReadHandOffTest).
     */
    static final int MAX_SESSIONS = 4 * MAX_IN_SERVICE;

    /**
     * The longest a consumer is left unwoken while data is published for it (nanoseconds): the
     * latency a deferred wake-up may add; see {@link #publish}.
     */
    static final long MAX_WAKE_DELAY = 1_000_000;

    /** Feed entries the consumer copies at a time. */
    private static final int BATCH = 64;

    // A session's turn, as bits of turns[session.slot]: it waits in the FIFO (WANTING); the IO
    // thread has its turn, from dispatch to served (IN_SERVICE). A session reads data that is
    // there already (a finished partition, a published region): it never waits for more.
    private static final byte WANTING = 1;
    private static final byte IN_SERVICE = 2;

    private final String name;
    private final BufferOwner owner;
    private final IoScheduler scheduler;
    private final PartitionFeed feed;
    private final boolean ownsFeed;
    private final int subpartition;
    private final Consumer<LocalInputGate> onClose;
    private final int capacity;
    private final long maxTurnBytes;
    private final int maxInService;
    private final int pageSize;
    private final MemoryReads memory;

    // Only gates of blocking partitions defer wake-ups: a hybrid consumer that is late lets its
    // producers' memory fill, and the rest is spilled and read back from disk.
    private volatile boolean hybridSeen;

    @GuardedBy("this")
    private final @Nullable ChannelReader[] sessions = new ChannelReader[MAX_SESSIONS];

    @GuardedBy("this")
    private final byte[] turns = new byte[MAX_SESSIONS];

    // Sessions open now; read without the lock by the consumer's fast path (written under it).
    @GuardedBy("this")
    private volatile int sessionCount;

    // The page being filled; read without the lock by turnBytes() (on the IO thread).
    @GuardedBy("this")
    private volatile @Nullable SharedPage filling;

    // Published buffers; poll swaps the whole queue with the consumer's empty batch at once.
    @GuardedBy("this")
    private ArrayDeque<LocalBuffer> queue = new ArrayDeque<>();

    @GuardedBy("this")
    private long queueBytes;

    // Buffers in the queue; read without the lock by the consumer's fast path (queuedSeen).
    @GuardedBy("this")
    private volatile int queued;

    // Confined to the consumer: buffers taken from the queue in one lock, returned one by one;
    // the cursor into the feed and the batch of entries copied from it.
    private ArrayDeque<LocalBuffer> taken = new ArrayDeque<>();
    private long takenBytes;
    private int cursor;
    private final int[] batchPartition = new int[BATCH];
    private final @Nullable HybridRegion[] batchRegion = new HybridRegion[BATCH];
    private int batchAt;
    private int batchSize;
    private boolean finishedReading; // every entry was read to its end (the consumer's)
    private boolean opened; // sessions were opened and not yet dispatched (the consumer's)
    private volatile @Nullable Runnable beforePark; // tests: runs as the consumer parks

    // Confined to the IO thread: what it decoded for this gate this round, and the sessions that
    // ended; published together by publish(), with one lock and at most one wake-up.
    private final ArrayList<LocalBuffer> decoded = new ArrayList<>();
    private final ArrayList<ChannelReader> ended = new ArrayList<>();
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

    // Read without the lock by turnBytes().
    @GuardedBy("this")
    private volatile boolean closed;

    // The consumer waits for room in a page for a compressed frame it reads in memory.
    @GuardedBy("this")
    private boolean roomWanted;

    /**
     * A gate named {@code name} reading {@code subpartition} of every partition of {@code feed}
     * (registered there), its pages from {@code owner}; it closes the feed with itself if {@code
     * ownsFeed}.
     *
     * @throws PartitionLostException as {@link PartitionFeed#register} does
     */
    LocalInputGate(
            String name,
            BufferOwner owner,
            IoScheduler scheduler,
            PartitionFeed feed,
            boolean ownsFeed,
            int subpartition,
            MemoryReads.Frames frames,
            Consumer<LocalInputGate> onClose)
            throws PartitionLostException {
        this.name = name;
        this.onClose = onClose;
        this.owner = owner;
        this.scheduler = scheduler;
        this.feed = feed;
        this.ownsFeed = ownsFeed;
        this.subpartition = subpartition;
        this.capacity = owner.guaranteedPages();
        this.pageSize = scheduler.pageSize();
        // Many partitions: one page per turn (sections are small), so more sessions can be in
        // flight at once and joined into shared reads; few: deeper read-ahead.
        int turnPages =
                (long) feed.numPartitions() * MAX_TURN_PAGES > capacity ? 1 : MAX_TURN_PAGES;
        this.maxTurnBytes = (long) turnPages * pageSize;
        this.maxInService = Math.max(1, Math.min(capacity, MAX_IN_SERVICE));
        this.memory = new MemoryReads(this, subpartition, frames);
        feed.register(subpartition);
        availability.complete(null); // a poll may find data at once: it looks
    }

    /** The gate's name (the owner name in the buffer pool). */
    @Override
    public String name() {
        return name;
    }

    /** Number of channels: the feed's partitions; channel {@code i} reads partition {@code i}. */
    @Override
    public int numChannels() {
        return feed.numPartitions();
    }

    /**
     * Tests: runs {@code hook} on the consumer's thread each time it has read every entry of the
     * feed and is about to park there — where an entry published just then must not be missed.
     */
    void beforePark(@Nullable Runnable hook) {
        this.beforePark = hook;
    }

    /** The feed it reads. */
    PartitionFeed feed() {
        return feed;
    }

    /** The subpartition it reads of every partition. */
    int subpartition() {
        return subpartition;
    }

    /**
     * The next buffer from any channel, or null if none is ready yet. O(1) amortised: takes every
     * buffer the IO thread published so far in one lock and returns them one by one without
     * locking; then reads the feed's next entries — what is in memory right here, what is on disk
     * by opening a session with the IO thread. Allocates the buffer handed over and, per region
     * read in memory, its record; a call that finds nothing after {@link #availability()} had
     * completed allocates the next availability future.
     *
     * @throws PartitionLostException if a partition is lost, released or corrupt
     * @throws IllegalStateException if the worker's IO thread died (its error is the cause)
     */
    @Override
    public InputGate.@Nullable Buffer poll() throws PartitionLostException {
        throwIfFailed(failureSeen());
        InputGate.Buffer next = pollOnce();
        if (next != null) {
            return next; // the availability stays as it is: more may come at once
        }
        // Nothing: arm the availability, then look once more, so that what arrives from now on
        // completes the new future and what arrived before is seen here.
        arm();
        next = pollOnce();
        if (next != null) {
            synchronized (this) {
                availability.complete(null);
            }
        }
        return next;
    }

    private InputGate.@Nullable Buffer pollOnce() throws PartitionLostException {
        LocalBuffer next = taken.poll();
        if (next == null) {
            next = takePublished();
        }
        if (next != null) {
            takenBytes -= next.data().remaining();
            return next;
        }
        return advance();
    }

    /** A poll found nothing: a completed availability is replaced by a new one. */
    private synchronized void arm() {
        if (availability.isDone() && !isFinishedLocked() && !closed && failure == null) {
            availability = new CompletableFuture<>();
        }
    }

    private synchronized @Nullable LocalBuffer takePublished() throws PartitionLostException {
        throwIfFailed(failure);
        if (queue.isEmpty()) {
            return null;
        }
        ArrayDeque<LocalBuffer> published = queue;
        queue = taken;
        taken = published;
        takenBytes = queueBytes;
        queueBytes = 0;
        queued = 0;
        return taken.poll();
    }

    /**
     * Reads on along the feed: the region it reads in memory, then the next entries — skipping
     * those without data for it, reading the resident ones in memory, handing the others to the IO
     * thread — until it has a buffer, a session slot or the entry's partition is busy, or the log
     * ends (then it parks on the feed).
     */
    private InputGate.@Nullable Buffer advance() throws PartitionLostException {
        try {
            return readOn();
        } finally {
            if (opened) {
                opened = false;
                dispatch(); // the sessions opened, handed to the IO thread in one lock
            }
        }
    }

    private InputGate.@Nullable Buffer readOn() throws PartitionLostException {
        while (true) {
            if (memory.reading()) {
                InputGate.Buffer next = memory.next();
                if (next != null || memory.reading()) {
                    return next; // a buffer, or it waits for room for a compressed frame
                }
            }
            if (batchAt == batchSize) {
                batchSize = feed.entries(cursor, batchPartition, batchRegion, BATCH);
                batchAt = 0;
                if (batchSize == 0) {
                    if (waitForEntries()) {
                        return null;
                    }
                    continue; // entries arrived meanwhile
                }
            }
            int index = batchPartition[batchAt];
            HybridRegion region = batchRegion[batchAt];
            if (region == null) {
                if (holdsDataFor(index) && !openSession(index, null)) {
                    return null; // every slot is taken: woken when a session ends
                }
            } else if (region.holdsDataFor(subpartition)) {
                hybridSeen = true;
                // An earlier region of its partition may still be with the IO thread, or handed
                // over but not polled: its buffers come first.
                int busy = sessionsSeen() > 0 || queuedSeen() ? busyWith(index) : FREE;
                if (busy == QUEUED) {
                    LocalBuffer queued = takePublished();
                    if (queued != null) {
                        takenBytes -= queued.data().remaining();
                        return queued;
                    }
                    continue; // polled meanwhile? look again
                }
                if (busy == READING) {
                    return null; // woken when its session ends
                }
                if (!memory.start(index, region) && !openSession(index, region)) {
                    return null;
                }
            }
            batchAt++;
            cursor++;
        }
    }

    /**
     * Starts reading at once: hands the IO thread the first entries that are on disk (as many as it
     * has session slots), before the consumer's first poll; what is in memory waits for the
     * consumer. On the thread that opened the gate, which then hands it to its consumer.
     */
    void prefetch() {
        try {
            while (true) {
                if (batchAt == batchSize) {
                    batchSize = feed.entries(cursor, batchPartition, batchRegion, BATCH);
                    batchAt = 0;
                    if (batchSize == 0) {
                        return;
                    }
                }
                if (batchRegion[batchAt] != null
                        || (holdsDataFor(batchPartition[batchAt])
                                && !openSession(batchPartition[batchAt], null))) {
                    return; // a hybrid region, or every slot is taken
                }
                batchAt++;
                cursor++;
            }
        } finally {
            if (opened) {
                opened = false;
                dispatch();
            }
        }
    }

    /**
     * At the end of the log: the feed's failure (thrown), its end, or a wait for its next entry;
     * false if entries arrived meanwhile (read on).
     */
    private boolean waitForEntries() throws PartitionLostException {
        PartitionLostException lost = feed.failure();
        if (lost != null) {
            fail(lost);
            throw lost;
        }
        Runnable hook = beforePark;
        if (hook != null) {
            hook.run();
        }
        if (feed.park(this, cursor)) {
            return true; // woken by the next entry, the end or a failure
        }
        if (feed.isComplete() && cursor == feed.size()) {
            finishedReading = true;
            synchronized (this) {
                if (isFinishedLocked()) {
                    availability.complete(null);
                }
            }
            return true;
        }
        return feed.failure() == null && cursor >= feed.size();
    }

    /** Sessions open, as the consumer's fast path sees them without the lock. */
    /** Whether the finished blocking partition at {@code index} has frames for this gate. */
    private boolean holdsDataFor(int index) {
        ResultPartition partition = Objects.requireNonNull(feed.partition(index));
        return !(partition instanceof BlockingPartition blocking)
                || blocking.holdsDataFor(subpartition);
    }

    @SuppressWarnings("GuardedBy") // a volatile read; hasSession decides under the lock
    private int sessionsSeen() {
        return sessionCount;
    }

    private static final int FREE = 0;
    private static final int QUEUED = 1;
    private static final int READING = 2;

    /** Whether buffers wait in the queue, as the consumer's fast path sees it without the lock. */
    @SuppressWarnings("GuardedBy") // a volatile read; busyWith decides under the lock
    private boolean queuedSeen() {
        return queued > 0;
    }

    /**
     * Whether channel {@code index} may start reading its next entry: {@link #FREE}; {@link
     * #QUEUED} while handed-over buffers wait to be polled (of any channel: they may be its);
     * {@link #READING} while a session of it is open.
     */
    private synchronized int busyWith(int index) {
        for (ChannelReader session : sessions) {
            if (session != null && session.index == index) {
                return READING;
            }
        }
        return queue.isEmpty() ? FREE : QUEUED;
    }

    /**
     * Opens a session with the IO thread for channel {@code index}: all of its blocking partition,
     * or {@code region} of its hybrid one; false if every slot is taken.
     */
    private boolean openSession(int index, @Nullable HybridRegion region) {
        ResultPartition partition =
                region != null ? region.partition() : Objects.requireNonNull(feed.partition(index));
        synchronized (this) {
            if (closed || failure != null) {
                return true; // nothing to read any more: the entry is skipped
            }
            for (int slot = 0; slot < MAX_SESSIONS; slot++) {
                if (sessions[slot] == null) {
                    ChannelReader session =
                            new ChannelReader(this, index, slot, partition, subpartition, region);
                    sessions[slot] = session;
                    sessionCount = sessionCount + 1; // written only under the lock
                    partition.readers.add(session);
                    turns[slot] = WANTING;
                    wanting.add(session);
                    opened = true;
                    return true;
                }
            }
            return false;
        }
    }

    private synchronized void dispatch() {
        dispatchLocked();
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

    /**
     * Whether every channel ended and every buffer was polled: the feed is complete, every entry
     * was read and every session ended.
     */
    @Override
    public boolean isFinished() {
        if (!taken.isEmpty() || memory.reading()) {
            return false;
        }
        if (!finishedReading && feed.isComplete() && cursor == feed.size()) {
            finishedReading = true;
        }
        synchronized (this) {
            return isFinishedLocked();
        }
    }

    /**
     * What the gate stands at, for a message about a consumer that waits: its cursor in the feed,
     * its sessions, its queue, whether it reads in memory.
     */
    @Override
    public synchronized String toString() {
        return "gate '"
                + name
                + "' at entry "
                + cursor
                + " of "
                + feed.size()
                + (feed.isComplete() ? " (all)" : "")
                + ", "
                + sessionCount
                + " sessions ("
                + inService
                + " in service), "
                + queue.size()
                + " queued, "
                + (memory.reading() ? "reading in memory, " : "")
                + pagesHeld
                + " pages"
                + (finishedReading ? ", read to the end" : "");
    }

    /** Pages this gate holds (queued and polled-but-not-recycled). */
    @Override
    public int pagesInUse() {
        return owner.pagesInUse();
    }

    /**
     * Stops reading: queued buffers are recycled; buffers the consumer still holds are recycled by
     * it later, after which the gate's pages are all back. A gate closed before its end abandons
     * its subpartition: of a partition read once, its data still unread is let go. Idempotent.
     * O(entries not read).
     */
    @Override
    public void close() {
        List<LocalBuffer> drop;
        List<ChannelReader> cancel = new ArrayList<>();
        boolean abandoned;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            abandoned = !isFinishedLocked();
            drop = new ArrayList<>(queue);
            drop.addAll(taken);
            queue.clear();
            taken.clear();
            queueBytes = 0;
            queued = 0;
            takenBytes = 0;
            wanting.clear();
            for (ChannelReader session : sessions) {
                if (session != null) {
                    cancel.add(session);
                }
            }
            availability.complete(null);
        }
        scheduler.cancel(cancel);
        for (LocalBuffer buffer : drop) {
            buffer.recycle();
        }
        memory.abandon();
        if (abandoned) {
            abandonUnread();
        }
        feed.unregister(subpartition, abandoned, this);
        if (ownsFeed) {
            feed.close();
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

    /** Lets go of the regions with data for this gate that it did not read (closed early). */
    private void abandonUnread() {
        int[] partitions = new int[BATCH];
        HybridRegion[] regions = new HybridRegion[BATCH];
        for (int from = cursor; ; ) {
            int n = feed.entries(from, partitions, regions, BATCH);
            if (n == 0) {
                return;
            }
            for (int e = 0; e < n; e++) {
                HybridRegion region = regions[e];
                if (region != null && region.holdsDataFor(subpartition)) {
                    region.partition().abandonRegion(region, subpartition, feed);
                }
            }
            from += n;
        }
    }

    /**
     * Whether {@code io} is the IO scheduler of this gate's worker, the only one that may serve its
     * sessions (see {@link IoScheduler}'s joining of waiting readers).
     */
    boolean isServedBy(IoScheduler io) {
        return scheduler == io;
    }

    /** The feed advanced (an entry, its end, a failure): a consumer waiting for it is woken. */
    void feedAdvanced() {
        synchronized (this) {
            availability.complete(null);
        }
    }

    /**
     * Called by the IO thread while it reads the file of {@code session} for another gate: gives
     * the session its turn now, out of order, if it is waiting and a page is free; true if so (the
     * IO thread then serves it and calls {@link #served}).
     *
     * <p>A free page, as {@link #dispatchLocked} asks, not just room left in the current page: a
     * session given a turn for the rest of a page whose next frame does not fit reads and takes
     * nothing, and while its consumer holds the gate's other pages it was given that turn again in
     * every round, spending the file's read budget before the sessions after it in the file, which
     * then never read (reliability row 24: consumers holding a buffer of one gate while waiting for
     * another, at the minimum budget, starved for ever).
     */
    synchronized boolean tryDispatchNow(ChannelReader session) {
        if (closed || failure != null || !has(session, WANTING) || pagesHeld >= capacity) {
            return false;
        }
        enterService(session); // its entry in the FIFO is skipped
        return true;
    }

    /**
     * Called by the IO thread before it reads for one of this gate's sessions: the bytes worth
     * reading for it now, at most {@link #MAX_TURN_PAGES} pages (one page when the gate has more
     * partitions than that many pages each) and at most what the gate can take — the room in its
     * current page plus its free pages. Takes no lock: the consumer only frees room meanwhile (or
     * takes a little for a compressed frame it reads in memory), so a stale view errs by a refused
     * frame at most, and {@link #tryTake} decides under the lock.
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
     * Room for the next buffer of {@code bytes} of channel {@code index}, as a buffer not yet
     * queued: by the IO thread for a session, by the consumer for a compressed frame it reads in
     * memory. Small buffers of any channels are packed into the gate's current page; a new page is
     * taken while the gate holds fewer than its pages. Null if the gate closed or failed or has no
     * room for it (or, rarely, the pool is short): a session then waits its next turn, the consumer
     * for a recycle. Allocates the buffer and its slice of the page, and a {@link SharedPage} when
     * it starts a new page.
     */
    @SuppressWarnings("NonAtomicVolatileUpdate") // written only under the gate's lock
    synchronized @Nullable LocalBuffer tryTake(int index, int bytes) {
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
        return new LocalBuffer(this, index, fill, fill.slice(bytes), bytes);
    }

    /** The consumer found no room for a compressed frame: woken by the next recycle. */
    synchronized void wantRoom() {
        roomWanted = true;
    }

    /**
     * Called by the IO thread after serving {@code session}: it leaves service, and queues again
     * for its next turn if it has more data.
     */
    synchronized void served(ChannelReader session, boolean wantsMore) {
        if (sessions[session.slot] != session) {
            return; // ended meanwhile
        }
        if (has(session, IN_SERVICE)) {
            turns[session.slot] &= ~IN_SERVICE;
            inService--;
        }
        if (wantsMore && !closed && failure == null && !session.done) {
            turns[session.slot] |= WANTING;
            wanting.add(session);
        }
        dispatchLocked();
    }

    /** Whether the gate was closed or failed: its sessions stop. */
    synchronized boolean isClosedOrFailed() {
        return closed || failure != null;
    }

    /**
     * Hands waiting sessions to the scheduler while the gate has a free page (room for any frame)
     * and fewer sessions in service than its pages and {@value #MAX_IN_SERVICE}.
     */
    @GuardedBy("this")
    private void dispatchLocked() {
        while (!closed
                && failure == null
                && !wanting.isEmpty()
                && inService < maxInService
                && pagesHeld < capacity) {
            ChannelReader session = wanting.poll();
            if (sessions[session.slot] != session || !has(session, WANTING)) {
                continue; // served out of order meanwhile, or ended
            }
            enterService(session);
            scheduler.ready(session);
        }
    }

    @GuardedBy("this")
    private boolean has(ChannelReader session, byte bit) {
        return (turns[session.slot] & bit) != 0;
    }

    /** A waiting session gets its turn: it leaves the FIFO (its entry is skipped) for service. */
    @GuardedBy("this")
    private void enterService(ChannelReader session) {
        turns[session.slot] = (byte) ((turns[session.slot] & ~WANTING) | IN_SERVICE);
        inService++;
    }

    /**
     * Called by the IO thread: {@code buffer} (from {@link #tryTake}) holds decoded data; the
     * consumer sees it at the next {@link #publish}. No lock. True if the gate had nothing to
     * publish before (the caller then publishes it once it is done with the gate for now).
     */
    boolean deliver(LocalBuffer buffer) {
        decoded.add(buffer);
        return decoded.size() == 1 && ended.isEmpty();
    }

    /**
     * Called by the IO thread: {@code session} has no more data (its partition, or its region),
     * which the consumer sees at the next {@link #publish} (after the session's last buffers); its
     * slot is free then. True as {@link #deliver}.
     */
    boolean channelFinished(ChannelReader session) {
        ended.add(session);
        return decoded.isEmpty() && ended.size() == 1;
    }

    /**
     * Called by the IO thread at the end of a round: hands everything it delivered since the last
     * call to the consumer in one lock, and frees the slots of the sessions that ended; true if it
     * handed over buffers. O(buffers + sessions ended); allocates nothing.
     *
     * <p>The consumer of a gate of blocking partitions is woken (its {@link #availability()}
     * completed) only when waiting longer would not bring more: the gate ended, failed or closed,
     * {@code force} is set (the IO thread is about to idle), no session of the gate is in the IO
     * thread's hands, the gate holds half its pages, a session ended (the consumer may open the
     * next), or the first deferred buffer waited {@value #MAX_WAKE_DELAY} ns. Otherwise the wake-up
     * is deferred ({@link #wakeDeferred}) and the IO thread calls again after its next round.
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
                queued = queue.size();
            }
            for (int i = 0; i < ended.size(); i++) {
                endLocked(ended.get(i));
            }
            boolean pending = (!queue.isEmpty() || !ended.isEmpty()) && !availability.isDone();
            boolean wake =
                    force
                            || hybridSeen
                            || !ended.isEmpty()
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
        ended.clear();
        return handed;
    }

    /** {@code session} ended: its slot is free. */
    @GuardedBy("this")
    @SuppressWarnings("NonAtomicVolatileUpdate") // written only under the gate's lock
    private void endLocked(ChannelReader session) {
        if (sessions[session.slot] == session) {
            if (has(session, IN_SERVICE)) {
                inService--;
            }
            sessions[session.slot] = null;
            turns[session.slot] = 0;
            sessionCount--;
        }
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

    /** The gate fails with {@code cause} (the IO thread's, or the consumer's read). */
    void fail(PartitionLostException cause) {
        List<ChannelReader> cancel = new ArrayList<>();
        synchronized (this) {
            if (failure == null) {
                failure = cause;
            }
            wanting.clear();
            for (ChannelReader session : sessions) {
                if (session != null) {
                    cancel.add(session);
                }
            }
            availability.complete(null);
        }
        scheduler.cancel(cancel);
    }

    @GuardedBy("this")
    private boolean isFinishedLocked() {
        return finishedReading && sessionCount == 0 && queue.isEmpty();
    }

    /** One slice of {@code shared} is done with; the page goes back when none is out. */
    void release(SharedPage shared) {
        synchronized (this) {
            if (shared.releaseSlice()) {
                if (shared == filling) {
                    filling = null; // an idle page would hold room other gates' pages need
                }
                recycleLocked(shared.page);
                if (roomWanted) {
                    roomWanted = false;
                    availability.complete(null);
                }
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
         * The bytes left in the page, read without the lock by the IO thread, which slices almost
         * all of them (so it mostly reads its own count).
         */
        @SuppressWarnings("GuardedBy") // the IO thread's own writes, read without the lock
        int roomSeen() {
            return gate.pageSize - used;
        }
    }

    /**
     * A decoded buffer of one channel in a page of the gate: {@link #data()} holds a run of that
     * channel's record stream (records may continue into the channel's next buffer). Small buffers
     * share a page; recycle each exactly once.
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
         * any thread. O(1); allocates nothing while no request waits in the pool.
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

        /** Called when decoding into it failed. */
        void discard() {
            recycle();
        }
    }
}
