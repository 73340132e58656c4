package io.railyard.benchmarks.procedures;

import static com.google.common.base.Preconditions.checkState;

import io.railyard.shuffle.partition.ResultPartitionWriter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * What the producers and consumers of every partition kind of {@link ShuffleThroughput} share: the
 * records a producer writes, the threads tasks run on, and waiting for them. Stateless.
 */
final class ShuffleTasks {
    /** Distinct records a producer cycles through. */
    private static final int SOURCE_RECORDS = 64;

    /** Records a paced producer emits between looks at the clock. */
    private static final int PACE_RECORDS = 256;

    private ShuffleTasks() {}

    /** The bytes producers slice their records from: 64 records of random bytes. */
    static byte[] source(int recordBytes) {
        byte[] source = new byte[recordBytes * SOURCE_RECORDS];
        new SplittableRandom(7).nextBytes(source);
        return source;
    }

    /** Producer {@code producer}'s share of {@code bytes}: an equal part, the rest to the first. */
    static long share(long bytes, int parallelism, int producer) {
        return bytes / parallelism + (producer < bytes % parallelism ? 1 : 0);
    }

    /**
     * Emits {@code share} bytes of {@code recordBytes}-byte records sliced from {@code source} (the
     * last one shorter if need be), round-robin over the writer's subpartitions from one derived
     * from its name; with {@code pace > 0}, no faster than {@code pace} bytes per second (checked
     * every {@value #PACE_RECORDS} records, parking until the schedule catches up). O(share); no
     * allocation.
     */
    static void writeRecords(
            ResultPartitionWriter writer, long share, int recordBytes, byte[] source, long pace)
            throws IOException {
        ByteBuffer record = ByteBuffer.wrap(source);
        int n = writer.numSubpartitions();
        int target = writer.name().hashCode() & 0xFFFF;
        int slice = 0;
        long start = System.nanoTime();
        for (long left = share; left > 0; left -= recordBytes) {
            if (pace > 0 && slice % PACE_RECORDS == PACE_RECORDS - 1) {
                awaitSchedule(start, share - left, pace);
            }
            int length = (int) Math.min(recordBytes, left);
            int offset = (slice++ & (SOURCE_RECORDS - 1)) * recordBytes;
            record.limit(offset + length).position(offset);
            writer.emit(record, target++ % n);
        }
    }

    /**
     * Fails if consumers of {@code kind} did not read exactly the {@code written} record bytes.
     *
     * @throws IllegalStateException naming both counts (a bug)
     */
    static void checkAllRead(ShuffleThroughput.Kind kind, long read, long written) {
        checkState(
                read == written,
                "%s: consumers read %s bytes of records, producers wrote %s",
                kind.key(),
                read,
                written);
    }

    /**
     * Parks until {@code emitted} bytes are due at {@code pace} bytes per second from {@code
     * start}.
     */
    private static void awaitSchedule(long start, long emitted, long pace)
            throws InterruptedIOException {
        long due = start + (long) (emitted * 1e9 / pace);
        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
            LockSupport.parkNanos(wait);
            if (Thread.interrupted()) {
                throw new InterruptedIOException("interrupted while pacing a producer");
            }
        }
    }

    /**
     * The results of {@code futures} in order; at the first failure the others are cancelled and
     * its cause is thrown (an {@link IOException} as it is, a {@link RuntimeException} as it is,
     * anything else wrapped).
     */
    static <T> List<T> await(List<Future<T>> futures) throws IOException {
        List<T> results = new ArrayList<>(futures.size());
        try {
            for (Future<T> future : futures) {
                results.add(future.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("interrupted");
            interrupted.initCause(e);
            throw interrupted;
        } catch (ExecutionException e) {
            for (Future<T> future : futures) {
                future.cancel(true);
            }
            throw rethrow(Objects.requireNonNull(e.getCause()));
        }
        return results;
    }

    /** {@code cause} as an {@link IOException} to throw; a {@link RuntimeException} is thrown. */
    static IOException rethrow(Throwable cause) {
        if (cause instanceof IOException io) {
            return io;
        }
        if (cause instanceof RuntimeException runtime) {
            throw runtime;
        }
        return new IOException(cause);
    }

    /** Daemon threads named {@code prefix} and a number. */
    static ThreadFactory daemon(String prefix) {
        AtomicLong ids = new AtomicLong();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + ids.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Interrupts {@code threads}' tasks and waits until every one has ended. */
    static void stop(ExecutorService threads) {
        threads.shutdownNow();
        try {
            if (!threads.awaitTermination(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("shuffle tasks did not stop within 5 minutes");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
