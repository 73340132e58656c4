package io.railyard.topology;

/**
 * How the tasks of a consumer job vertex read the partitions of a dataset.
 *
 * <p>The pattern decides the consumer groups of an edge; see {@code ExecutionTopology} in the
 * consumer-groups module for the exact index mapping.
 */
public enum DistributionPattern {
    /** Every consumer task reads every partition of the dataset: one group for the whole edge. */
    ALL_TO_ALL,

    /**
     * Each consumer task reads a contiguous range of partitions, or each partition is read by a
     * contiguous range of consumer tasks, with the integer formulas that Apache Flink uses.
     */
    POINTWISE
}
