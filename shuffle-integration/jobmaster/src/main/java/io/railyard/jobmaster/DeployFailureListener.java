package io.railyard.jobmaster;

import io.railyard.failover.FailureHandling;

/**
 * What an embedding master hears of a task the {@link JobMaster} could not deploy: the gateway's
 * {@link WorkerGateway#deploy} failed, or the task's descriptor could not be created (a consumed
 * group could not be offloaded to the blob store). The JobMaster has already handled it as that
 * attempt's failure — as {@link JobMaster#onTaskFailed(int, int, Throwable)} handles a reported one
 * — and passes the decision on: the embedder runs a {@link FailureHandling.Restart} with {@link
 * JobMaster#restart} after its delay, and ends the job on a {@link FailureHandling.FailJob},
 * exactly as for the decision {@code onTaskFailed} returns. The rest of what was being deployed
 * goes on; only the failed task's restart set waits for that restart.
 *
 * <p>Called on the JobMaster's main thread, after the event (or deployment slice) in which the
 * deploy failed; it must not call back into the JobMaster from within, only hand the decision over
 * (e.g. schedule the restart on the main thread).
 */
@FunctionalInterface
public interface DeployFailureListener {
    /**
     * Attempt {@code attempt} of task {@code task} could not be deployed; {@code handling} is the
     * failover's decision, whose {@link FailureHandling#cause() cause} is the deploy's {@link
     * java.io.IOException}.
     */
    void deployFailed(int task, int attempt, FailureHandling handling);
}
