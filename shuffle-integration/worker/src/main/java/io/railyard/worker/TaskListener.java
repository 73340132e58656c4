package io.railyard.worker;

import io.railyard.topology.AttemptId;

/**
 * Where a {@link Worker} reports the end of each task attempt: the JobManager side of the worker
 * (the local engine posts each report to its JobManager's main thread). Called on the task's
 * thread, or on the deploying thread when a deployment fails; must not block.
 */
public interface TaskListener {
    /** Attempt {@code attempt} finished and committed {@code tally}. */
    void finished(AttemptId attempt, Tally tally);

    /**
     * Attempt {@code attempt} failed with {@code cause} (not reported for an attempt that was
     * cancelled: its end is expected). A lost input surfaces as a {@link
     * io.railyard.shuffle.PartitionLostException} in the cause chain, naming the partition.
     */
    void failed(AttemptId attempt, Throwable cause);
}
