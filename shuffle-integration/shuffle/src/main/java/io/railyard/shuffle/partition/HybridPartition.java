package io.railyard.shuffle.partition;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * A hybrid result partition: consumers read while the producer still produces, from memory when the
 * data is still there and from disk otherwise; each frame is delivered exactly once, in order,
 * whichever side holds it.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li><b>Regions.</b> The writer drains its sort buffer (memory independent of the number of
 *       subpartitions) into sealed {@link HybridRegion regions} laid out exactly as sort-file
 *       regions. A region is sealed into pages borrowed from the pool (resident) when memory
 *       allows, else written straight to the data file. A reader holds a cursor (region, byte in
 *       its section); disk bytes equal memory bytes, so it continues at the same byte wherever the
 *       data is next. Exactly once by construction: the cursor only moves forward, over frames it
 *       was handed.
 *   <li><b>Selective ({@link PartitionKind#HYBRID_SELECTIVE}, and {@link
 *       PartitionKind#PIPELINED}).</b> Consumed data never reaches disk: a region's pages are
 *       dropped when every subpartition read it. Under pressure — the pool asking back borrowed
 *       pages (revocation), or the writer finding the pool above {@code
 *       shuffle.hybrid.memory-fraction} — the IO thread spills the unconsumed rest of the newest
 *       regions (needed latest) to the spill file and drops their pages. A subpartition is read
 *       once: a second reader fails with {@link PartitionLostException}, so failover reruns the
 *       producer.
 *   <li><b>Full ({@link PartitionKind#HYBRID_FULL}).</b> Every byte reaches the data file
 *       (write-through, after the region is visible in memory); a region is never dropped before
 *       its write completed. Pages go when every subpartition read the region, or under pressure. A
 *       new reader of a subpartition re-reads it from the first frame (memory or disk).
 *   <li><b>Memory.</b> Resident pages are borrowed beyond the writer's guarantee, so the pool can
 *       always ask them back; a finished writer lowers its guarantee to 0 and the partition keeps
 *       only borrowed pages. The pool asks once per shortfall: pages a requested spill cannot free
 *       yet (a region still being sealed, or written through) are owed, and the spill runs again
 *       when a resident region is published or a write-through ends.
 * </ul>
 *
 * <h2>Threading</h2>
 *
 * The producer's writer publishes regions; the worker's IO thread reads, spills and drops; anyone
 * may release. One lock (this partition's monitor) guards the region list and their resident pages
 * ({@link HybridRegions}), the regions' state (which {@link HybridRegion} changes only under it),
 * who reads and the readers' progress ({@link HybridReaders}, {@link HybridCursors}) and what the
 * spill was asked ({@link HybridSpill}); its place in the lock order is in the {@code
 * io.railyard.shuffle} package documentation. Nothing here calls a gate, a listener or the pool
 * while holding it (pages are recycled and readers woken after it is released), and the revocation
 * listener only enqueues work for the IO thread. Disk IO never runs under the lock either. A
 * reader's cursor is the IO thread's; the partition moves it ({@link HybridCursors}) through the
 * reader's methods.
 */
public final class HybridPartition extends ResultPartition {
    /**
     * How long in all a pipelined producer waits for room while some consumer has not attached yet.
     * A consumer with a slot on the producer's worker attaches within milliseconds of its
     * deployment; one on another worker first connects and opens its stream over the network, which
     * took about 250 ms on loopback in a fresh JVM on 2 cores (200 ms was too short: the producer
     * went on as selective and wrote to disk).
     */
    public static final long ABSENT_CONSUMER_WAIT_MILLIS = 1_000;

    private final PartitionKind kind;
    private final HybridFiles files;
    private final BufferOwner owner;
    private final LeftoverFiles leftovers;

    @GuardedBy("this")
    private final HybridTally tally;

    private final HybridCounters worker;

    @GuardedBy("this")
    private final HybridRegions regions;

    // Who reads its regions (ResultPartition.readers are the gates' sessions with the IO thread).
    @GuardedBy("this")
    private final HybridReaders hybridReaders;

    /** Moves the IO thread's readers; takes this partition's monitor itself. */
    private final HybridCursors cursors;

    /** Spills on the IO thread; takes this partition's monitor itself. */
    private final HybridSpill spill;

    @GuardedBy("this")
    private final ProducerRoom room = new ProducerRoom();

    @GuardedBy("this")
    private boolean finished;

    @GuardedBy("this")
    private boolean writerDone;

    @GuardedBy("this")
    private boolean released;

    @GuardedBy("this")
    private @Nullable String lostReason;

    @GuardedBy("this")
    private @Nullable Throwable lostCause;

    HybridPartition(
            PartitionId id,
            int numSubpartitions,
            PartitionKind kind,
            Path dataFile,
            Path spillFile,
            BufferOwner owner,
            Executor io,
            HybridCounters worker,
            LeftoverFiles leftovers) {
        super(id, numSubpartitions);
        checkArgument(kind.isReadableWhileWritten(), "a hybrid partition cannot be %s", kind);
        this.kind = kind;
        this.files = new HybridFiles(id, dataFile, spillFile);
        this.owner = owner;
        this.tally = new HybridTally(worker);
        this.worker = worker;
        this.regions = new HybridRegions(tally);
        this.hybridReaders = new HybridReaders(kind.isReadOnce(), numSubpartitions);
        this.cursors = new HybridCursors(this, regions, hybridReaders, tally, files);
        this.spill = new HybridSpill(this, regions, tally, files, owner, io);
        this.leftovers = leftovers;
    }

    /**
     * {@link PartitionKind#HYBRID_FULL}, {@link PartitionKind#HYBRID_SELECTIVE} or {@link
     * PartitionKind#PIPELINED}.
     */
    public PartitionKind kind() {
        return kind;
    }

    /** Whether each subpartition can be read only once (selective and pipelined). */
    private boolean readOnce() {
        return kind.isReadOnce();
    }

    @Override
    public List<Path> files() {
        return List.of(files.dataFile(), files.spillFile());
    }

    @Override
    public synchronized boolean isReleased() {
        return released;
    }

    /** Whether the producer finished (every region is published). */
    public synchronized boolean isFinished() {
        return finished;
    }

    /** The counters so far. O(1); allocates the record. */
    public synchronized HybridStats stats() {
        return tally.stats();
    }

    /**
     * Drops every resident page, deletes both files, and fails current and later readers with
     * {@link PartitionLostException} ("released"). A producer still writing fails at its next
     * region. Idempotent. O(regions).
     *
     * @throws IOException if a file cannot be deleted (it is retried when the worker closes)
     */
    @Override
    public void release() throws IOException {
        List<Page> drop;
        List<HybridReader> wake;
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            loseLocked("the partition was released", null);
            drop = regions.dropAll(false);
            wake = hybridReaders.takeParked();
        }
        finishLoss(drop, wake);
        IOException failure = leftovers.deleteAll(files(), null);
        if (failure != null) {
            throw failure;
        }
    }

    // ---- the writer ----

    /** Path of the data file (named in write errors). */
    Path dataFile() {
        return files.dataFile();
    }

    /** The owner of the writer's pages and of the resident regions. */
    BufferOwner owner() {
        return owner;
    }

    /** Resident pages now. */
    synchronized int residentPages() {
        return tally.residentPages();
    }

    /**
     * Bytes that consumers read from resident regions of any hybrid or pipelined partition of the
     * worker so far: it grows while they read, whether or not a region drains yet ({@link
     * PoolRoom}'s sign of progress). Thread-safe, O(cells of a {@link
     * java.util.concurrent.atomic.LongAdder}).
     */
    long workerBytesReadFromMemory() {
        return worker.readFromMemory.sum();
    }

    /**
     * Pipelined: whether the producer may add data now, without waiting. It may while the partition
     * holds fewer than {@code bound} resident pages, once the partition is lost (its next write
     * fails), and for the other modes always. At the bound it should pause — for as long as it
     * takes while every subpartition has a consumer attached (consumption makes room), else for
     * what is left of {@link #ABSENT_CONSUMER_WAIT_MILLIS} in all, after which it may go on as
     * selective. Any thread; O(1) plus the waker's registration.
     *
     * @param waker run once, on the thread that drops pages or loses the partition, when room may
     *     have come back (registered only when this returns a pause)
     * @return 0 if the producer may go on now; otherwise the nanoseconds after which it should look
     *     again at the latest ({@link Long#MAX_VALUE}: only once {@code waker} runs)
     */
    long roomWaitNanos(int bound, Runnable waker) {
        if (kind != PartitionKind.PIPELINED) {
            return 0;
        }
        long now = System.nanoTime();
        synchronized (this) {
            boolean atBound = lostReason == null && tally.residentPages() >= bound;
            long pause = room.pauseNanos(now, atBound, hybridReaders.everyAttached(), waker);
            if (pause > 0) {
                tally.backpressureWait();
            }
            return pause;
        }
    }

    /** Runs the wakers of a pipelined producer pausing for room, outside the lock. */
    private void wakeProducer() {
        List<Runnable> wake;
        synchronized (this) {
            wake = room.takeWaiters();
        }
        for (Runnable waker : wake) {
            waker.run();
        }
    }

    /** Resident pages of the regions a reader pins now (tests). */
    synchronized int pinnedPages() {
        return regions.pinnedPages();
    }

    /** Times the pipelined producer waited for its consumers (tests). */
    synchronized int backpressureWaits() {
        return tally.backpressureWaits();
    }

    /** Readers attached now. */
    synchronized int attachedReaders() {
        return hybridReaders.attachedNow();
    }

    /**
     * Makes a region resident in {@code pages} (page {@code i} holding stream bytes {@code
     * [pageStart[i], pageStart[i + 1])}) readable and wakes readers waiting for data; with {@code
     * writeThrough}, the writer writes it to the data file next and reports {@link #written}.
     * Returns the region.
     *
     * @throws PartitionLostException touching nothing, if the partition was released or failed: the
     *     writer then gives the pages back itself
     */
    HybridRegion publishResident(
            boolean broadcast,
            int[] sectionStart,
            Page[] pages,
            int[] pageStart,
            boolean writeThrough)
            throws PartitionLostException {
        return publish(broadcast, sectionStart, pages, pageStart, -1, writeThrough);
    }

    /**
     * Makes a region written at {@code fileOffset} of the data file (only) readable and wakes
     * readers waiting for data.
     *
     * @throws PartitionLostException touching nothing, if the partition was released or failed
     */
    void publishOnDisk(boolean broadcast, int[] sectionStart, long fileOffset)
            throws PartitionLostException {
        publish(broadcast, sectionStart, null, null, fileOffset, false);
    }

    private HybridRegion publish(
            boolean broadcast,
            int[] sectionStart,
            Page @Nullable [] pages,
            int @Nullable [] pageStart,
            long fileOffset,
            boolean writeThrough)
            throws PartitionLostException {
        List<Page> drop = List.of();
        List<HybridReader> wake;
        List<LocalInputGate> gates;
        int owed;
        HybridRegion region;
        synchronized (this) {
            checkNotLostLocked();
            region =
                    new HybridRegion(
                            this,
                            regions.size(),
                            broadcast,
                            sectionStart,
                            pages,
                            pageStart,
                            fileOffset,
                            writeThrough);
            region.countReaders(hybridReaders.abandoned());
            regions.add(region); // its pages count as resident
            tally.produced(region.length());
            if (fileOffset >= 0) {
                tally.writtenToDisk(region.length());
            }
            wake = hybridReaders.takeParked();
            // The feeds let it go for the subpartitions abandoned there: count after them.
            gates = hybridReaders.regionPublished(region);
            if (region.readersLeft() == 0) {
                drop = regions.drop(region);
            }
            owed = region.isResident() ? spill.takeOwed() : 0; // freeable now: ask again
        }
        recycle(drop);
        wakeAll(wake);
        PartitionFeed.wakeAll(gates);
        requestSpill(owed);
        return region;
    }

    /** The write-through of {@code region} (full mode) completed at {@code fileOffset}. */
    void written(HybridRegion region, long fileOffset) {
        List<Page> drop;
        int owed;
        synchronized (this) {
            drop = regions.dropped(region.written(fileOffset));
            tally.writtenToDisk(region.length());
            owed = spill.takeOwed();
        }
        recycle(drop);
        requestSpill(owed);
    }

    /** The producer finished: readers past the last region end. */
    void finishProducing() {
        List<HybridReader> wake;
        List<LocalInputGate> gates;
        synchronized (this) {
            finished = true;
            wake = hybridReaders.takeParked();
            gates = hybridReaders.producerFinished();
        }
        wakeAll(wake);
        PartitionFeed.wakeAll(gates);
    }

    /**
     * The writer failed or was abandoned: the partition is lost ({@code reason}, {@code cause}),
     * its pages dropped and its files deleted (failures recorded with the worker and added to
     * {@code propagating}).
     */
    void writerFailed(String reason, @Nullable Throwable cause, @Nullable Throwable propagating) {
        lose(reason, cause, true);
        leftovers.deleteAll(files(), propagating);
    }

    /** The writer gave its working pages back; the owner closes once nothing is held. */
    void writerDone() {
        synchronized (this) {
            writerDone = true;
        }
        closeOwnerIfIdle();
    }

    /**
     * Asks the IO thread to move {@code pages} resident pages out of memory (the revocation
     * listener, and the writer above the memory fraction). Only enqueues. O(1).
     */
    void requestSpill(int pages) {
        spill.request(pages);
    }

    // ---- readers (the IO thread): HybridCursors moves them ----

    /**
     * Attaches a reader of the whole stream of {@code subpartition} ({@link
     * HybridCursors#attach(int, Runnable)}).
     *
     * @throws PartitionLostException if the partition is lost, or (selective) the subpartition was
     *     read before
     */
    HybridReader attach(int subpartition, Runnable waker) throws PartitionLostException {
        return cursors.attach(subpartition, waker);
    }

    /**
     * Attaches a reader of {@code subpartition}'s section of {@code region} only ({@link
     * HybridCursors#attach(int, HybridRegion, PartitionFeed)}).
     *
     * @throws PartitionLostException if the partition is lost, or (selective) the subpartition read
     *     the region before
     */
    HybridReader attach(int subpartition, HybridRegion region, PartitionFeed feed)
            throws PartitionLostException {
        return cursors.attach(subpartition, region, feed);
    }

    /**
     * Points {@code reader} at where its next bytes are ({@link HybridCursors#locate}).
     *
     * @throws PartitionLostException if the partition is lost
     */
    HybridReader.Where locate(HybridReader reader) throws IOException {
        return cursors.locate(reader);
    }

    /**
     * {@code reader} took {@code bytes} of what it was pointed at ({@link HybridCursors#consumed}).
     */
    void consumed(HybridReader reader, int bytes, boolean fromMemory) {
        cursors.consumed(reader, bytes, fromMemory);
    }

    /** {@code reader} stops, at the end or abandoned ({@link HybridCursors#detach}). */
    void detach(HybridReader reader, boolean completed) {
        cursors.detach(reader, completed);
    }

    /** Why {@code subpartition} cannot be read (read once): it was, and its data is gone. */
    PartitionLostException readBefore(int subpartition) {
        return new PartitionLostException(
                id(),
                "subpartition "
                        + subpartition
                        + " of this "
                        + (kind == PartitionKind.PIPELINED ? "pipelined" : "hybrid-selective")
                        + " partition was read before and its data is gone (consumed"
                        + " data is kept nowhere); the producer must run again",
                null);
    }

    // ---- feeds: gates read one region at a time ----

    /**
     * {@code feed} reads this partition as its partition {@code index}: every region published so
     * far and every later one becomes an entry there, and so does the end of production; a region
     * the feed's abandoned subpartitions were the last to need is dropped. O(regions so far).
     */
    void attachFeed(PartitionFeed feed, int index) {
        List<LocalInputGate> gates;
        List<Page> drop;
        synchronized (this) {
            gates = hybridReaders.addFeed(feed, index, regions.all(), finished);
            // It let them go for the subpartitions abandoned there: some may be needed no more.
            drop = readOnce() ? regions.dropUnneeded() : List.of();
        }
        recycle(drop);
        PartitionFeed.wakeAll(gates);
        PartitionLostException lost = lostException();
        if (lost != null) {
            feed.fail(lost);
        }
    }

    /** {@code feed} reads this partition no more. O(feeds). */
    void detachFeed(PartitionFeed feed) {
        synchronized (this) {
            hybridReaders.removeFeed(feed);
        }
    }

    /** The feeds reading this partition now, to tell them it is lost. */
    private synchronized List<PartitionFeed> feeds() {
        return hybridReaders.feeds();
    }

    /**
     * For a gate reading {@code subpartition}'s section of {@code region} in memory, on its own
     * thread: pins the region's pages and returns them, or null, pinning nothing, when the region
     * is not in memory (the gate then reads it from disk through the IO thread). The gate ends the
     * read with {@link #readInMemory}.
     *
     * @throws PartitionLostException if the partition is lost, or (selective) the subpartition read
     *     the region before
     */
    Page @Nullable [] pinForReading(HybridRegion region, int subpartition, PartitionFeed feed)
            throws PartitionLostException {
        synchronized (this) {
            checkNotLostLocked();
            if (!hybridReaders.claim(subpartition, feed)
                    || (readOnce() && region.hasPassed(subpartition))) {
                throw readBefore(subpartition);
            }
            return region.pin();
        }
    }

    /**
     * Read once: claims {@code subpartition} for the gates of {@code feed} before they read
     * anything (a gate opened on partitions of its own claims them as it opens). O(1).
     *
     * @throws PartitionLostException if another reader claimed it: it was read before
     */
    void claim(int subpartition, PartitionFeed feed) throws PartitionLostException {
        checkSubpartition(subpartition);
        synchronized (this) {
            if (!hybridReaders.claim(subpartition, feed)) {
                throw readBefore(subpartition);
            }
        }
    }

    /**
     * A gate finished its in-memory read of {@code subpartition}'s section of {@code region},
     * {@code bytes} of it, and every buffer it handed out of it came back (or, with {@code
     * completed} false, the gate abandoned it): the subpartition passed the region, and the pin of
     * {@link #pinForReading} ends.
     */
    void readInMemory(HybridRegion region, int subpartition, int bytes, boolean completed) {
        List<Page> drop = new ArrayList<>(0);
        synchronized (this) {
            tally.read(bytes, true);
            if (completed || readOnce()) {
                regions.pass(region, subpartition, drop);
            }
            drop.addAll(regions.dropped(region.unpin()));
        }
        recycle(drop);
    }

    /**
     * A gate of {@code feed} reading {@code subpartition} lets go of {@code region} without reading
     * it (it was closed first): for a partition read once, its data there is dropped — unless
     * another reader claimed the subpartition (then it is not this gate's to drop).
     */
    void abandonRegion(HybridRegion region, int subpartition, PartitionFeed feed) {
        if (!readOnce()) {
            return;
        }
        List<Page> drop = new ArrayList<>(0);
        synchronized (this) {
            if (hybridReaders.claim(subpartition, feed)) { // not another reader's data
                regions.pass(region, subpartition, drop);
            }
        }
        recycle(drop);
    }

    /** Whether each subpartition can be read only once (selective and pipelined). */
    boolean isReadOnce() {
        return readOnce();
    }

    /** The partition's failure as an exception for a reader, or null while it is readable. */
    synchronized @Nullable PartitionLostException lostException() {
        String reason = lostReason;
        return reason == null ? null : new PartitionLostException(id(), reason, lostCause);
    }

    /** Regions published so far (tests). */
    synchronized int regionCount() {
        return regions.size();
    }

    /**
     * Checks the accounting (tests call it after every step): resident pages are the regions'
     * pages; each region's reader count is the subpartitions that still need it; a region no one
     * needs holds no pages unless a reader or a write-through still uses them; while the partition
     * is readable, every byte some subpartition still needs is in memory or on disk, and full-mode
     * regions are on disk once written; no reader position lies past its section.
     */
    synchronized void checkInvariants() {
        regions.checkInvariants(
                numSubpartitions(), kind == PartitionKind.HYBRID_FULL, lostReason != null);
    }

    // ---- under the lock ----

    @GuardedBy("this")
    private void loseLocked(String reason, @Nullable Throwable cause) {
        if (lostReason == null) {
            lostReason = reason;
            lostCause = cause;
        }
    }

    /** Whether the partition is lost (released or failed): nothing reads or spills it any more. */
    @GuardedBy("this")
    boolean isLostLocked() {
        return lostReason != null;
    }

    /** Throws the partition's failure, if it is lost, as a reader sees it. */
    @GuardedBy("this")
    void checkNotLostLocked() throws PartitionLostException {
        String reason = lostReason;
        if (reason != null) {
            throw new PartitionLostException(id(), reason, lostCause);
        }
    }

    // ---- outside the lock ----

    /** The partition fails for {@code reason}: readers see it lost, its pages and files go. */
    void fail(String reason, Throwable cause) {
        lose(reason, cause, false);
        leftovers.deleteAll(files(), null);
    }

    /** Loses the partition: readers see it lost, its pages go ({@link HybridRegions#dropAll}). */
    private void lose(String reason, @Nullable Throwable cause, boolean writerGone) {
        List<Page> drop;
        List<HybridReader> wake;
        synchronized (this) {
            loseLocked(reason, cause);
            drop = regions.dropAll(writerGone);
            wake = hybridReaders.takeParked();
        }
        finishLoss(drop, wake);
    }

    private void finishLoss(List<Page> drop, List<HybridReader> wake) {
        recycle(drop);
        wakeProducer(); // a pipelined producer pauses no more: it fails at its next write
        PartitionLostException lost = lostException();
        if (lost != null) {
            for (PartitionFeed feed : feeds()) {
                feed.fail(lost); // its gates fail now, not when they reach this partition
            }
        }
        files.close();
        wakeAll(wake);
        closeOwnerIfIdle();
    }

    /** Recycles {@code pages} the regions gave up (outside the lock), waking who waits for room. */
    void recycle(List<Page> pages) {
        for (int i = 0; i < pages.size(); i++) {
            owner.recycle(pages.get(i));
        }
        if (!pages.isEmpty()) {
            wakeProducer(); // room for a pipelined producer
            closeOwnerIfIdle();
        }
    }

    private void wakeAll(List<HybridReader> parked) {
        for (HybridReader reader : parked) {
            reader.wake();
        }
    }

    private void closeOwnerIfIdle() {
        boolean close;
        synchronized (this) {
            close = writerDone && lostReason != null && tally.residentPages() == 0;
        }
        if (close && owner.pagesInUse() == 0) {
            owner.close();
        }
    }
}
