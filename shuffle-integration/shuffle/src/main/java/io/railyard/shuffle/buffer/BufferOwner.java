package io.railyard.shuffle.buffer;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * One holder of network pages (a partition writer, the read scheduler, an input gate) with a
 * guarantee pledged by its {@link NetworkBufferPool}. Within the guarantee a request always
 * succeeds (at once, or as soon as borrowed pages come back); beyond it, {@link #tryRequest(int,
 * List)} borrows pages nobody is promised, all or nothing, without waiting.
 *
 * <p>Thread-safe; every call takes the pool's lock briefly, and the pool keeps the owner's accounts
 * ({@link OwnerAccounts}) under that lock. The data-path calls, {@link #tryRequest()}, {@link
 * #tryRequest(int, List)} and {@link #recycle}, allocate nothing while no request waits in the
 * pool; {@link #request}, {@link #requestBlocking} and {@link #close} are coordination calls and
 * allocate (a future, lists, a queue entry). Costs are in {@link NetworkBufferPool}'s class doc.
 */
public final class BufferOwner implements AutoCloseable {
    final NetworkBufferPool pool;

    /** The owner's number in its pool, never reused: which owner holds a page. */
    final int id;

    /** The owner's account in its pool's {@link OwnerAccounts}, reused once it is closed. */
    final int slot;

    private final String name;
    final @Nullable RevocationListener listener;

    /** Whether its listener {@link RevocationListener#drains drains}: fixed at registration. */
    final boolean drains;

    // Changed only by the pool under its lock (lowerGuarantee), together with the pool's totals;
    // read anywhere without it.
    private volatile int guaranteedPages;

    BufferOwner(
            NetworkBufferPool pool,
            int id,
            int slot,
            String name,
            int guaranteedPages,
            @Nullable RevocationListener listener) {
        this.pool = pool;
        this.id = id;
        this.slot = slot;
        this.name = name;
        this.guaranteedPages = guaranteedPages;
        this.listener = listener;
        this.drains = listener != null && listener.drains();
    }

    /** The owner's name, as given at registration. */
    public String name() {
        return name;
    }

    /** Pages pledged to this owner. */
    public int guaranteedPages() {
        return guaranteedPages;
    }

    /** The pool lowered the pledge to {@code pages}, under its lock. */
    void guaranteeLowered(int pages) {
        guaranteedPages = pages;
    }

    /** Pages this owner holds now. */
    public int pagesInUse() {
        return pool.inUse(this);
    }

    /** Pages held beyond the guarantee: {@code max(0, pagesInUse - guaranteedPages)}. */
    public int borrowedPages() {
        return Math.max(0, pagesInUse() - guaranteedPages);
    }

    /**
     * One page, or null if none can be given now. Non-blocking; may borrow beyond the guarantee.
     * O(1); allocates nothing.
     */
    public @Nullable Page tryRequest() {
        return pool.tryGrantOne(this);
    }

    /**
     * Appends exactly {@code n} pages to {@code out} and returns true, or appends nothing and
     * returns false. Non-blocking; may borrow beyond the guarantee. O(n); allocates nothing itself
     * ({@code out} may grow).
     */
    public boolean tryRequest(int n, List<Page> out) {
        return pool.tryGrant(this, n, out);
    }

    /**
     * {@code n} pages within the guarantee, all at once: completes at once when they are free, else
     * when borrowers give pages back (FIFO among waiting requests). Cancelling before completion
     * leaves nothing held; if it completed concurrently, the caller owns the pages. Allocates the
     * future and the page list, and a queue entry when it must wait.
     *
     * @throws IllegalArgumentException if held + waiting + n pages exceed the guarantee
     */
    public CompletableFuture<List<Page>> request(int n) {
        return pool.requestGuaranteed(this, n);
    }

    /**
     * {@link #request(int)}, waiting. On interrupt the request is withdrawn (or its pages returned
     * if it raced to completion) and {@link InterruptedException} is thrown.
     */
    public List<Page> requestBlocking(int n) throws InterruptedException {
        CompletableFuture<List<Page>> future = request(n);
        try {
            return future.get();
        } catch (InterruptedException e) {
            if (!future.cancel(false)) {
                List<Page> granted = future.getNow(List.of());
                for (Page page : granted) {
                    recycle(page);
                }
            }
            throw e;
        } catch (CancellationException e) {
            throw new IllegalStateException(
                    "request of " + n + " pages by '" + name + "' failed: " + e.getMessage(), e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "request of " + n + " pages by '" + name + "' failed", e.getCause());
        }
    }

    /**
     * Returns {@code page} to the pool and serves waiting requests. O(1) and allocates nothing
     * while no request waits; otherwise see {@link NetworkBufferPool}'s cost notes.
     *
     * @throws IllegalStateException if this owner does not hold the page
     * @throws IllegalArgumentException if the page is not of this owner's pool
     */
    public void recycle(Page page) {
        pool.recycle(this, page);
    }

    /**
     * Lowers the guarantee to {@code pages} (a writer that finished producing needs its working
     * pages no more, but may keep data in pages it borrowed): what it holds beyond the new
     * guarantee counts as borrowed from now on, so it can be asked back. O(1), plus serving and
     * asking as after a recycle.
     *
     * @throws IllegalArgumentException if {@code pages} is negative or above the current guarantee
     * @throws IllegalStateException if the owner waits for pages within its guarantee, or is closed
     */
    public void lowerGuarantee(int pages) {
        pool.lowerGuarantee(this, pages);
    }

    /**
     * Unregisters: the guarantee is released and waiting requests are cancelled. Idempotent.
     *
     * @throws IllegalStateException if the owner still holds pages
     */
    @Override
    public void close() {
        pool.unregister(this);
    }

    @Override
    public String toString() {
        return "BufferOwner[" + name + ", guaranteed " + guaranteedPages + "]";
    }
}
