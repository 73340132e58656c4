package io.railyard.failover;

/**
 * Which result partitions can be read again by a restarted consumer: a partition is available when
 * its producer finished it and it was neither lost nor released since. Failover asks it for the
 * partitions of each consumed partition group it expands; {@link PartitionTracker} answers it from
 * events.
 *
 * <p>Partition ids are those of the job graph, {@code [0, numPartitions)}. The type rule (only
 * BLOCKING and HYBRID_FULL partitions can be re-read) is applied by {@link RegionFailover}, not
 * here.
 */
@FunctionalInterface
public interface PartitionAvailability {
    /**
     * The first partition in {@code [from, to)} that is not available, or {@code to} when all are.
     * Should cost O(1 + (to − from) / 64) or better, since a group may hold 10^5 partitions.
     */
    int nextUnavailable(int from, int to);

    /** Whether partition {@code partition} is available. */
    default boolean isAvailable(int partition) {
        return nextUnavailable(partition, partition + 1) != partition;
    }

    /** Every partition available (useful for tests and for comparisons with Flink). */
    static PartitionAvailability all() {
        return (from, to) -> to;
    }

    /** No partition available. */
    static PartitionAvailability none() {
        return (from, to) -> from < to ? from : to;
    }
}
