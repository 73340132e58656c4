package io.railyard.failover;

import static com.google.common.base.Preconditions.checkElementIndex;
import static com.google.common.base.Preconditions.checkPositionIndexes;

import io.railyard.topology.FixedBits;
import io.railyard.topology.JobGraph;

/**
 * Partition availability fed by events: a partition becomes available when its producer finishes
 * it, and stops being available when it is lost (a consumer failed reading it, or its worker was
 * lost), released, or taken back because its producer restarts. Nothing is available at first.
 *
 * <p>A bit per partition; every event O(1), {@link #nextUnavailable(int, int)} O(1 + range / 64).
 * Not thread-safe: feed it from the JobManager's main thread.
 */
public final class PartitionTracker implements PartitionAvailability {
    private final JobGraph graph;
    private final FixedBits available;

    /** A tracker for the partitions of {@code graph}, none available. O(partitions / 64). */
    public PartitionTracker(JobGraph graph) {
        this.graph = graph;
        this.available = new FixedBits(graph.numPartitions());
    }

    /** Partition {@code partition} was produced completely and can be read (again). */
    public void onPartitionFinished(int partition) {
        available.set(checkPartition(partition));
    }

    /** Partition {@code partition} was found lost (missing or unreadable data). */
    public void onPartitionLost(int partition) {
        available.clear(checkPartition(partition));
    }

    /** Partition {@code partition} was released by the scheduler; its data is gone. */
    public void onPartitionReleased(int partition) {
        available.clear(checkPartition(partition));
    }

    /**
     * Partitions {@code [from, to)} are no longer available: their producers restart (and will
     * produce them again), or their worker was lost. O(1 + (to − from) / 64).
     */
    public void onPartitionsInvalidated(int from, int to) {
        checkPositionIndexes(from, to, graph.numPartitions());
        available.clear(from, to);
    }

    @Override
    public int nextUnavailable(int from, int to) {
        checkPositionIndexes(from, to, graph.numPartitions());
        return Math.min(available.nextClearBit(from), to);
    }

    /** How many partitions are available. O(partitions / 64). */
    public int numAvailable() {
        return available.cardinality();
    }

    private int checkPartition(int partition) {
        return checkElementIndex(partition, graph.numPartitions(), "partition");
    }
}
