package io.railyard.failover;

import java.time.Duration;
import java.time.InstantSource;
import java.util.random.RandomGenerator;

/**
 * Decides whether and when a failed job, or its failed regions, may restart. The failover layer
 * reports each counted failure with {@link #onFailure()} and follows the {@link RestartDecision}.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li><b>What counts.</b> One call is one counted failure, that is one restart the caller would
 *       perform. Which failures count is the caller's business: failures of attempts that are
 *       already being restarted, or several failures handled by one restart, should be one call.
 *   <li><b>A refusal is final for the job,</b> which the caller then fails terminally. Policies do
 *       not latch it: a further call applies the same rules to the new failure.
 *   <li><b>Time</b> comes from an injected {@link InstantSource}, read once per call in
 *       milliseconds. A clock that goes backwards never breaks a policy: negative elapsed time is
 *       read as 0.
 *   <li><b>Durations</b> are truncated to whole milliseconds; one that does not fit in a {@code
 *       long} of milliseconds is rejected.
 *   <li><b>Cost.</b> Every policy decides in O(1) per failure (the failure-rate policy amortised,
 *       see {@link #failureRate}) and holds O(1) state, except the failure-rate ring.
 * </ul>
 *
 * <h2>Threading</h2>
 *
 * Not thread-safe: a policy is owned by the JobManager's main thread. Stateful policies assert
 * (with {@code -ea}) that every call comes from the thread of their first call.
 */
@FunctionalInterface
public interface RestartBackoffPolicy {

    /**
     * Records one failure (one counted attempt) at the clock's current time and decides whether and
     * after how long to restart. O(1) (amortised for {@link #failureRate}); may allocate the
     * decision.
     */
    RestartDecision onFailure();

    /**
     * The policy that refuses every restart; its reason says the policy is "no restart". Stateless,
     * shared, O(1) per failure without allocation.
     */
    static RestartBackoffPolicy noRestart() {
        return NoRestartBackoff.INSTANCE;
    }

    /**
     * At most {@code maxAttempts} restarts in the job's lifetime, each after {@code delay}; failure
     * {@code maxAttempts + 1} and every later one is refused with a reason naming the attempt and
     * the limit. Needs no clock. O(1) per failure; a restart allocates nothing.
     *
     * @param maxAttempts how many restarts are allowed, {@code >= 1}
     * @param delay the back-off before each restart, {@code >= 0}
     * @throws IllegalArgumentException if an argument is out of range
     * @throws NullPointerException if {@code delay} is null
     */
    static RestartBackoffPolicy fixedDelay(int maxAttempts, Duration delay) {
        return new FixedDelayBackoff(maxAttempts, delay);
    }

    /**
     * Exponentially growing back-off with jitter, reset after a quiet period; see {@link
     * ExponentialDelayBackoff} for the rules. O(1) per failure; allocates the decision.
     *
     * @param options the settings, validated when they were built
     * @param clock the time source, read in milliseconds
     * @param random the source of jitter; used only when the jitter factor is above 0
     * @throws NullPointerException if an argument is null
     */
    static RestartBackoffPolicy exponentialDelay(
            ExponentialDelayBackoff.Options options, InstantSource clock, RandomGenerator random) {
        return new ExponentialDelayBackoff(options, clock, random);
    }

    /**
     * Restarts after {@code delay} as long as at most {@code maxFailuresPerWindow} failures,
     * counting this one, happened within the last {@code window}; otherwise refuses with a reason
     * naming the count, the window and the limit. A failure exactly {@code window} ago is outside.
     *
     * <p>Keeps the times of the last {@code maxFailuresPerWindow} failures in a ring of {@code
     * long}s that grows by doubling up to that size, so a failure costs O(1) amortised and memory
     * is 8 bytes per remembered failure. A restart allocates nothing but that growth: every restart
     * returns one shared decision.
     *
     * @param maxFailuresPerWindow failures allowed within a window, {@code >= 1}
     * @param window the length of the sliding window, {@code >= 1 ms}
     * @param delay the back-off before each restart, {@code >= 0}
     * @param clock the time source, read in milliseconds
     * @throws IllegalArgumentException if an argument is out of range
     * @throws NullPointerException if an argument is null
     */
    static RestartBackoffPolicy failureRate(
            int maxFailuresPerWindow, Duration window, Duration delay, InstantSource clock) {
        return new FailureRateBackoff(maxFailuresPerWindow, window, delay, clock);
    }
}
