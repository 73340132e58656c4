package io.railyard.benchmarks.procedures;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the producers and consumers of every partition kind of {@link ShuffleThroughput} share: the
 * threads tasks run on, and waiting for them (the records are {@link ShuffleRecords}'). Stateless;
 * public for the comparison with Flink, which runs its tasks the same way.
 */
public final class ShuffleTasks {
    private ShuffleTasks() {}

    /**
     * The results of {@code futures} in order; at the first failure the others are cancelled and
     * its cause is thrown (an {@link IOException} as it is, a {@link RuntimeException} as it is,
     * anything else wrapped).
     */
    public static <T> List<T> await(List<Future<T>> futures) throws IOException {
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
    public static IOException rethrow(Throwable cause) {
        if (cause instanceof IOException io) {
            return io;
        }
        if (cause instanceof RuntimeException runtime) {
            throw runtime;
        }
        return new IOException(cause);
    }

    /** Daemon threads named {@code prefix} and a number. */
    public static ThreadFactory daemon(String prefix) {
        AtomicLong ids = new AtomicLong();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + ids.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Interrupts {@code threads}' tasks and waits until every one has ended. */
    public static void stop(ExecutorService threads) {
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
