package io.railyard.worker;

/**
 * How a worker reaches a partition another worker holds: the seam between a worker and its peers.
 * The local engine's workers share one process and find each other's {@link PartitionRegistry}
 * directly; a worker in its own process reads remote partitions through a network transport instead
 * ({@link ShuffleNetwork}). Implementations are thread-safe.
 */
@FunctionalInterface
public interface PartitionLocator {
    /**
     * The registry of worker {@code worker}'s partitions, to find one without waiting ({@link
     * PartitionRegistry#find}) and to hear of the next registration there ({@link
     * PartitionRegistry#onChange}). O(1).
     *
     * @throws IndexOutOfBoundsException if there is no such worker
     */
    PartitionRegistry registry(int worker);
}
