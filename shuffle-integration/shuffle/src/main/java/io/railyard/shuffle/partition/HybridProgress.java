package io.railyard.shuffle.partition;

import java.util.Arrays;

/**
 * How far each subpartition of a {@link HybridPartition} has read: the regions it no longer needs
 * and the bytes it took of the region it is in — the high-water mark of every reader it had, so a
 * full-mode re-read does not count a region twice. An abandoned selective subpartition needs
 * nothing any more. From this the partition knows which regions someone still needs, and which
 * bytes of a region a spill must keep.
 *
 * <p>Not thread-safe: reached only through its partition's field, which the partition's lock
 * guards. Memory: two ints and a boolean per subpartition.
 */
final class HybridProgress {
    private static final int ABANDONED = Integer.MAX_VALUE;

    /** Per subpartition: regions below it were read by it, or ABANDONED. */
    private final int[] passed;

    /** Per subpartition: bytes it took of region {@code passed[s]}'s section. */
    private final int[] taken;

    private final boolean[] attachedEver;
    private int subpartitionsAttached;
    private int attachedNow;

    HybridProgress(int numSubpartitions) {
        this.passed = new int[numSubpartitions];
        this.taken = new int[numSubpartitions];
        this.attachedEver = new boolean[numSubpartitions];
    }

    /**
     * Counts a reader of {@code s} attached; false, counting nothing, if {@code s} had one before
     * and the partition is {@code readOnce}. O(1).
     */
    boolean attach(int s, boolean readOnce) {
        boolean first = !attachedEver[s];
        if (!first && readOnce) {
            return false;
        }
        attachedEver[s] = true;
        if (first) {
            subpartitionsAttached++;
        }
        attachedNow++;
        return true;
    }

    /** A reader detached. O(1). */
    void detach() {
        attachedNow--;
    }

    /** Readers attached now. */
    int attachedNow() {
        return attachedNow;
    }

    /** Whether every subpartition has had a reader attached. */
    boolean everyAttached() {
        return subpartitionsAttached == passed.length;
    }

    /** Whether {@code s} still needs {@code region}: it has not read it and it holds data for s. */
    boolean needs(int s, HybridRegion region) {
        return passed[s] <= region.index() && region.holdsDataFor(s);
    }

    /** Subpartitions that still need {@code region}. O(subpartitions). */
    int readersOf(HybridRegion region) {
        int readers = 0;
        for (int s = 0; s < passed.length; s++) {
            if (needs(s, region)) {
                readers++;
            }
        }
        return readers;
    }

    /** A reader of {@code s} took its section of {@code region} up to byte {@code offset}. O(1). */
    void took(int s, int region, int offset) {
        if (passed[s] == region) {
            taken[s] = Math.max(taken[s], offset);
        }
    }

    /**
     * A reader of {@code s} leaves {@code region}; true if that is news ({@code s} had not read it
     * before), so the region needs one reader less — if it held data for {@code s}. O(1).
     */
    boolean leave(int s, int region) {
        if (passed[s] != region) {
            return false;
        }
        passed[s] = region + 1;
        taken[s] = 0;
        return true;
    }

    /**
     * {@code s} is abandoned: it needs nothing from now on. Returns the first region it still
     * needed (every region from there on needs one reader less where it held data for {@code s}),
     * or -1 if it was abandoned already. O(1).
     */
    int abandon(int s) {
        if (passed[s] == ABANDONED) {
            return -1;
        }
        int first = passed[s];
        passed[s] = ABANDONED;
        return first;
    }

    /** The first byte of {@code region}'s section that {@code s} still needs (0 if unread). */
    int neededFrom(int s, HybridRegion region) {
        return passed[s] == region.index() ? taken[s] : 0;
    }

    /**
     * Per section of {@code region}: the first byte some subpartition still needs, or -1 where none
     * needs anything. O(subpartitions); allocates the array.
     */
    int[] unconsumedFrom(HybridRegion region) {
        int[] from = new int[region.sections()];
        Arrays.fill(from, -1);
        for (int s = 0; s < passed.length; s++) {
            if (!needs(s, region)) {
                continue;
            }
            int section = region.section(s);
            int at = neededFrom(s, region);
            from[section] = from[section] < 0 ? at : Math.min(from[section], at);
        }
        return from;
    }

    /** Number of subpartitions. */
    int size() {
        return passed.length;
    }
}
