package io.railyard.shuffle.buffer;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.WaitingRequests.PageRequest;
import io.railyard.shuffle.buffer.WaitingRequests.Waiting;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The one network-buffer manager of a worker: a fixed budget of off-heap pages, allocated up front,
 * shared by every partition writer, reader and input gate, each a {@link BufferOwner}.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li><b>Guarantees are pledged at registration.</b> {@link #register} fails at once with {@link
 *       InsufficientNetworkMemoryException} when the guarantees would exceed the budget: nothing
 *       ever waits for memory that cannot come. Whoever can wait for a pledge to come back (a task
 *       that may start once another ended) watches {@link #pledgesReturned} and waits with {@link
 *       #awaitPledgeReturned}; the pool itself never queues a registration.
 *   <li><b>Borrowing only uses unpromised pages.</b> Let {@code unused} be the sum over owners of
 *       {@code max(0, guarantee - inUse)}. A request of n pages, e of them within the requester's
 *       guarantee, is granted iff {@code free >= n} and {@code free - n >= unused - e}: after it,
 *       the free pages still cover every other owner's promise. So a page promised to someone is
 *       never handed to someone else.
 *   <li><b>Revocation.</b> A registration may pledge pages that are lent out at that moment ({@code
 *       free < unused}, a shortfall). Requests within a guarantee then wait (FIFO, all-or-nothing,
 *       as a future) and the pool asks borrowers, largest first, through their {@link
 *       RevocationListener} to give back the shortfall.
 *   <li><b>Threading.</b> Every method is thread-safe. One lock guards the accounting: the books
 *       ({@link PageLedger}, the owners' accounts included) and the waiting requests ({@link
 *       WaitingRequests}); futures are completed and listeners called after it is released, so no
 *       caller code runs under it, and no other lock is taken under it: it is the innermost lock of
 *       the shuffle layer (the order is in the {@code io.railyard.shuffle} package documentation).
 * </ul>
 *
 * <h2>Cost</h2>
 *
 * <p>While no request waits, {@link BufferOwner#tryRequest()} and {@link BufferOwner#recycle} are
 * O(1), {@link BufferOwner#tryRequest(int, List)} O(n), and none of them allocates (the JDK lock
 * allocates a queue node only when a thread must wait for it). A recycle, cancellation or owner
 * close that completes waiting requests also costs O(requests served) and allocates a page list and
 * a completion per request served. While requests still wait, each of those calls, a request that
 * must wait and a registration also sum the queue (O(waiting requests)) and, if pages are still
 * short, pick borrowers to ask back (O(owners log owners), allocating the asks). {@link #register}
 * is O(waiting requests) plus that pick; {@link BufferOwner#close} and {@link #close} O(owners +
 * waiting requests); the insufficient-memory message O(owners log owners). Pages are never
 * allocated after construction.
 */
public final class NetworkBufferPool implements AutoCloseable {
    private final ReentrantLock lock = new ReentrantLock();
    private final ShuffleOptions options;

    /** Pages in the budget (the books' too), for the checks and gauges that take no lock. */
    private final int totalPages;

    /** Who holds which page, who is promised what. */
    @GuardedBy("lock")
    private final PageLedger ledger;

    @GuardedBy("lock")
    private final WaitingRequests pending = new WaitingRequests();

    /** Guarantees given back (owners closed, guarantees lowered), for who waits for one. */
    private final PledgeWatch pledges = new PledgeWatch(lock);

    /** Who waits for spare pages. */
    @GuardedBy("lock")
    private final SpareWatch spare = new SpareWatch();

    @GuardedBy("lock")
    private int nextOwnerId;

    @GuardedBy("lock")
    private boolean closed;

    /**
     * The most direct memory this JVM may allocate, which bounds {@value
     * ShuffleOptions#TOTAL_MEMORY_KEY}: {@code -XX:MaxDirectMemorySize}, or the heap limit when it
     * is unset; {@link Long#MAX_VALUE} when the JVM does not say (allocation then decides). O(1).
     */
    public static long directMemoryLimitBytes() {
        return DirectMemory.current().limitBytes();
    }

    /**
     * A pool of {@code options.totalPages()} pages of {@code options.pageSizeBytes()}, allocated
     * now as off-heap memory, in chunks of at most 1 GiB.
     *
     * @throws IllegalArgumentException if the JVM's direct memory cannot hold the budget: checked
     *     against {@code -XX:MaxDirectMemorySize} (which defaults to {@code -Xmx}) and the direct
     *     memory in use before anything is allocated, and raised too, with the {@link
     *     OutOfMemoryError} as its cause, if an allocation fails anyway; the message names {@value
     *     ShuffleOptions#TOTAL_MEMORY_KEY}, the requested size, the limit and the flag to raise.
     *     Nothing allocated is kept: the chunks are unreachable and the JVM frees them.
     */
    public NetworkBufferPool(ShuffleOptions options) {
        this(options, ByteBuffer::allocateDirect, DirectMemory.current());
    }

    /** A pool whose chunks come from {@code allocator} (tests), checked against {@code memory}. */
    NetworkBufferPool(
            ShuffleOptions options, IntFunction<ByteBuffer> allocator, DirectMemory memory) {
        this.options = options;
        Page[] pages = memory.allocatePages(options, allocator);
        this.totalPages = pages.length;
        this.ledger = new PageLedger(pages);
        OpenPools.opened(this);
    }

    /**
     * Pools of this JVM constructed and not yet closed — a pool never closed stays counted even
     * after the JVM collects it. A process-wide gauge for leak detection and monitoring. O(1).
     */
    public static int openPoolsInProcess() {
        return OpenPools.count();
    }

    /**
     * Pages held by owners across every pool of this JVM that is open and still reachable. A
     * process-wide gauge for leak detection and monitoring (pages leaked into a pool that is then
     * closed make its {@link #close()} throw instead). O(open pools): takes each pool's lock in
     * turn; allocates a snapshot of the pools.
     */
    public static long pagesInUseInProcess() {
        return OpenPools.pagesInUse();
    }

    /**
     * Registers an owner with {@code guaranteedPages} pledged to it. O(waiting requests), plus
     * O(owners log owners) to pick borrowers to ask back when the pledge leaves pages short;
     * allocates the owner (and the asks).
     *
     * @param guaranteeKey the setting that sizes this guarantee, named in errors
     * @param listener asked to give back borrowed pages; null if the owner only returns pages as it
     *     finishes with them
     * @throws InsufficientNetworkMemoryException if the budget cannot pledge the guarantee
     */
    public BufferOwner register(
            String name,
            int guaranteedPages,
            String guaranteeKey,
            @Nullable RevocationListener listener) {
        checkArgument(!name.isEmpty(), "owner name must not be empty");
        checkArgument(
                guaranteedPages >= 0,
                "guaranteedPages of '%s' must be >= 0, was %s",
                name,
                guaranteedPages);
        List<Runnable> after;
        BufferOwner owner;
        lock.lock();
        try {
            checkState(!closed, "network buffer pool closed");
            if (!ledger.canPledge(guaranteedPages)) {
                throw InsufficientNetworkMemoryException.of(
                        name,
                        guaranteedPages,
                        guaranteeKey,
                        options,
                        ledger.guaranteed(),
                        ledger.owners());
            }
            owner =
                    new BufferOwner(
                            this,
                            nextOwnerId++,
                            ledger.reserveSlot(),
                            name,
                            guaranteedPages,
                            listener);
            ledger.open(owner);
            after = revocationsLocked();
        } finally {
            lock.unlock();
        }
        runAll(after);
        return owner;
    }

    /** Bytes per page. */
    public int pageSizeBytes() {
        return options.pageSizeBytes();
    }

    /** Pages in the budget. */
    public int totalPages() {
        return totalPages;
    }

    /** Pages nobody holds. */
    public int freePages() {
        lock.lock();
        try {
            return ledger.freeCount();
        } finally {
            lock.unlock();
        }
    }

    /** Pages held by owners. */
    public int pagesInUse() {
        lock.lock();
        try {
            return totalPages - ledger.freeCount();
        } finally {
            lock.unlock();
        }
    }

    /** Pages pledged to the registered owners. */
    public int guaranteedPages() {
        lock.lock();
        try {
            return ledger.guaranteed();
        } finally {
            lock.unlock();
        }
    }

    /** Pages a registration can still pledge: the budget less every registered guarantee. */
    public int pledgeablePages() {
        lock.lock();
        try {
            return totalPages - ledger.guaranteed();
        } finally {
            lock.unlock();
        }
    }

    /**
     * How many times a guarantee has been given back so far (an owner closed, or lowered its
     * guarantee): a mark to wait from with {@link #awaitPledgeReturned}. O(1).
     */
    public long pledgesReturned() {
        return pledges.count();
    }

    /**
     * Waits until a guarantee has been given back after {@code mark} (a value of {@link
     * #pledgesReturned}, taken before the {@link #register} that failed, so that none is missed),
     * or the pool closed, for at most {@code timeoutNanos}. O(1).
     *
     * @return whether one was given back (or the pool closed: registering then fails with that)
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitPledgeReturned(long mark, long timeoutNanos) throws InterruptedException {
        return pledges.await(mark, timeoutNanos);
    }

    /**
     * {@link #awaitPledgeReturned} without a thread: runs {@code listener} once a guarantee came
     * back after {@code mark} (or the pool closed) — now if it has, else on the thread giving it
     * back, after the pool's lock is released (it must not block). O(1).
     */
    public void onPledgeReturned(long mark, Runnable listener) {
        pledges.onReturned(mark, listener);
    }

    /**
     * Free pages no guarantee needs: what can be lent now, or pledged to a new owner and given to
     * it at once, without asking a borrower back. O(1).
     */
    public int sparePages() {
        lock.lock();
        try {
            return ledger.spare();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Pages held beyond their guarantees by owners that drain ({@link RevocationListener#drains}):
     * they come back as those owners' readers consume, without being asked. Who needs pages that
     * these would cover may wait for them ({@link #onSpare}) instead of registering at once and
     * having borrowers asked back. O(1).
     */
    public int drainingPages() {
        lock.lock();
        try {
            return ledger.draining();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Pages that owners that drain gave back so far, a count that only grows: a wait for spare
     * pages that sees it move is making progress. O(1).
     */
    public long drainedPages() {
        lock.lock();
        try {
            return ledger.drained();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs {@code listener} once {@code pages} pages are spare ({@link #sparePages}) after every
     * listener registered before it was served, or the pool closed: at once, on this thread, if
     * nobody waits and they are; else on the thread that gives pages back, after the pool's lock is
     * released (it must not block). Served in registration order, each round as many as the spare
     * pages cover; a listener runs once, and nothing is reserved for it: it must look again. O(1).
     */
    public void onSpare(int pages, Runnable listener) {
        boolean now;
        lock.lock();
        try {
            now = closed || spare.addLocked(pages, listener, ledger.spare());
        } finally {
            lock.unlock();
        }
        if (now) {
            listener.run();
        }
    }

    /**
     * Every registered owner's pages, in registration order. O(owners); allocates the list and one
     * record per owner.
     */
    public List<OwnerStats> owners() {
        lock.lock();
        try {
            return ledger.stats();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes the pool; waiting requests fail. Idempotent.
     *
     * @throws IllegalStateException naming every owner that still holds pages (a leak)
     */
    @Override
    public void close() {
        List<PageRequest> cancelled;
        List<String> leaks;
        List<Runnable> listeners;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            listeners = spare.closeLocked(pledges.closeLocked(List.of()));
            cancelled = pending.clear();
            leaks = ledger.leaks();
        } finally {
            lock.unlock();
        }
        // Outside the lock, which is the innermost: the registry of open pools has a lock too.
        OpenPools.closed(this);
        for (PageRequest request : cancelled) {
            request.completeExceptionally(new CancellationException("pool closed"));
        }
        runAll(listeners);
        checkState(
                leaks.isEmpty(),
                "network buffer pool closed with pages in use: %s",
                String.join(", ", leaks));
    }

    /** Checks the accounting (tests). */
    void checkInvariants() {
        lock.lock();
        try {
            ledger.check(pending.headPages());
        } finally {
            lock.unlock();
        }
    }

    // ---- called by BufferOwner ----

    boolean tryGrant(BufferOwner owner, int n, List<Page> out) {
        checkCount(owner, n);
        lock.lock();
        try {
            checkOpen(owner);
            if (!ledger.mayGrant(owner, n, !pending.isEmpty())) {
                return false;
            }
            ledger.grant(owner, n, out);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** {@link #tryGrant} of one page, without a list: null if it cannot be given now. */
    @Nullable Page tryGrantOne(BufferOwner owner) {
        lock.lock();
        try {
            checkOpen(owner);
            if (!ledger.mayGrant(owner, 1, !pending.isEmpty())) {
                return null;
            }
            return ledger.grantOne(owner);
        } finally {
            lock.unlock();
        }
    }

    CompletableFuture<List<Page>> requestGuaranteed(BufferOwner owner, int n) {
        checkCount(owner, n);
        PageRequest future = new PageRequest(owner);
        List<Runnable> after = List.of();
        lock.lock();
        try {
            checkOpen(owner);
            checkArgument(
                    ledger.inUse(owner) + ledger.waiting(owner) + n <= owner.guaranteedPages(),
                    "owner '%s' asked for %s pages beyond its guarantee: it holds %s and waits for %s of"
                            + " %s guaranteed pages; borrow with tryRequest or raise its guarantee",
                    owner.name(),
                    n,
                    ledger.inUse(owner),
                    ledger.waiting(owner),
                    owner.guaranteedPages());
            if (pending.isEmpty() && ledger.freeCount() >= n) {
                List<Page> granted = new ArrayList<>(n);
                ledger.grant(owner, n, granted);
                future.complete(granted);
                return future;
            }
            pending.add(owner, n, future);
            ledger.addWaiting(owner, n);
            after = revocationsLocked();
        } finally {
            lock.unlock();
        }
        runAll(after);
        return future;
    }

    void recycle(BufferOwner owner, Page page) {
        List<Runnable> after;
        lock.lock();
        try {
            ledger.giveBack(owner, page);
            after = spareServedLocked(serveLocked());
        } finally {
            lock.unlock();
        }
        runAll(after);
    }

    void lowerGuarantee(BufferOwner owner, int pages) {
        List<Runnable> after;
        lock.lock();
        try {
            checkOpen(owner);
            int g = owner.guaranteedPages();
            if (pages < 0 || pages > g) { // not checkArgument: it would box the ints
                throw new IllegalArgumentException(
                        "owner '"
                                + owner.name()
                                + "' can lower its guarantee of "
                                + g
                                + " pages to [0, "
                                + g
                                + "], not "
                                + pages);
            }
            int waiting = ledger.waiting(owner);
            checkState(
                    waiting == 0,
                    "owner '%s' lowers its guarantee while it waits for %s pages",
                    owner.name(),
                    waiting);
            ledger.lowerGuarantee(owner, pages);
            after = spareServedLocked(serveLocked());
            if (pages < g) {
                after = pledges.returnedLocked(after);
            }
        } finally {
            lock.unlock();
        }
        runAll(after);
    }

    void unregister(BufferOwner owner) {
        List<PageRequest> cancelled;
        List<Runnable> after;
        lock.lock();
        try {
            if (!ledger.isOpen(owner)) {
                return;
            }
            int held = ledger.inUse(owner);
            checkState(held == 0, "owner '%s' closed while holding %s pages", owner.name(), held);
            cancelled = pending.removeAll(owner);
            ledger.close(owner);
            after = spareServedLocked(serveLocked());
            if (owner.guaranteedPages() > 0) {
                after = pledges.returnedLocked(after);
            }
        } finally {
            lock.unlock();
        }
        for (PageRequest request : cancelled) {
            request.completeExceptionally(
                    new CancellationException("owner '" + owner.name() + "' closed"));
        }
        runAll(after);
    }

    int inUse(BufferOwner owner) {
        lock.lock();
        try {
            return ledger.inUse(owner);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A cancelled request leaves the queue, or, if its pages were granted but the future not yet
     * completed, gives them back at once; either way the requests behind it are served. Called by
     * {@link PageRequest#cancel}, never under the lock.
     */
    void withdraw(BufferOwner owner, PageRequest future) {
        List<Runnable> after;
        lock.lock();
        try {
            int queued = pending.remove(future);
            if (queued > 0) {
                ledger.addWaiting(owner, -queued);
            }
            List<Page> granted = queued > 0 ? null : future.takeGranted();
            if (granted != null) {
                for (Page page : granted) {
                    ledger.giveBack(owner, page.index());
                }
            }
            after = spareServedLocked(serveLocked());
        } finally {
            lock.unlock();
        }
        runAll(after);
    }

    // ---- under the lock ----

    /** Returns {@code after} with the spare-page waiters the spare pages serve now. */
    @GuardedBy("lock")
    private List<Runnable> spareServedLocked(List<Runnable> after) {
        return spare.isEmptyLocked() ? after : spare.servedLocked(ledger.spare(), after);
    }

    /**
     * Serves waiting requests in order while they fit; returns the completions to run. Allocates
     * nothing when no request waits (the common case of a recycle).
     */
    @GuardedBy("lock")
    private List<Runnable> serveLocked() {
        if (pending.isEmpty()) {
            return List.of();
        }
        List<Runnable> after = new ArrayList<>();
        while (!pending.isEmpty() && pending.headPages() <= ledger.freeCount()) {
            Waiting request = pending.poll();
            ledger.addWaiting(request.owner(), -request.pages());
            List<Page> granted = new ArrayList<>(request.pages());
            ledger.grant(request.owner(), request.pages(), granted);
            request.future().granted(granted);
            // Completed after the lock; a cancel in between gives the pages back in withdraw().
            after.add(() -> request.future().complete(granted));
        }
        if (!pending.isEmpty()) {
            after.addAll(revocationsLocked());
        }
        return after;
    }

    /** Asks borrowers, largest first, to give back the pages promised but lent out. */
    @GuardedBy("lock")
    private List<Runnable> revocationsLocked() {
        int free = ledger.freeCount();
        int shortfall = Math.max(ledger.unused() - free, pending.pagesWanted() - free);
        if (shortfall <= 0) {
            return List.of();
        }
        return ledger.asks(shortfall);
    }

    /** Runs completions and asks outside the lock; an indexed loop, so no iterator is allocated. */
    private static void runAll(List<Runnable> after) {
        for (int i = 0; i < after.size(); i++) {
            after.get(i).run();
        }
    }

    private void checkCount(BufferOwner owner, int n) {
        if (n < 1 || n > totalPages) { // not checkArgument: it would box n on every request
            throw new IllegalArgumentException(
                    "owner '"
                            + owner.name()
                            + "' requested "
                            + n
                            + " pages; allowed 1 to "
                            + totalPages
                            + " (the pool's pages)");
        }
    }

    @GuardedBy("lock")
    private void checkOpen(BufferOwner owner) {
        checkState(!closed, "network buffer pool closed");
        checkState(ledger.isOpen(owner), "owner '%s' is closed", owner.name());
    }
}
