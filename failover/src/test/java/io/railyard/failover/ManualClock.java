package io.railyard.failover;

import java.time.Instant;
import java.time.InstantSource;

/** A clock that moves only when a test moves it, in milliseconds; it may go backwards. */
final class ManualClock implements InstantSource {
    private long millis;

    ManualClock(long startMillis) {
        this.millis = startMillis;
    }

    /** Moves the clock by {@code deltaMillis}, which may be negative; returns this clock. */
    ManualClock advance(long deltaMillis) {
        millis = Math.addExact(millis, deltaMillis);
        return this;
    }

    /** Sets the clock to {@code nowMillis}; returns this clock. */
    ManualClock set(long nowMillis) {
        millis = nowMillis;
        return this;
    }

    @Override
    public long millis() {
        return millis;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis);
    }
}
