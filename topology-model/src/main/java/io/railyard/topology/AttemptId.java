package io.railyard.topology;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * One attempt of one task: the task's id in {@link JobGraph}'s task id space and its attempt
 * number. The seam's value type (a deployed attempt, a cancellation, a queued request); structures
 * that hold many attempts pack them into one {@code long} with {@link #pack(int, int)} and read
 * them back with {@link #task(long)} and {@link #attempt(long)}, the one place that layout is
 * written.
 *
 * @param task the task id, {@code >= 0}
 * @param attempt the attempt number, {@code >= 0}
 */
public record AttemptId(int task, int attempt) {
    /**
     * Checks the ranges.
     *
     * @throws IllegalArgumentException if either is negative, naming which and its value
     */
    public AttemptId {
        checkArgument(task >= 0, "task must be >= 0, got %s", task);
        checkArgument(attempt >= 0, "attempt must be >= 0, got %s", attempt);
    }

    /** This attempt packed into one {@code long}: {@code pack(task(), attempt())}. O(1). */
    public long pack() {
        return pack(task, attempt);
    }

    /** The attempt a {@link #pack packed} value holds. O(1); allocates the record. */
    public static AttemptId unpack(long packed) {
        return new AttemptId(task(packed), attempt(packed));
    }

    /**
     * Task {@code task}'s attempt {@code attempt} in one {@code long}: the task in the high 32
     * bits, the attempt in the low 32. O(1), no allocation, no range check.
     */
    public static long pack(int task, int attempt) {
        return ((long) task << 32) | (attempt & 0xFFFF_FFFFL);
    }

    /** The task of a {@link #pack packed} attempt. O(1). */
    public static int task(long packed) {
        return (int) (packed >>> 32);
    }

    /** The attempt number of a {@link #pack packed} attempt. O(1). */
    public static int attempt(long packed) {
        return (int) packed;
    }

    /** {@code t<task>.a<attempt>}, e.g. {@code t5.a1}. */
    @Override
    public String toString() {
        return "t" + task + ".a" + attempt;
    }
}
