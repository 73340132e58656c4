package io.railyard.flink;

import io.railyard.shuffle.buffer.InsufficientNetworkMemoryException;
import io.railyard.shuffle.buffer.NetworkBufferPool;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Waiting for network memory that will come back: a writer or gate the TaskManager's pool cannot
 * pledge now is created again each time another gives its guarantee back (a task ended, a partition
 * was released), instead of failing the task at once and having Flink restart it into the same
 * shortage. It gives up with the shortage after {@link #NO_PROGRESS} in which none came back (the
 * memory may be held by tasks that wait for this one), as Railyard's own workers do.
 *
 * <p>Stateless; called on a task's thread, which Flink interrupts to cancel it.
 */
final class MemoryWait {
    /** How long a task waits without any guarantee coming back before it fails. */
    static final Duration NO_PROGRESS = Duration.ofSeconds(30);

    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** Something that pledges pages of the pool, or throws if it cannot. */
    @FunctionalInterface
    interface Pledging<T> {
        T create() throws IOException;
    }

    private MemoryWait() {}

    /**
     * {@code pledging}'s result, created as soon as {@code pool} can pledge it.
     *
     * @throws InsufficientNetworkMemoryException the last shortage, once {@link #NO_PROGRESS}
     *     passed without any guarantee coming back
     * @throws InterruptedIOException if the thread was interrupted (the task was cancelled)
     * @throws IOException what {@code pledging} throws otherwise
     */
    static <T> T create(NetworkBufferPool pool, Pledging<T> pledging) throws IOException {
        long deadline = System.nanoTime() + NO_PROGRESS.toNanos();
        while (true) {
            long mark = pool.pledgesReturned();
            try {
                return pledging.create();
            } catch (InsufficientNetworkMemoryException shortage) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw shortage;
                }
                try {
                    if (pool.awaitPledgeReturned(mark, Math.min(left, RECHECK_NANOS))) {
                        deadline = System.nanoTime() + NO_PROGRESS.toNanos();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    InterruptedIOException cancelled =
                            new InterruptedIOException(
                                    "cancelled while waiting for network memory");
                    cancelled.addSuppressed(shortage);
                    throw cancelled;
                }
            }
        }
    }
}
