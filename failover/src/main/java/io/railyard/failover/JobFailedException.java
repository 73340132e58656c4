package io.railyard.failover;

/**
 * A job failed for good: a task failed and the restart back-off policy refused another restart. The
 * message names the task, its attempt and the policy's reason (which names the setting to change);
 * the cause is the task's own failure with its chain intact, so whoever runs the job sees why the
 * task failed as well as why it was not restarted. Built by {@link FailoverHandler} once per job,
 * on the failure the policy refused.
 */
public final class JobFailedException extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * A job failure that {@code cause} (the task's failure) led to, described by {@code message}.
     */
    public JobFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
