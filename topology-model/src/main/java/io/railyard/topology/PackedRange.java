package io.railyard.topology;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * A half-open int range {@code [start, end)} packed into one {@code long}, so that range queries
 * return without allocating.
 *
 * <p>The start is stored in the high 32 bits and the end in the low 32 bits. Both are non-negative.
 * Every method is O(1) and allocates nothing except {@link #toString(long)}.
 *
 * <pre>{@code
 * long r = topology.partitionRange(group);
 * for (int p = PackedRange.start(r); p < PackedRange.end(r); p++) { ... }
 * }</pre>
 */
public final class PackedRange {
    /** The empty range {@code [0, 0)}. */
    public static final long EMPTY = 0L;

    private PackedRange() {}

    /**
     * Packs {@code [start, end)}.
     *
     * @throws IllegalArgumentException if {@code start < 0} or {@code end < start}
     */
    public static long of(int start, int end) {
        checkArgument(
                start >= 0 && end >= start,
                "range [%s, %s) is invalid: need 0 <= start <= end",
                start,
                end);
        return pack(start, end);
    }

    /** Packs without checking; callers guarantee {@code 0 <= start <= end}. */
    static long pack(int start, int end) {
        return ((long) start << 32) | (end & 0xFFFF_FFFFL);
    }

    /** The first element of the range (inclusive). */
    public static int start(long range) {
        return (int) (range >>> 32);
    }

    /** The end of the range (exclusive). */
    public static int end(long range) {
        return (int) range;
    }

    /** The number of elements in the range. */
    public static int size(long range) {
        return end(range) - start(range);
    }

    /** Whether {@code value} lies in the range. */
    public static boolean contains(long range, int value) {
        return value >= start(range) && value < end(range);
    }

    /** The range as {@code [start, end)}, for messages and tests. Allocates. */
    public static String toString(long range) {
        return "[" + start(range) + ", " + end(range) + ")";
    }
}
