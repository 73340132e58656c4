package io.railyard.topology;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * One attempt's result partition, as the scheduler and the shuffle layer name it to each other: the
 * partition's id in {@link JobGraph}'s partition id space ({@link JobGraph#firstPartition} of its
 * data set plus the producing subtask) and the attempt of the task that produced it. A partition
 * written by attempt 0 and lost is not the partition attempt 1 writes: a report naming the old
 * attempt must not fail the new one.
 *
 * <p>The seam's value type only: structures that hold many partitions keep plain ints. {@link
 * #toString()} ({@code p<partition>.a<attempt>}) is also a valid shuffle-layer partition name.
 *
 * @param partition the partition id, {@code >= 0}
 * @param attempt the producing task's attempt, {@code >= 0}
 */
public record PartitionId(int partition, int attempt) {
    /**
     * Checks the ranges.
     *
     * @throws IllegalArgumentException if either is negative, naming which and its value
     */
    public PartitionId {
        checkArgument(partition >= 0, "partition must be >= 0, got %s", partition);
        checkArgument(attempt >= 0, "attempt must be >= 0, got %s", attempt);
    }

    /** {@code p<partition>.a<attempt>}, e.g. {@code p17.a2}. */
    @Override
    public String toString() {
        return "p" + partition + ".a" + attempt;
    }
}
