package io.railyard.failover;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The failure-rate restart policy: restart after a fixed delay while at most {@code
 * maxFailuresPerWindow} failures fall within a sliding window; see {@link
 * RestartBackoffPolicy#failureRate}.
 *
 * <h2>Design notes</h2>
 *
 * With {@code n = maxFailuresPerWindow}, the window (counting the current failure) holds more than
 * {@code n} failures exactly when the failure {@code n} failures before the current one happened
 * less than {@code window} ago, so only the last {@code n} failure times are needed: a ring of
 * {@code long}s, oldest at {@code head}. It starts small and doubles up to {@code n} (staying in
 * arrival order from index 0 until full), so a policy configured with a huge limit costs memory
 * only for failures that happened; each failure is O(1) amortised. With a clock that goes
 * backwards, a failure time after "now" counts as now (inside the window), so the rule errs towards
 * refusing.
 *
 * <p>Not thread-safe: owned by the JobManager's main thread (asserted with {@code -ea}).
 */
final class FailureRateBackoff implements RestartBackoffPolicy {
    private static final int INITIAL_CAPACITY = 16;

    private final int maxFailuresPerWindow;
    private final long windowMillis;
    private final long delayMillis;
    private final InstantSource clock;
    private final RestartDecision restart;

    /** Failure times, a ring; the oldest at {@code head}, {@code size} of them. */
    private long[] times;

    private int head;
    private int size;
    private @Nullable Thread owner;

    FailureRateBackoff(
            int maxFailuresPerWindow, Duration window, Duration delay, InstantSource clock) {
        checkArgument(
                maxFailuresPerWindow >= 1,
                "maxFailuresPerWindow must be >= 1, was %s",
                maxFailuresPerWindow);
        this.maxFailuresPerWindow = maxFailuresPerWindow;
        this.windowMillis = BackoffArguments.toMillis(window, "window", 1);
        this.delayMillis = BackoffArguments.toMillis(delay, "delay", 0);
        this.clock = requireNonNull(clock, "clock");
        this.restart = RestartDecision.restartAfter(delayMillis);
        this.times = new long[Math.min(maxFailuresPerWindow, INITIAL_CAPACITY)];
    }

    @Override
    public RestartDecision onFailure() {
        assert confined()
                : "policy confined to " + owner + ", called from " + Thread.currentThread();
        long now = clock.millis();
        boolean exceeded =
                size == maxFailuresPerWindow
                        && BackoffArguments.elapsedMillis(times[head], now) < windowMillis;
        record(now);
        assert checkInvariants();
        if (!exceeded) {
            return restart;
        }
        return RestartDecision.noRestart(
                "at least "
                        + ((long) maxFailuresPerWindow + 1)
                        + " failures within the last "
                        + windowMillis
                        + " ms (window) exceed maxFailuresPerWindow = "
                        + maxFailuresPerWindow
                        + " of the failure-rate restart policy; raise maxFailuresPerWindow or"
                        + " shorten the window");
    }

    private void record(long now) {
        if (size == maxFailuresPerWindow) {
            // The ring is at its final capacity: the newest time replaces the oldest.
            times[head] = now;
            head = head + 1 == times.length ? 0 : head + 1;
            return;
        }
        // Until the ring is full, head stays at 0 and times are in arrival order.
        if (size == times.length) {
            times = Arrays.copyOf(times, (int) Math.min(maxFailuresPerWindow, 2L * size));
        }
        times[size++] = now;
    }

    /**
     * Checks the ring's bounds and throws {@link IllegalStateException} on a violation; returns
     * {@code true} so that it can be asserted. O(1). For tests.
     */
    boolean checkInvariants() {
        checkState(
                times.length >= 1 && times.length <= maxFailuresPerWindow,
                "capacity %s out of [1, %s]",
                times.length,
                maxFailuresPerWindow);
        checkState(size >= 0 && size <= times.length, "size %s, capacity %s", size, times.length);
        checkState(head >= 0 && head < times.length, "head %s out of range", head);
        checkState(
                size < maxFailuresPerWindow || times.length == maxFailuresPerWindow,
                "full ring below its final capacity");
        checkState(size == maxFailuresPerWindow || head == 0, "a ring not yet full starts at 0");
        return true;
    }

    /** How many failure times the ring can hold before growing. O(1). For tests. */
    int capacity() {
        return times.length;
    }

    @Override
    public String toString() {
        return "FailureRateBackoff{maxFailuresPerWindow="
                + maxFailuresPerWindow
                + ", windowMillis="
                + windowMillis
                + ", delayMillis="
                + delayMillis
                + ", remembered="
                + size
                + "}";
    }

    private boolean confined() {
        if (owner == null) {
            owner = Thread.currentThread();
        }
        return owner == Thread.currentThread();
    }
}
