package io.railyard.failover;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * Argument checks shared by the back-off policies: durations become whole milliseconds, with
 * messages that name the setting, its value and what is allowed.
 */
final class BackoffArguments {
    private BackoffArguments() {}

    /**
     * {@code value} in whole milliseconds (sub-millisecond parts truncated), which must be at least
     * {@code minMillis} ({@code >= 0}) and fit in a {@code long}.
     *
     * @throws NullPointerException if {@code value} is null, with {@code name} as message
     * @throws IllegalArgumentException if {@code value} is negative, too small or too large
     */
    static long toMillis(Duration value, String name, long minMillis) {
        requireNonNull(value, name);
        checkArgument(!value.isNegative(), "%s must be >= %s ms, was %s", name, minMillis, value);
        long millis;
        try {
            millis = value.toMillis();
        } catch (ArithmeticException overflow) {
            throw new IllegalArgumentException(
                    name
                            + " must fit in a long of milliseconds (at most "
                            + Long.MAX_VALUE
                            + " ms), was "
                            + value,
                    overflow);
        }
        checkArgument(millis >= minMillis, "%s must be >= %s ms, was %s", name, minMillis, value);
        return millis;
    }

    /** {@code now − earlier}, or 0 when the clock went backwards; never overflows. */
    static long elapsedMillis(long earlier, long now) {
        if (now <= earlier) {
            return 0;
        }
        long elapsed = now - earlier;
        // Only timestamps of opposite signs more than 2^63 ms apart wrap; saturate them.
        return elapsed < 0 ? Long.MAX_VALUE : elapsed;
    }
}
