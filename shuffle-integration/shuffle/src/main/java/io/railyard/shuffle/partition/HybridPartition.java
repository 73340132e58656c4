package io.railyard.shuffle.partition;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import io.railyard.topology.PartitionId;
import it.unimi.dsi.fastutil.ints.IntOpenHashSet;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
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
 * may release. One lock (this partition's monitor) guards the region list, the regions' state
 * (which {@link HybridRegion} changes only under it) and the readers' progress; its place in the
 * lock order is in the {@code io.railyard.shuffle} package documentation. Nothing here calls a
 * gate, a listener or the pool while holding it (pages are recycled and readers woken after it is
 * released), and the revocation listener only enqueues work for the IO thread. Disk IO never runs
 * under the lock either. A reader's cursor is the IO thread's; the partition moves it through the
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
    private final Executor io;
    private final LeftoverFiles leftovers;

    @GuardedBy("this")
    private final List<HybridRegion> regions = new ArrayList<>();

    // Who reads: subpartitions abandoned for good (read once), stream readers attached ever and
    // now (attach(int, Runnable)), and the feeds whose gates read this partition's regions.
    @GuardedBy("this")
    private final IntOpenHashSet abandoned = new IntOpenHashSet();

    @GuardedBy("this")
    private final IntOpenHashSet streamReadersEver = new IntOpenHashSet();

    @GuardedBy("this")
    private int streamReadersNow;

    @GuardedBy("this")
    private final List<FeedLink> feeds = new ArrayList<>(2);

    // Read once: the subpartitions some reader claimed, and those each claimer claimed — a feed
    // (for its gates) or a stream reader — a bit per subpartition, made at the first claim.
    @GuardedBy("this")
    private @Nullable BitSet claimed;

    @GuardedBy("this")
    private final IdentityHashMap<Object, BitSet> claims = new IdentityHashMap<>(2);

    /** A feed this partition publishes to, at its index there. */
    private record FeedLink(PartitionFeed feed, int index) {}

    @GuardedBy("this")
    private final HybridTally tally;

    @GuardedBy("this")
    private final List<HybridReader> waiting = new ArrayList<>();

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

    @GuardedBy("this")
    private final SpillRequests spillRequests = new SpillRequests();

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
        this.io = io;
        this.tally = new HybridTally(worker);
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
            drop = dropAllLocked(false);
            wake = takeWaitingLocked();
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
            long pause = room.pauseNanos(now, atBound, everyAttachedLocked(), waker);
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
        int pinned = 0;
        for (HybridRegion region : regions) {
            pinned += region.pinnedPages();
        }
        return pinned;
    }

    /** Times the pipelined producer waited for its consumers (tests). */
    synchronized int backpressureWaits() {
        return tally.backpressureWaits();
    }

    /** Readers attached now. */
    synchronized int attachedReaders() {
        int now = streamReadersNow;
        for (FeedLink link : feeds) {
            now += link.feed().readersNow();
        }
        return now;
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
        List<LocalInputGate> gates = List.of();
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
            region.countReaders(abandoned);
            int readers = region.readersLeft();
            regions.add(region);
            tally.resident(region.residentPages());
            tally.produced(region.length());
            if (fileOffset >= 0) {
                tally.writtenToDisk(region.length());
            }
            if (readers == 0) {
                drop = dropLocked(region);
            }
            wake = takeWaitingLocked();
            for (FeedLink link : feeds) {
                gates =
                        plus(
                                gates,
                                link.feed()
                                        .regionPublishedLocked(link.index(), region, readOnce()));
            }
            owed = region.isResident() ? spillRequests.takeOwed() : 0; // freeable now: ask again
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
            drop = droppedLocked(region.written(fileOffset));
            tally.writtenToDisk(region.length());
            owed = spillRequests.takeOwed();
        }
        recycle(drop);
        requestSpill(owed);
    }

    /** The producer finished: readers past the last region end. */
    void finishProducing() {
        List<HybridReader> wake;
        List<LocalInputGate> gates = List.of();
        synchronized (this) {
            finished = true;
            wake = takeWaitingLocked();
            for (FeedLink link : feeds) {
                gates = plus(gates, link.feed().partitionFinishedLocked(link.index()));
            }
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
        boolean submit;
        synchronized (this) {
            if (lostReason != null || pages <= 0) {
                return;
            }
            submit = spillRequests.ask(pages);
        }
        if (submit) {
            io.execute(this::spillRequested);
        }
    }

    // ---- readers (the IO thread) ----

    /**
     * Attaches a reader of the whole stream of {@code subpartition}, at the first frame; {@code
     * waker} runs when data arrives for it after it found none (or the partition is lost). A gate
     * reads through a {@link PartitionFeed} instead, one region at a time; this reader is for a
     * consumer that reads one partition on its own.
     *
     * @throws PartitionLostException if the partition is lost, or (selective) the subpartition was
     *     read before
     */
    HybridReader attach(int subpartition, Runnable waker) throws PartitionLostException {
        checkSubpartition(subpartition);
        synchronized (this) {
            checkNotLostLocked();
            if (!claimLocked(subpartition, new Object())
                    || (readOnce() && readBeforeLocked(subpartition))) {
                throw readBefore(subpartition);
            }
            streamReadersEver.add(subpartition);
            streamReadersNow++;
        }
        return new HybridReader(this, subpartition, waker, 0, Integer.MAX_VALUE);
    }

    /**
     * Attaches a reader of {@code subpartition}'s section of {@code region} only (a gate's read of
     * one feed entry from disk, on the IO thread): it ends at the section's end.
     *
     * @throws PartitionLostException if the partition is lost, or (selective) the subpartition read
     *     the region before
     */
    HybridReader attach(int subpartition, HybridRegion region, PartitionFeed feed)
            throws PartitionLostException {
        checkSubpartition(subpartition);
        synchronized (this) {
            checkNotLostLocked();
            if (!claimLocked(subpartition, feed)
                    || (readOnce() && region.hasPassed(subpartition))) {
                throw readBefore(subpartition);
            }
        }
        return new HybridReader(this, subpartition, () -> {}, region.index(), region.index() + 1);
    }

    @GuardedBy("this")
    private boolean readBeforeLocked(int subpartition) {
        for (HybridRegion region : regions) {
            if (region.hasPassed(subpartition)) {
                return true;
            }
        }
        return false;
    }

    private PartitionLostException readBefore(int subpartition) {
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

    /**
     * Points {@code reader} at where its next bytes are: in memory (the region is pinned until
     * {@link #consumed}), on disk, nowhere yet (the reader is parked and woken by the next region),
     * or nowhere at all (the end, or the end of the regions it reads). Moves the reader past
     * sections it finished.
     *
     * @throws PartitionLostException if the partition is lost
     */
    HybridReader.Where locate(HybridReader reader) throws IOException {
        List<Page> drop = new ArrayList<>(0);
        try {
            synchronized (this) {
                checkNotLostLocked();
                return locateLocked(reader, drop);
            }
        } finally {
            recycle(drop);
        }
    }

    @GuardedBy("this")
    private HybridReader.Where locateLocked(HybridReader reader, List<Page> drop)
            throws IOException {
        int s = reader.subpartition();
        while (true) {
            if (reader.region() >= reader.endRegion()) {
                return HybridReader.Where.END;
            }
            if (reader.region() >= regions.size()) {
                if (finished) {
                    return HybridReader.Where.END;
                }
                waiting.add(reader);
                return HybridReader.Where.WAIT;
            }
            HybridRegion region = regions.get(reader.region());
            int section = region.section(s);
            int length = region.sectionLength(section);
            int offset = reader.offset();
            if (offset >= length) {
                advanceLocked(reader, drop);
                continue;
            }
            Page[] pinned = region.pin();
            if (pinned != null) {
                int streamAt = region.sectionStart(section) + offset;
                reader.atMemory(region, pinned, streamAt, length - offset);
                return HybridReader.Where.MEMORY;
            }
            files.pointAtDisk(reader, region, section, offset, length - offset);
            return HybridReader.Where.DISK;
        }
    }

    /**
     * {@code reader} took {@code bytes} of the bytes {@link #locate} pointed it at (from memory if
     * {@code fromMemory}); unpins the region and drops what no reader needs any more.
     */
    void consumed(HybridReader reader, int bytes, boolean fromMemory) {
        List<Page> drop = List.of();
        synchronized (this) {
            HybridRegion pinned = reader.advance(bytes);
            if (reader.region() < regions.size()) {
                regions.get(reader.region()).took(reader.subpartition(), reader.offset());
            }
            tally.read(bytes, fromMemory);
            if (fromMemory) {
                drop = droppedLocked(Objects.requireNonNull(pinned).unpin());
            }
        }
        recycle(drop);
    }

    /**
     * {@code reader} stops: at the end ({@code completed}), or abandoned (its gate closed or
     * failed). An abandoned selective subpartition's data can never be read again and is dropped:
     * all of it for a stream reader, the region's section for a reader of one region (its gate lets
     * go of the rest).
     */
    void detach(HybridReader reader, boolean completed) {
        List<Page> drop = new ArrayList<>(0);
        synchronized (this) {
            waiting.remove(reader);
            HybridRegion pinned = reader.releasePin();
            if (pinned != null) {
                drop.addAll(droppedLocked(pinned.unpin()));
            }
            int s = reader.subpartition();
            boolean stream = reader.endRegion() == Integer.MAX_VALUE;
            if (stream) {
                streamReadersNow--;
            }
            if (!completed && readOnce()) {
                if (stream) {
                    abandoned.add(s);
                }
                int last = Math.min(regions.size(), reader.endRegion());
                for (int r = Math.min(reader.region(), last); r < last; r++) {
                    passRegionLocked(regions.get(r), s, drop);
                }
            }
        }
        recycle(drop);
    }

    // ---- feeds: gates read one region at a time ----

    /**
     * {@code feed} reads this partition as its partition {@code index}: every region published so
     * far and every later one becomes an entry there, and so does the end of production. O(regions
     * so far).
     */
    void attachFeed(PartitionFeed feed, int index) {
        List<LocalInputGate> gates = List.of();
        synchronized (this) {
            feeds.add(new FeedLink(feed, index));
            for (HybridRegion region : regions) {
                gates = plus(gates, feed.regionPublishedLocked(index, region, readOnce()));
            }
            if (finished) {
                gates = plus(gates, feed.partitionFinishedLocked(index));
            }
        }
        PartitionFeed.wakeAll(gates);
        PartitionLostException lost = lostException();
        if (lost != null) {
            feed.fail(lost);
        }
    }

    /** {@code feed} reads this partition no more. O(feeds). */
    void detachFeed(PartitionFeed feed) {
        synchronized (this) {
            feeds.removeIf(link -> link.feed() == feed);
        }
    }

    /** The feeds reading this partition now, to tell them it is lost. */
    private synchronized List<PartitionFeed> feeds() {
        List<PartitionFeed> all = new ArrayList<>(feeds.size());
        for (FeedLink link : feeds) {
            all.add(link.feed());
        }
        return all;
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
            if (!claimLocked(subpartition, feed)
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
            if (!claimLocked(subpartition, feed)) {
                throw readBefore(subpartition);
            }
        }
    }

    /**
     * Read once: claims {@code subpartition} for {@code owner} (a feed, whose gates read it on, or
     * a stream reader) at its first read; false if another owner has claimed it. Always true for a
     * partition read again and again. O(1): a bit per subpartition claimed, and one per
     * subpartition each claimer claimed (a partition is read by a feed per worker of its
     * consumers).
     */
    @GuardedBy("this")
    private boolean claimLocked(int subpartition, Object owner) {
        if (!readOnce()) {
            return true;
        }
        BitSet any = claimed;
        if (any == null) {
            any = new BitSet(numSubpartitions());
            claimed = any;
        }
        BitSet mine = claims.get(owner);
        if (any.get(subpartition)) {
            return mine != null && mine.get(subpartition);
        }
        if (mine == null) {
            mine = new BitSet(); // grows to the claimer's highest subpartition
            claims.put(owner, mine);
        }
        any.set(subpartition);
        mine.set(subpartition);
        return true;
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
                passRegionLocked(region, subpartition, drop);
            }
            drop.addAll(droppedLocked(region.unpin()));
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
            if (claimLocked(subpartition, feed)) { // not another reader's data
                passRegionLocked(region, subpartition, drop);
            }
        }
        recycle(drop);
    }

    /** Whether each subpartition can be read only once (selective and pipelined). */
    boolean isReadOnce() {
        return readOnce();
    }

    /**
     * Whether every subpartition has had a reader: through a feed's gate or a stream reader. The
     * feeds each count their own gates' subpartitions, so a subpartition read through two feeds
     * (two workers of a consumer group) counts once per feed — there is one per subpartition.
     */
    @GuardedBy("this")
    private boolean everyAttachedLocked() {
        int ever = streamReadersEver.size();
        for (FeedLink link : feeds) {
            ever += link.feed().readersEver();
        }
        return ever >= numSubpartitions();
    }

    private static <T> List<T> plus(List<T> a, List<T> b) {
        if (b.isEmpty()) {
            return a;
        }
        if (a.isEmpty()) {
            return b;
        }
        List<T> both = new ArrayList<>(a);
        both.addAll(b);
        return both;
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
        HybridInvariants.check(
                regions,
                numSubpartitions(),
                kind == PartitionKind.HYBRID_FULL,
                lostReason != null,
                tally.residentPages());
    }

    // ---- under the lock ----

    @GuardedBy("this")
    private void advanceLocked(HybridReader reader, List<Page> drop) {
        passRegionLocked(regions.get(reader.region()), reader.subpartition(), drop);
        reader.nextRegion();
    }

    /** Subpartition {@code s} no longer needs {@code region}. */
    @GuardedBy("this")
    private void passRegionLocked(HybridRegion region, int s, List<Page> drop) {
        if (region.pass(s)) {
            drop.addAll(dropLocked(region));
        }
    }

    /**
     * Drops {@code region}'s pages now, or marks them to go when no reader copies from them and no
     * write-through runs; returns the pages to recycle.
     */
    @GuardedBy("this")
    private List<Page> dropLocked(HybridRegion region) {
        return droppedLocked(region.drop());
    }

    /**
     * Takes {@code pages}, which a region just gave up (null: none), off the resident count and
     * returns them to recycle.
     */
    @GuardedBy("this")
    private List<Page> droppedLocked(Page @Nullable [] pages) {
        if (pages == null) {
            return List.of();
        }
        tally.resident(-pages.length);
        return List.of(pages); // recycle() then wakes a pipelined producer pausing for room
    }

    /**
     * Drops every region's pages, or marks them for later where a reader copies from them or, with
     * {@code writerGone} false, a write-through still runs (it drops them when it ends).
     */
    @GuardedBy("this")
    private List<Page> dropAllLocked(boolean writerGone) {
        List<Page> drop = new ArrayList<>();
        for (HybridRegion region : regions) {
            if (writerGone) {
                region.writerGone(); // the writer that was writing it failed: no write runs
            }
            drop.addAll(dropLocked(region));
        }
        return drop;
    }

    @GuardedBy("this")
    private void loseLocked(String reason, @Nullable Throwable cause) {
        if (lostReason == null) {
            lostReason = reason;
            lostCause = cause;
        }
    }

    @GuardedBy("this")
    private void checkNotLostLocked() throws PartitionLostException {
        String reason = lostReason;
        if (reason != null) {
            throw new PartitionLostException(id(), reason, lostCause);
        }
    }

    @GuardedBy("this")
    private List<HybridReader> takeWaitingLocked() {
        if (waiting.isEmpty()) {
            return List.of();
        }
        List<HybridReader> wake = new ArrayList<>(waiting);
        waiting.clear();
        return wake;
    }

    // ---- spilling (the IO thread) ----

    /** Runs a requested spill; on the IO thread. */
    private void spillRequested() {
        int want;
        synchronized (this) {
            want = spillRequests.start();
        }
        try {
            int owed = Math.min(want - spill(want), owner.borrowedPages()); // asked, still held
            synchronized (this) {
                spillRequests.owe(owed);
            }
        } catch (IOException e) {
            fail(
                    "spilling to "
                            + files.spillFile()
                            + " failed after "
                            + files.spillFileBytes()
                            + " bytes: "
                            + e,
                    e);
        }
    }

    /**
     * Moves at least {@code pages} resident pages out of memory if it can, newest regions first
     * (the data consumers need latest): full mode drops regions already written (one still being
     * written through or read goes the moment that ends); selective mode writes the unconsumed rest
     * of each region's sections to the spill file, then drops it. Returns the pages freed now. On
     * the IO thread (or a test's).
     */
    int spill(int pages) throws IOException {
        List<HybridRegion> victims = new ArrayList<>();
        List<Page> drop = new ArrayList<>();
        int[][] from;
        synchronized (this) {
            if (lostReason != null) {
                return 0;
            }
            int freed = 0;
            for (int r = regions.size() - 1; r >= 0 && freed < pages; r--) {
                HybridRegion region = regions.get(r);
                if (!region.maySpill(readOnce())) {
                    continue;
                }
                freed += region.residentPages();
                if (kind == PartitionKind.HYBRID_FULL) {
                    // On disk, or once its write-through ends: dropLocked defers a busy region to
                    // then. Skipping it would forget this ask, and the pool does not ask again.
                    drop.addAll(dropLocked(region));
                } else {
                    region.pin(); // nobody drops or reads it while it is written out
                    victims.add(region);
                }
            }
            from = new int[victims.size()][];
            for (int v = 0; v < victims.size(); v++) {
                from[v] = victims.get(v).unconsumedFrom();
            }
        }
        recycle(drop);
        int freed = drop.size();
        if (!victims.isEmpty()) {
            freed += spillOut(victims, from);
        }
        return freed;
    }

    /** Writes the needed rest of each victim to the spill file, then drops the victims. */
    private int spillOut(List<HybridRegion> victims, int[][] from) throws IOException {
        long[][] offsets = new long[victims.size()][];
        long[] written = new long[1];
        try {
            for (int v = 0; v < victims.size(); v++) {
                offsets[v] = files.spill(victims.get(v), from[v], written);
            }
        } catch (IOException e) {
            List<Page> drop = new ArrayList<>();
            synchronized (this) {
                for (HybridRegion region : victims) {
                    drop.addAll(droppedLocked(region.unpin()));
                }
            }
            recycle(drop);
            throw e;
        }
        List<Page> drop = new ArrayList<>();
        synchronized (this) {
            tally.spilled(written[0]);
            for (int v = 0; v < victims.size(); v++) {
                HybridRegion region = victims.get(v);
                region.spilled(offsets[v], from[v]);
                drop.addAll(droppedLocked(region.unpin()));
                drop.addAll(dropLocked(region));
            }
        }
        recycle(drop);
        return drop.size();
    }

    /** The partition fails for {@code reason}: readers see it lost, its pages and files go. */
    void fail(String reason, Throwable cause) {
        lose(reason, cause, false);
        leftovers.deleteAll(files(), null);
    }

    // ---- outside the lock ----

    /** Loses the partition: readers see it lost, its pages go ({@link #dropAllLocked}). */
    private void lose(String reason, @Nullable Throwable cause, boolean writerGone) {
        List<Page> drop;
        List<HybridReader> wake;
        synchronized (this) {
            loseLocked(reason, cause);
            drop = dropAllLocked(writerGone);
            wake = takeWaitingLocked();
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

    private void recycle(List<Page> pages) {
        for (int i = 0; i < pages.size(); i++) {
            owner.recycle(pages.get(i));
        }
        if (!pages.isEmpty()) {
            wakeProducer(); // room for a pipelined producer
            closeOwnerIfIdle();
        }
    }

    private void wakeAll(List<HybridReader> readers) {
        for (HybridReader reader : readers) {
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
