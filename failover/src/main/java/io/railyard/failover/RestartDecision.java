package io.railyard.failover;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What a {@link RestartBackoffPolicy} decided about one counted failure: restart after {@code
 * delayMillis}, or do not restart at all. Immutable.
 *
 * @param restart whether the failed job (or its failed regions) may restart
 * @param delayMillis how long to wait before restarting, in milliseconds; {@code >= 0}, and {@code
 *     0} when {@code restart} is false
 * @param reason why, for logs and the job's failure cause; a refusal names the setting that was
 *     exhausted and its value
 */
public record RestartDecision(boolean restart, long delayMillis, String reason) {

    /**
     * A decision; {@code delayMillis} must be {@code >= 0} (and {@code 0} for a refusal), {@code
     * reason} not empty. O(1).
     *
     * @throws IllegalArgumentException if a value is out of range
     * @throws NullPointerException if {@code reason} is null
     */
    public RestartDecision {
        requireNonNull(reason, "reason");
        checkArgument(delayMillis >= 0, "delayMillis must be >= 0, was %s", delayMillis);
        checkArgument(
                restart || delayMillis == 0,
                "delayMillis of a refusal must be 0, was %s",
                delayMillis);
        checkArgument(!reason.isEmpty(), "reason must not be empty");
    }

    /**
     * Restart after {@code delayMillis} milliseconds ({@code >= 0}), with a reason that states the
     * delay. O(1); allocates the decision.
     *
     * @throws IllegalArgumentException if {@code delayMillis} is negative
     */
    public static RestartDecision restartAfter(long delayMillis) {
        return new RestartDecision(true, delayMillis, "restart after " + delayMillis + " ms");
    }

    /**
     * Do not restart, because of {@code reason} (not empty; name the setting to change). O(1).
     *
     * @throws IllegalArgumentException if {@code reason} is empty
     * @throws NullPointerException if {@code reason} is null
     */
    public static RestartDecision noRestart(String reason) {
        return new RestartDecision(false, 0, reason);
    }
}
