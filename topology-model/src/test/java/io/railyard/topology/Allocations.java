package io.railyard.topology;

import java.lang.management.ManagementFactory;

/**
 * Heap bytes the current thread allocates per call of an operation, for tests of "no allocation"
 * promises on hot paths (shipped in the test-jar for every module).
 *
 * <p>The operation runs {@code calls} times per round: first {@value #WARM_UP_ROUNDS} rounds so
 * that the JIT has compiled it, then {@value #MEASURED_ROUNDS} measured rounds around which the
 * thread's allocation counter ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}) is
 * read. The least of the measured rounds counts, so a one-off allocation of the test harness cannot
 * fail a test; anything the operation allocates on every call (at least 16 bytes per object) shows
 * as a mean of at least that many bytes per call. Measures bytes, never time.
 */
public final class Allocations {
    private static final int WARM_UP_ROUNDS = 10;
    private static final int MEASURED_ROUNDS = 3;

    /** Keeps the operations' results alive so that the JIT cannot drop the calls. */
    @SuppressWarnings("unused")
    private static volatile long sink;

    /** An operation on a call number; its result is kept. */
    @FunctionalInterface
    public interface Operation {
        /** Runs call number {@code call} (from 0) and returns something derived from its result. */
        long run(int call);
    }

    private Allocations() {}

    /**
     * The mean heap bytes the current thread allocates per call of {@code operation}, after
     * warm-up; the least over a few measured rounds of {@code calls} calls each.
     *
     * @throws UnsupportedOperationException if the JVM does not count allocated bytes per thread
     */
    public static double bytesPerCall(int calls, Operation operation) {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        if (!threads.isThreadAllocatedMemorySupported()) {
            throw new UnsupportedOperationException("this JVM does not count allocated bytes");
        }
        threads.setThreadAllocatedMemoryEnabled(true);
        long thread = Thread.currentThread().getId();
        long results = 0;
        for (int round = 0; round < WARM_UP_ROUNDS; round++) {
            results += runRound(calls, operation);
        }
        long least = Long.MAX_VALUE;
        for (int round = 0; round < MEASURED_ROUNDS; round++) {
            long before = threads.getThreadAllocatedBytes(thread);
            results += runRound(calls, operation);
            long after = threads.getThreadAllocatedBytes(thread);
            least = Math.min(least, after - before);
        }
        sink = results;
        return (double) least / calls;
    }

    private static long runRound(int calls, Operation operation) {
        long results = 0;
        for (int call = 0; call < calls; call++) {
            results += operation.run(call);
        }
        return results;
    }
}
