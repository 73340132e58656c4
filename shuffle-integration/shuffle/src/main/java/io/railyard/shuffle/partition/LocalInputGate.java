package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.buffer.BufferOwner;
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
 * #close()} are called by the consumer, and its walk along the feed ({@link FeedWalk}: the cursor,
 * and the region read in memory) is its own, and so is what the IO thread hands it during a round
 * ({@link GateRound}) the IO thread's; buffers may be recycled from any thread. The gate's monitor
 * guards its queue of published buffers ({@link GateQueue}), its sessions and their turns ({@link
 * GateSessions}) and its pages' accounting ({@link GatePages}, {@link SharedPage}): the helpers
 * reached through a field it guards take no lock, the others take the gate's monitor themselves.
 * Its place in the lock order is in the {@code io.railyard.shuffle} package documentation. A few
 * fields are written under it and read without it by the IO thread ({@link #turnBytes()}) or the
 * consumer's fast path ({@link #poll()}): they are volatile, and those reads are the only accesses
 * outside the lock.
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

    private final String name;
    private final BufferOwner owner;
    private final IoScheduler scheduler;
    private final PartitionFeed feed;
    private final boolean ownsFeed;
    private final int subpartition;
    private final Consumer<LocalInputGate> onClose;

    // Only gates of blocking partitions defer wake-ups: a hybrid consumer that is late lets its
    // producers' memory fill, and the rest is spilled and read back from disk.
    private volatile boolean hybridSeen;

    // Its count of open sessions is read without the lock by the consumer's fast path.
    @GuardedBy("this")
    private final GateSessions sessions;

    // Its count of pages held and its page being filled are read without the lock by turnBytes().
    @GuardedBy("this")
    private final GatePages pages;

    // Published buffers, and those the consumer took in one lock (takes this monitor itself).
    private final GateQueue queue = new GateQueue(this);

    // Confined to the consumer: the walk along the feed.
    private final FeedWalk walk;
    private boolean finishedReading; // every entry was read to its end (the consumer's)
    private boolean opened; // sessions were opened and not yet dispatched (the consumer's)

    // Confined to the IO thread: what it handed this gate this round (see publish).
    private final GateRound round = new GateRound(this);

    @GuardedBy("this")
    private CompletableFuture<Void> availability = new CompletableFuture<>();

    // Why the gate failed: a PartitionLostException, or an IllegalStateException once the
    // worker's IO thread died; read without the lock by poll() and turnBytes().
    @GuardedBy("this")
    private volatile @Nullable Exception failure;

    // Read without the lock by turnBytes().
    @GuardedBy("this")
    private volatile boolean closed;

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
        int capacity = owner.guaranteedPages();
        int pageSize = scheduler.pageSize();
        // Many partitions: one page per turn (sections are small), so more sessions can be in
        // flight at once and joined into shared reads; few: deeper read-ahead.
        int turnPages =
                (long) feed.numPartitions() * MAX_TURN_PAGES > capacity ? 1 : MAX_TURN_PAGES;
        this.pages = new GatePages(this, owner, capacity, pageSize, (long) turnPages * pageSize);
        this.sessions =
                new GateSessions(MAX_SESSIONS, Math.max(1, Math.min(capacity, MAX_IN_SERVICE)));
        this.walk =
                new FeedWalk(this, feed, subpartition, new MemoryReads(this, subpartition, frames));
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
        walk.beforePark(hook);
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
        LocalBuffer next = queue.pollTaken();
        if (next == null) {
            next = takePublished();
        }
        return next != null ? next : walk.next();
    }

    /** A poll found nothing: a completed availability is replaced by a new one. */
    private synchronized void arm() {
        if (availability.isDone() && !isFinishedLocked() && !closed && failure == null) {
            availability = new CompletableFuture<>();
        }
    }

    /**
     * The next published buffer, taking every one published so far in one lock; null if none was.
     * The walk takes them too: an earlier entry's buffers come before the next entry's.
     */
    synchronized @Nullable LocalBuffer takePublished() throws PartitionLostException {
        throwIfFailed(failure);
        return queue.takePublished();
    }

    /**
     * Starts reading at once: hands the IO thread the first entries that are on disk (as many as it
     * has session slots), before the consumer's first poll; what is in memory waits for the
     * consumer. On the thread that opened the gate, which then hands it to its consumer.
     */
    void prefetch() {
        walk.prefetch();
    }

    /** The walk met a region of a hybrid partition with data for this gate. */
    void hybridRegionSeen() {
        hybridSeen = true;
    }

    /** The walk read every entry of the complete feed to its end. */
    void readToTheEnd() {
        finishedReading = true;
        synchronized (this) {
            if (isFinishedLocked()) {
                availability.complete(null);
            }
        }
    }

    /** Sessions open, as the consumer's fast path sees them without the lock. */
    @SuppressWarnings("GuardedBy") // a volatile read of a final field's; busyWith decides
    private int sessionsSeen() {
        return sessions.countSeen();
    }

    /** {@link #channelBusy}: a channel may start reading its next entry. */
    static final int FREE = 0;

    /** {@link #channelBusy}: handed-over buffers wait to be polled (of any channel). */
    static final int QUEUED = 1;

    /** {@link #channelBusy}: a session of the channel is open. */
    static final int READING = 2;

    /**
     * Whether channel {@code index} may start reading its next entry: {@link #FREE}; {@link
     * #QUEUED} while handed-over buffers wait to be polled (of any channel: they may be its);
     * {@link #READING} while a session of it is open. Takes the lock only if the consumer's look
     * without it sees sessions open or buffers queued.
     */
    int channelBusy(int index) {
        return sessionsSeen() > 0 || queue.queuedSeen() ? busyWith(index) : FREE;
    }

    private synchronized int busyWith(int index) {
        if (sessions.isReading(index)) {
            return READING;
        }
        return queue.isEmpty() ? FREE : QUEUED;
    }

    /**
     * Opens a session with the IO thread for channel {@code index}: all of its blocking partition,
     * or {@code region} of its hybrid one; false if every slot is taken. The consumer hands the
     * sessions it opened to the IO thread with {@link #dispatchOpened}.
     */
    boolean openSession(int index, @Nullable HybridRegion region) {
        ResultPartition partition =
                region != null ? region.partition() : Objects.requireNonNull(feed.partition(index));
        synchronized (this) {
            if (closed || failure != null) {
                return true; // nothing to read any more: the entry is skipped
            }
            int slot = sessions.freeSlot();
            if (slot < 0) {
                return false;
            }
            ChannelReader session =
                    new ChannelReader(this, index, slot, partition, subpartition, region);
            sessions.open(session);
            partition.readers.add(session);
            opened = true;
            return true;
        }
    }

    /** Hands the sessions the consumer opened to the IO thread, in one lock (the consumer's). */
    void dispatchOpened() {
        if (opened) {
            opened = false;
            synchronized (this) {
                dispatchLocked();
            }
        }
    }

    /** Bytes of the buffers {@link #poll()} returns without waiting. O(1). */
    @Override
    public long bytesReady() {
        return queue.bytesReady();
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
        if (!queue.takenIsEmpty() || walk.readingInMemory()) {
            return false;
        }
        if (!finishedReading && feed.isComplete() && walk.position() == feed.size()) {
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
                + walk.position()
                + " of "
                + feed.size()
                + (feed.isComplete() ? " (all)" : "")
                + ", "
                + sessions.count()
                + " sessions ("
                + sessions.inService()
                + " in service), "
                + queue.size()
                + " queued, "
                + (walk.readingInMemory() ? "reading in memory, " : "")
                + pages.held()
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
        List<ChannelReader> cancel;
        boolean abandoned;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            abandoned = !isFinishedLocked();
            drop = queue.clear();
            sessions.stopWanting();
            cancel = sessions.all();
            availability.complete(null);
        }
        scheduler.cancel(cancel);
        for (LocalBuffer buffer : drop) {
            buffer.recycle();
        }
        walk.abandonMemoryRead();
        // Unregistered first: a region published from now on is passed for it at publication,
        // and those published before are passed below (passing twice is a no-op).
        feed.unregister(subpartition, abandoned, this);
        if (abandoned) {
            walk.abandonRest(); // the regions with data for it that it did not read
        }
        if (ownsFeed) {
            feed.close();
        }
        synchronized (this) {
            pages.closed();
        }
        closeOwnerIfIdle();
        onClose.accept(this);
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
        if (closed || failure != null || !sessions.isWanting(session) || !pages.hasFreePage()) {
            return false;
        }
        sessions.enterService(session); // its entry in the FIFO is skipped
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
        return pages.turnBytesSeen();
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
    synchronized @Nullable LocalBuffer tryTake(int index, int bytes) {
        if (closed || failure != null) {
            return null;
        }
        return pages.take(index, bytes);
    }

    /** The consumer found no room for a compressed frame: woken by the next recycle. */
    synchronized void wantRoom() {
        pages.wantRoom();
    }

    /**
     * Called by the IO thread after serving {@code session}: it leaves service, and queues again
     * for its next turn if it has more data.
     */
    synchronized void served(ChannelReader session, boolean wantsMore) {
        if (!sessions.isOpen(session)) {
            return; // ended meanwhile
        }
        sessions.served(session, wantsMore && !closed && failure == null && !session.done);
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
        while (!closed && failure == null && pages.hasFreePage()) {
            ChannelReader session = sessions.nextTurn();
            if (session == null) {
                return; // none waits, or as many as may be are in service
            }
            scheduler.ready(session);
        }
    }

    /** What the IO thread hands this gate during its current round (the IO thread's). */
    GateRound round() {
        return round;
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
     * is deferred ({@link GateRound#wakeDeferred}) and the IO thread calls again after its next
     * round.
     */
    boolean publish(boolean force) {
        List<LocalBuffer> decoded = round.decoded();
        List<ChannelReader> ended = round.ended();
        boolean drop;
        synchronized (this) {
            drop = closed;
            if (!drop) {
                queue.publish(decoded);
            }
            for (int i = 0; i < ended.size(); i++) {
                sessions.end(ended.get(i)); // its slot is free
            }
            boolean pending = (!queue.isEmpty() || !ended.isEmpty()) && !availability.isDone();
            boolean due =
                    force
                            || hybridSeen
                            || !ended.isEmpty()
                            || failure != null
                            || isFinishedLocked()
                            || sessions.inService() == 0
                            || pages.halfHeld();
            boolean wake = round.wake(pending, due);
            if ((pending && wake) || isFinishedLocked()) {
                availability.complete(null);
            }
        }
        if (drop) {
            for (int i = 0; i < decoded.size(); i++) {
                release(decoded.get(i).shared());
            }
        }
        return round.end();
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
            sessions.stopWanting();
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
        List<ChannelReader> cancel;
        synchronized (this) {
            if (failure == null) {
                failure = cause;
            }
            sessions.stopWanting();
            cancel = sessions.all();
            availability.complete(null);
        }
        scheduler.cancel(cancel);
    }

    @GuardedBy("this")
    private boolean isFinishedLocked() {
        return finishedReading && sessions.count() == 0 && queue.isEmpty();
    }

    /** One slice of {@code shared} is done with; the page goes back when none is out. */
    void release(SharedPage shared) {
        synchronized (this) {
            if (pages.release(shared)) {
                availability.complete(null); // the consumer waited for room
            }
            dispatchLocked();
        }
        closeOwnerIfIdle();
    }

    private void closeOwnerIfIdle() {
        synchronized (this) {
            if (closed && pages.held() == 0) {
                owner.close();
            }
        }
    }
}
