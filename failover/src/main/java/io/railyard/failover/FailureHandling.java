package io.railyard.failover;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What {@link FailoverHandler#onTaskFailed} decided about one failure event: {@link Ignored} (a
 * stale attempt), {@link Restart} (cancel the set now, restart it after a delay) or {@link FailJob}
 * (the back-off policy refused). Each shape carries exactly what its outcome needs; callers branch
 * with {@code instanceof}. Immutable.
 */
public sealed interface FailureHandling
        permits FailureHandling.Ignored, FailureHandling.Restart, FailureHandling.FailJob {

    /** Why, in words (the back-off policy's reason when it decided). */
    String reason();

    /** The task's failure that this event reported, its chain intact. */
    Throwable cause();

    /**
     * The event was of a stale attempt (already being restarted, or older) or came after the job
     * failed: nothing to do.
     *
     * @param reason why it is stale
     * @param cause the reported failure
     */
    record Ignored(String reason, Throwable cause) implements FailureHandling {
        /** Checks that both are given. */
        public Ignored {
            requireNonNull(reason, "reason");
            requireNonNull(cause, "cause");
        }
    }

    /**
     * Cancel {@code tasks} now, wait {@code delayMillis}, then restart them ({@link
     * FailoverHandler#restart(Restart)}).
     *
     * @param tasks the tasks (and regions) to restart
     * @param delayMillis how long to wait before restarting, {@code >= 0}
     * @param reason the back-off policy's reason, which states the delay
     * @param cause the reported failure
     */
    record Restart(RestartSet tasks, long delayMillis, String reason, Throwable cause)
            implements FailureHandling {
        /** Checks the delay and that every part is given. */
        public Restart {
            requireNonNull(tasks, "tasks");
            checkArgument(delayMillis >= 0, "delayMillis must be >= 0, was %s", delayMillis);
            requireNonNull(reason, "reason");
            requireNonNull(cause, "cause");
        }
    }

    /**
     * The back-off policy refuses another restart: the job fails.
     *
     * @param failure the job's failure, whose cause chain holds {@code cause}
     * @param reason the policy's reason, naming the setting that was exhausted
     * @param cause the reported failure
     */
    record FailJob(JobFailedException failure, String reason, Throwable cause)
            implements FailureHandling {
        /** Checks that every part is given. */
        public FailJob {
            requireNonNull(failure, "failure");
            requireNonNull(reason, "reason");
            requireNonNull(cause, "cause");
        }
    }
}
