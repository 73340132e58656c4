package io.railyard.shuffle.buffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Who waits for spare pages of a {@link NetworkBufferPool} — free pages no guarantee needs ({@link
 * NetworkBufferPool#onSpare}); what draining owners gave back is counted in its books ({@link
 * PageLedger#drained}). Waiters are served in arrival order, each once the spare pages cover it and
 * every waiter served before it in the same round, so one burst of returned pages wakes as many as
 * it can serve, not everyone. It shares the pool's lock: the pool calls the {@code ...Locked}
 * methods holding it. O(1) per call plus O(1) per waiter served; allocates a queue entry per wait
 * and a list per round that serves someone.
 */
final class SpareWatch {
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

    private record Waiter(int pages, Runnable listener) {}

    /** Whether someone waits (under the pool's lock): the pool's fast path skips the rest. */
    boolean isEmptyLocked() {
        return waiters.isEmpty();
    }

    /**
     * Queues {@code listener} for {@code pages} spare pages, or says it need not wait: true if
     * nobody waits before it and {@code spare} pages cover it (under the pool's lock).
     */
    boolean addLocked(int pages, Runnable listener, int spare) {
        if (waiters.isEmpty() && spare >= pages) {
            return true;
        }
        waiters.add(new Waiter(pages, listener));
        return false;
    }

    /**
     * {@code spare} pages are spare now: returns {@code after} with the listeners of the waiters
     * they serve in order, removed (under the pool's lock; the pool runs them after releasing it).
     */
    List<Runnable> servedLocked(int spare, List<Runnable> after) {
        Waiter head = waiters.peek();
        if (head == null || head.pages() > spare) {
            return after;
        }
        List<Runnable> all = new ArrayList<>(after);
        int left = spare;
        while (head != null && head.pages() <= left) {
            left -= head.pages();
            all.add(waiters.poll().listener());
            head = waiters.peek();
        }
        return all;
    }

    /** The pool closed: every waiter is let go (under the pool's lock); returns as above. */
    List<Runnable> closeLocked(List<Runnable> after) {
        if (waiters.isEmpty()) {
            return after;
        }
        List<Runnable> all = new ArrayList<>(after);
        for (Waiter waiter : waiters) {
            all.add(waiter.listener());
        }
        waiters.clear();
        return all;
    }
}
