package io.railyard.shuffle.partition;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * When a {@link PartitionKind#PIPELINED pipelined} producer pauses for room: at its bound of
 * resident pages, for as long as it takes while every subpartition has a consumer attached, else
 * for what is left of {@link HybridPartition#ABSENT_CONSUMER_WAIT_MILLIS} in all (a consumer
 * without a slot may attach only once this producer ended); and the wakers of a paused producer.
 *
 * <p>Not thread-safe: reached only through its partition's field, which the partition's lock
 * guards. O(1) per call; allocates only a list of wakers to run.
 */
final class ProducerRoom {
    private final List<Runnable> waiters = new ArrayList<>(1);
    private long absentWaitLeftNanos =
            TimeUnit.MILLISECONDS.toNanos(HybridPartition.ABSENT_CONSUMER_WAIT_MILLIS);
    private long absentSinceNanos = -1; // when the pause with an absent consumer began

    /**
     * The producer asks at {@code now} whether to pause, with {@code atBound} whether the partition
     * holds its bound of resident pages and {@code everyoneAttached} whether every subpartition has
     * a consumer. Returns 0 to go on, or how long at most to pause (registering {@code waker}).
     */
    long pauseNanos(long now, boolean atBound, boolean everyoneAttached, Runnable waker) {
        if (!atBound) {
            charge(now);
            return 0;
        }
        long pause = Long.MAX_VALUE;
        if (everyoneAttached) {
            charge(now);
        } else {
            if (absentSinceNanos < 0) {
                absentSinceNanos = now;
            }
            pause = absentWaitLeftNanos - (now - absentSinceNanos);
            if (pause <= 0) {
                charge(now);
                return 0; // go on as selective
            }
        }
        if (waiters.isEmpty() || waiters.get(waiters.size() - 1) != waker) {
            waiters.add(waker);
        }
        return pause;
    }

    /** The wakers registered so far, removed: room may have come (or the partition is lost). */
    List<Runnable> takeWaiters() {
        if (waiters.isEmpty()) {
            return List.of();
        }
        List<Runnable> wake = new ArrayList<>(waiters);
        waiters.clear();
        return wake;
    }

    /** The absent-consumer budget stops running: the time since it started is spent. */
    private void charge(long now) {
        if (absentSinceNanos >= 0) {
            absentWaitLeftNanos = Math.max(0, absentWaitLeftNanos - (now - absentSinceNanos));
            absentSinceNanos = -1;
        }
    }
}
