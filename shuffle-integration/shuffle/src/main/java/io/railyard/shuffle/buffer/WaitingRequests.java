package io.railyard.shuffle.buffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The requests within a guarantee that wait in a {@link NetworkBufferPool} ({@link
 * BufferOwner#request}), in arrival order: the pool serves them FIFO, all or nothing, each through
 * its {@link PageRequest future}.
 *
 * <p>Not thread-safe: reached only through its pool's field, which the pool's lock guards; every
 * method must be called with that lock held. Futures are never completed here: the pool completes
 * them after releasing its lock. {@link #add}, {@link #poll}, {@link #isEmpty} and {@link
 * #headPages} are O(1); the rest O(waiting requests), allocating only the lists they return.
 */
final class WaitingRequests {
    private final ArrayDeque<Waiting> queue = new ArrayDeque<>();

    /** One waiting request: {@code owner} wants {@code pages} pages, through {@code future}. */
    record Waiting(BufferOwner owner, int pages, PageRequest future) {}

    /** Whether no request waits. */
    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Pages the first request wants; 0 if none waits. */
    int headPages() {
        Waiting head = queue.peek();
        return head == null ? 0 : head.pages();
    }

    /** Pages every waiting request wants, together. */
    int pagesWanted() {
        int wanted = 0;
        for (Waiting request : queue) {
            wanted += request.pages();
        }
        return wanted;
    }

    /** Queues {@code future}, by which {@code owner} wants {@code pages} pages, last. */
    void add(BufferOwner owner, int pages, PageRequest future) {
        queue.add(new Waiting(owner, pages, future));
    }

    /** The first request, removed (one must wait). */
    Waiting poll() {
        Waiting head = queue.poll();
        if (head == null) {
            throw new IllegalStateException("no request waits");
        }
        return head;
    }

    /** Removes {@code future}'s request; the pages it wanted, or 0 if it was not queued. */
    int remove(PageRequest future) {
        int pages = 0;
        for (Iterator<Waiting> it = queue.iterator(); it.hasNext(); ) {
            Waiting request = it.next();
            if (request.future() == future) {
                pages += request.pages();
                it.remove();
            }
        }
        return pages;
    }

    /** Removes every request of {@code owner}, which closes; returns their futures to fail. */
    List<PageRequest> removeAll(BufferOwner owner) {
        List<PageRequest> removed = new ArrayList<>();
        queue.removeIf(r -> r.owner() == owner && removed.add(r.future()));
        return removed;
    }

    /** Removes every request (the pool closes); returns their futures to fail. */
    List<PageRequest> clear() {
        List<PageRequest> removed = new ArrayList<>(queue.size());
        for (Waiting request : queue) {
            removed.add(request.future());
        }
        queue.clear();
        return removed;
    }

    /**
     * A request of pages within a guarantee, as the future its owner waits on. Cancelled, it
     * withdraws itself from its pool ({@link NetworkBufferPool#withdraw}), which takes the pool's
     * lock: it must not be cancelled under it (the pool completes and fails futures only after
     * releasing it).
     */
    static final class PageRequest extends CompletableFuture<List<Page>> {
        private final BufferOwner owner;

        /**
         * The pages granted before the future was completed (set and taken under the pool's lock;
         * an atomic so that the request, not the pool, holds it).
         */
        private final AtomicReference<@Nullable List<Page>> granted = new AtomicReference<>();

        PageRequest(BufferOwner owner) {
            this.owner = owner;
        }

        /** The pool granted {@code pages}, to complete the future with once its lock is free. */
        void granted(List<Page> pages) {
            granted.set(pages);
        }

        /** The pages granted and not yet taken back, now taken back; null if none. */
        @Nullable List<Page> takeGranted() {
            return granted.getAndSet(null);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled) {
                owner.pool.withdraw(owner, this);
            }
            return cancelled;
        }
    }
}
