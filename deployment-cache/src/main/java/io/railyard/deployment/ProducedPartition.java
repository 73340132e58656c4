package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;

import io.railyard.topology.ResultPartitionType;

/**
 * A partition a task produces, as its deployment descriptor lists it.
 *
 * @param partition the partition id
 * @param dataSet the dataset it belongs to
 * @param numSubpartitions how many subpartitions it is written as (the most consumers that read it
 *     on any one consumer edge), at least 1
 * @param type its result-partition type
 */
public record ProducedPartition(
        int partition, int dataSet, int numSubpartitions, ResultPartitionType type) {

    /** Checks the ranges. */
    public ProducedPartition {
        checkArgument(partition >= 0, "partition must be >= 0, was %s", partition);
        checkArgument(dataSet >= 0, "dataSet must be >= 0, was %s", dataSet);
        checkArgument(
                numSubpartitions >= 1, "numSubpartitions must be >= 1, was %s", numSubpartitions);
    }
}
