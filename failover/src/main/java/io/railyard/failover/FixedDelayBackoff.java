package io.railyard.failover;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * At most {@code maxAttempts} restarts, each after the same delay; see {@link
 * RestartBackoffPolicy#fixedDelay}. A counter and a shared restart decision: O(1) per failure, no
 * allocation on restart. Not thread-safe.
 */
final class FixedDelayBackoff implements RestartBackoffPolicy {
    private final int maxAttempts;
    private final long delayMillis;
    private final RestartDecision restart;
    private long failures;
    private @Nullable Thread owner;

    FixedDelayBackoff(int maxAttempts, Duration delay) {
        checkArgument(maxAttempts >= 1, "maxAttempts must be >= 1, was %s", maxAttempts);
        this.maxAttempts = maxAttempts;
        this.delayMillis = BackoffArguments.toMillis(delay, "delay", 0);
        this.restart = RestartDecision.restartAfter(delayMillis);
    }

    @Override
    public RestartDecision onFailure() {
        assert confined()
                : "policy confined to " + owner + ", called from " + Thread.currentThread();
        if (failures < Long.MAX_VALUE) {
            failures++;
        }
        if (failures <= maxAttempts) {
            return restart;
        }
        return RestartDecision.noRestart(
                "restart attempt "
                        + failures
                        + " exceeds maxAttempts = "
                        + maxAttempts
                        + " of the fixed-delay restart policy; raise maxAttempts to restart more"
                        + " often");
    }

    @Override
    public String toString() {
        return "FixedDelayBackoff{maxAttempts="
                + maxAttempts
                + ", delayMillis="
                + delayMillis
                + ", failures="
                + failures
                + "}";
    }

    private boolean confined() {
        if (owner == null) {
            owner = Thread.currentThread();
        }
        return owner == Thread.currentThread();
    }
}
