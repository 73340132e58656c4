package io.railyard.failover;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * What {@link FailoverHandler#onTaskFailed} decided about one failure event.
 *
 * @param outcome what to do
 * @param delayMillis for {@link Outcome#RESTART}: wait this long, then call {@link
 *     FailoverHandler#restart(FailureHandling)}; 0 otherwise
 * @param tasks for {@link Outcome#RESTART}: the tasks (and regions) to restart; null otherwise
 * @param reason why, in words (the back-off policy's reason when the job fails)
 * @param cause the task's failure that this event reported, its chain intact
 * @param jobFailure for {@link Outcome#FAIL_JOB}: the job's failure, whose cause is {@code cause};
 *     null otherwise
 */
public record FailureHandling(
        Outcome outcome,
        long delayMillis,
        @Nullable RestartSet tasks,
        String reason,
        Throwable cause,
        @Nullable JobFailedException jobFailure) {

    /** The three possible outcomes. */
    public enum Outcome {
        /** The event was of a stale attempt (already being restarted, or older): nothing to do. */
        IGNORED,
        /** Cancel {@link #tasks()}, wait {@link #delayMillis()}, then restart them. */
        RESTART,
        /** The back-off policy refuses another restart: the job fails. */
        FAIL_JOB
    }

    /** Checks that the fields fit the outcome. */
    public FailureHandling {
        checkArgument(delayMillis >= 0, "delayMillis must be >= 0, was %s", delayMillis);
        checkArgument(
                (outcome == Outcome.RESTART) == (tasks != null),
                "tasks must be given exactly for RESTART, outcome was %s",
                outcome);
        requireNonNull(cause, "cause");
        checkArgument(
                (outcome == Outcome.FAIL_JOB) == (jobFailure != null),
                "jobFailure must be given exactly for FAIL_JOB, outcome was %s",
                outcome);
    }

    /** The tasks to restart. @throws IllegalStateException if the outcome is not RESTART */
    public RestartSet restartSet() {
        if (tasks == null) {
            throw new IllegalStateException("no restart set: the outcome is " + outcome);
        }
        return tasks;
    }

    /**
     * The job's failure, whose cause chain holds the task's failure ({@link #cause()}).
     *
     * @throws IllegalStateException if the outcome is not FAIL_JOB
     */
    public JobFailedException failure() {
        if (jobFailure == null) {
            throw new IllegalStateException("no job failure: the outcome is " + outcome);
        }
        return jobFailure;
    }
}
