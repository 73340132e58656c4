package io.railyard.shuffle.buffer;

import com.google.errorprone.annotations.concurrent.GuardedBy;
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

    PledgeWatch(ReentrantLock lock) {
        this.lock = lock;
        this.changed = lock.newCondition();
    }

    /** A guarantee was given back (the pool holds its lock: taking it again is re-entry). */
    void returnedLocked() {
        lock.lock();
        try {
            returned++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The pool closed: every wait ends (under the pool's lock, likewise). */
    void closeLocked() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
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
