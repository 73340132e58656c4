package io.railyard.shuffle;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;

/**
 * Measures the heap bytes the calling thread allocates, for tests of "no allocation" promises on
 * the data path. Counts bytes, not time: the HotSpot per-thread allocation counter (TLAB-exact,
 * unaffected by other threads or the machine's speed).
 */
public final class AllocationMeter {
    /** Bytes a measurement may show in total whatever the number of calls (counter noise). */
    public static final long NOISE_BYTES = 256;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private AllocationMeter() {}

    /** One measured action, run once per call. */
    @FunctionalInterface
    public interface Action {
        /** Runs call number {@code i}. */
        void run(int i) throws Exception;
    }

    /** Bytes the current thread allocated so far. */
    public static long allocatedBytes() {
        return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    /**
     * Runs {@code action} {@code warmUp} times unmeasured, then {@code calls} times measured, and
     * returns the bytes the measured calls allocated on this thread.
     */
    public static long measure(int warmUp, int calls, Action action) throws Exception {
        assertThat(THREADS.isThreadAllocatedMemorySupported()).isTrue();
        THREADS.setThreadAllocatedMemoryEnabled(true);
        for (int i = 0; i < warmUp; i++) {
            action.run(i);
        }
        long before = allocatedBytes();
        for (int i = 0; i < calls; i++) {
            action.run(i);
        }
        return allocatedBytes() - before;
    }

    /**
     * As {@link #measure}, then twice more without the warm-up: the bytes of the round that
     * allocated least. For actions that may run again ({@code calls} more times, from {@code 0}).
     * What is promised is the compiled steady state: a round in which the JIT finished compiling
     * runs partly interpreted, where escape analysis does not remove temporary objects (seen once
     * in CI: 14 KB over 10,000 calls of a sort writer's emit that allocates nothing compiled). An
     * allocation per call shows in every round.
     */
    public static long measureLeastOfThree(int warmUp, int calls, Action action) throws Exception {
        long least = measure(warmUp, calls, action);
        for (int round = 1; round < 3; round++) {
            least = Math.min(least, measure(0, calls, action));
        }
        return least;
    }

    /**
     * Asserts that {@code bytes} allocated over {@code calls} calls average below one byte per call
     * once {@link #NOISE_BYTES} are allowed for the counter itself (the smallest object is 16
     * bytes, so any per-call allocation fails).
     */
    public static void assertBelowOneBytePerCall(String what, long bytes, int calls) {
        System.out.printf(
                "%s: %d bytes over %d calls (%.3f per call)%n",
                what, bytes, calls, (double) bytes / calls);
        assertThat((double) (bytes - NOISE_BYTES) / calls)
                .as("%s: bytes per call (%s bytes over %s calls)", what, bytes, calls)
                .isLessThan(1.0);
    }
}
