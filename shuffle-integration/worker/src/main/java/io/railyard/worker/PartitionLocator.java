package io.railyard.worker;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.topology.PartitionId;

/**
 * How a worker reaches a partition another worker holds: the seam between a worker and its peers.
 * The local engine's workers share one process and find each other's {@link PartitionRegistry}
 * directly; a worker in its own process reads remote partitions through a network transport
 * instead, behind the same interface. Implementations are thread-safe.
 */
@FunctionalInterface
public interface PartitionLocator {
    /**
     * The partition {@code id} that worker {@code worker} holds, waiting for it as {@link
     * PartitionRegistry#await} does.
     *
     * @throws PartitionLostException naming {@code id}, if it is released, missing or its worker
     *     cannot be reached
     * @throws InterruptedException if interrupted while waiting
     * @throws RuntimeException {@code waiter}'s cancellation, checked while waiting
     */
    ResultPartition find(int worker, PartitionId id, PartitionRegistry.Waiter waiter)
            throws PartitionLostException, InterruptedException;
}
