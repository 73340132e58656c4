package io.railyard.shuffle.partition;

import io.railyard.shuffle.buffer.NetworkBufferPool;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * When a {@link PartitionKind#PIPELINED pipelined} producer pauses for its worker's network memory:
 * before its sort buffer holds more than the pool could lend it as a resident region, as long as
 * pages lent to pipelined partitions ({@link NetworkBufferPool#drainingPages}) would cover the
 * difference once their consumers read them. It then waits for spare pages ({@link
 * NetworkBufferPool#onSpare}), looking again every {@link #RECHECK_MILLIS} ms; it goes on — and its
 * region goes to disk — once for {@link #PATIENCE_MILLIS} ms no draining owner gave a page back and
 * no consumer of the worker read from memory (consumers that do not read), or when waiting cannot
 * help. Reads count, not only pages given back: a region's pages come back once its last consumer
 * read it, and with 10,000 consumers on 2 threads a round of them takes longer than the patience
 * while every one of them reads.
 *
 * <p>So a pipelined job whose consumers all run keeps its data in memory: producers run as fast as
 * consumers free pages, never spilling. The check runs when the pages a seal would need grow (once
 * per page of buffered data), not per record.
 *
 * <p>Owned by the producer's thread; the spare-page listener, which runs on the thread giving pages
 * back, only clears a flag and runs the waker. O(1) per call; allocates a listener per wait.
 */
final class PoolRoom {
    /** How often a paused producer looks again. */
    static final long RECHECK_MILLIS = 20;

    /** How long it waits without any draining owner giving a page back. */
    static final long PATIENCE_MILLIS = 1000;

    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS);
    private static final long PATIENCE_NANOS = TimeUnit.MILLISECONDS.toNanos(PATIENCE_MILLIS);

    private final NetworkBufferPool pool;
    private final LongSupplier bytesReadFromMemory;
    private int roomFor; // the seal size last found room for (or not worth waiting for)
    private long pausedSince = -1;
    private long progressMark; // pages drained + bytes read from memory when last seen
    private volatile boolean listening;

    /**
     * Pauses for {@code pool}'s pages; {@code bytesReadFromMemory} counts what the worker's
     * consumers read from resident regions (thread-safe, monotonic).
     */
    PoolRoom(NetworkBufferPool pool, LongSupplier bytesReadFromMemory) {
        this.pool = pool;
        this.bytesReadFromMemory = bytesReadFromMemory;
    }

    /**
     * Whether to pause before the next record, when sealing the buffer now would borrow {@code
     * pages}: 0 to go on, else the nanoseconds after which to look again ({@code waker} runs sooner
     * if spare pages come).
     */
    long pauseNanos(int pages, Runnable waker) {
        if (pages <= roomFor) {
            return 0;
        }
        int spare = pool.sparePages();
        if (spare >= pages || spare + pool.drainingPages() < pages) {
            return goOn(pages);
        }
        long now = System.nanoTime();
        long progress = pool.drainedPages() + bytesReadFromMemory.getAsLong();
        if (pausedSince < 0 || progress != progressMark) {
            pausedSince = now;
            progressMark = progress;
        } else if (now - pausedSince >= PATIENCE_NANOS) {
            return goOn(pages); // nobody read or gave back: the region goes to disk
        }
        if (!listening) {
            listening = true;
            pool.onSpare(
                    pages,
                    () -> {
                        listening = false;
                        waker.run();
                    });
        }
        return RECHECK_NANOS;
    }

    private long goOn(int pages) {
        roomFor = pages;
        pausedSince = -1;
        return 0;
    }

    /** The buffer was sealed: the next seal starts small again. */
    void sealed() {
        roomFor = 0;
    }
}
