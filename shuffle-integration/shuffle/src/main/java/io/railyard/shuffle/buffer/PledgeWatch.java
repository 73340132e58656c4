package io.railyard.shuffle.buffer;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The guarantees a {@link NetworkBufferPool} has been given back, counted, for callers that wait
 * for one ({@link NetworkBufferPool#awaitPledgeReturned}). It shares the pool's lock: the pool
 * calls the {@code ...Locked} methods holding it; every method takes it. O(1).
 */
final class PledgeWatch {
    private final ReentrantLock lock;
    private final Condition changed;

    @GuardedBy("lock")
    private long returned;

    @GuardedBy("lock")
    private boolean closed;

    // Run once at the next guarantee given back (or the close), after the pool's lock is released.
    @GuardedBy("lock")
    private List<Runnable> listeners = new ArrayList<>();

    PledgeWatch(ReentrantLock lock) {
        this.lock = lock;
        this.changed = lock.newCondition();
    }

    /**
     * A guarantee was given back (the pool holds its lock: taking it again is re-entry). Returns
     * {@code after} (what the pool runs once its lock is released) with the listeners to run then.
     */
    List<Runnable> returnedLocked(List<Runnable> after) {
        lock.lock();
        try {
            returned++;
            changed.signalAll();
            return withListenersLocked(after);
        } finally {
            lock.unlock();
        }
    }

    /** The pool closed: every wait ends (under the pool's lock, likewise); returns as above. */
    List<Runnable> closeLocked(List<Runnable> after) {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
            return withListenersLocked(after);
        } finally {
            lock.unlock();
        }
    }

    @GuardedBy("lock")
    private List<Runnable> withListenersLocked(List<Runnable> after) {
        if (listeners.isEmpty()) {
            return after;
        }
        List<Runnable> all = new ArrayList<>(after);
        all.addAll(listeners);
        listeners = new ArrayList<>();
        return all;
    }

    /**
     * Runs {@code listener} once a guarantee has come back after {@code mark} (or the pool closed):
     * at once, on this thread, if one has; else on the thread that gives it back, after the pool's
     * lock is released. O(1).
     */
    void onReturned(long mark, Runnable listener) {
        lock.lock();
        try {
            if (returned == mark && !closed) {
                listeners.add(listener);
                return;
            }
        } finally {
            lock.unlock();
        }
        listener.run();
    }

    long count() {
        lock.lock();
        try {
            return returned;
        } finally {
            lock.unlock();
        }
    }

    /** Whether a guarantee came back after {@code mark} (or the pool closed) within the time. */
    boolean await(long mark, long timeoutNanos) throws InterruptedException {
        long left = timeoutNanos;
        lock.lock();
        try {
            while (returned == mark && !closed) {
                if (left <= 0) {
                    return false;
                }
                left = changed.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }
}
