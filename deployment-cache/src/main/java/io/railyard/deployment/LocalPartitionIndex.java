package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.topology.PackedRange;
import java.util.Arrays;

/**
 * The producing side of a {@link WorkerSetGroup}: the partitions one worker holds, sorted by id, so
 * that a consumer's request "subpartition s of every partition of group range [first, first + size)
 * you hold" resolves to a contiguous run of them in O(log partitions), without any per- partition
 * map on the JobManager or in the descriptor. Immutable; a worker rebuilds it (or keeps a sorted
 * structure of its own) as partitions are registered and released.
 *
 * <p>Memory: two ints per local partition. Every query O(log n) and allocation-free.
 */
public final class LocalPartitionIndex {
    private final int[] partitions; // ascending, distinct
    private final int[] attempts; // of partitions[i]

    private LocalPartitionIndex(int[] partitions, int[] attempts) {
        this.partitions = partitions;
        this.attempts = attempts;
    }

    /**
     * The index of partitions {@code partitions[i]} at attempt {@code attempts[i]} (copied). O(n
     * log n).
     *
     * @throws IllegalArgumentException if the arrays differ in length, or a partition id is
     *     negative or repeated, or an attempt negative (naming the index)
     */
    public static LocalPartitionIndex of(int[] partitions, int[] attempts) {
        checkArgument(
                partitions.length == attempts.length,
                "partitions (%s) and attempts (%s) must be as many",
                partitions.length,
                attempts.length);
        long[] pairs = new long[partitions.length];
        for (int i = 0; i < partitions.length; i++) {
            checkArgument(
                    partitions[i] >= 0 && attempts[i] >= 0,
                    "partition %s at index %s has attempt %s; both must be >= 0",
                    partitions[i],
                    i,
                    attempts[i]);
            pairs[i] = ((long) partitions[i] << 32) | attempts[i];
        }
        Arrays.sort(pairs);
        int[] sorted = new int[pairs.length];
        int[] sortedAttempts = new int[pairs.length];
        for (int i = 0; i < pairs.length; i++) {
            sorted[i] = (int) (pairs[i] >>> 32);
            sortedAttempts[i] = (int) pairs[i];
            checkArgument(
                    i == 0 || sorted[i] != sorted[i - 1],
                    "partition %s is held twice (attempts %s and %s)",
                    sorted[i],
                    i == 0 ? 0 : sortedAttempts[i - 1],
                    sortedAttempts[i]);
        }
        return new LocalPartitionIndex(sorted, sortedAttempts);
    }

    /** Partitions held. */
    public int size() {
        return partitions.length;
    }

    /** The {@code i}-th partition held, by ascending id. O(1). */
    public int partition(int i) {
        return partitions[checkElementIndex(i, partitions.length, "local index")];
    }

    /** The attempt of the {@code i}-th partition held. O(1). */
    public int attempt(int i) {
        return attempts[checkElementIndex(i, attempts.length, "local index")];
    }

    /**
     * The local indices {@code [lo, hi)} (a {@link PackedRange}) of the partitions held within
     * {@code group}'s range: this worker's share of the group. O(log n), no allocation.
     */
    public long share(WorkerSetGroup group) {
        int from = group.firstPartition();
        int lo = lowerBound(from);
        int hi = lowerBound(from + group.size());
        return PackedRange.of(lo, hi);
    }

    /**
     * The first partition of {@code share} (from {@link #share}) held at another attempt than
     * {@code group} names, or -1: a consumer must not read it (the producer restarted since, or the
     * consumer's descriptor is older). O(share × log exceptions).
     */
    public int firstStale(WorkerSetGroup group, long share) {
        for (int i = PackedRange.start(share); i < PackedRange.end(share); i++) {
            if (attempts[i] != group.producerAttempt(partitions[i] - group.firstPartition())) {
                return partitions[i];
            }
        }
        return -1;
    }

    private int lowerBound(int partition) {
        int lo = 0;
        int hi = partitions.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (partitions[mid] < partition) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
