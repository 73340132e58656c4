package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How much of a deployment one slice may do before it hands the JobManager's main thread back: at
 * most {@code maxTasks} descriptors — or their worth of group encoding, counted in the same units
 * (see {@link DeploymentSlices}) — and no more once {@code maxNanos} have passed on {@code
 * nanoClock} (read every {@link DeploymentSlices#CLOCK_STRIDE} tasks and after every group step).
 * Immutable.
 *
 * <p>The default, {@link #DEFAULT}, is 10,000 tasks or 5 ms, whichever comes first: at the ~0.2 µs
 * a descriptor costs once its input groups are cached, 10,000 tasks are about 2 ms, so other
 * main-thread events (heartbeats, task state updates, RPC replies) wait at most a few milliseconds
 * — three to four orders of magnitude below a heartbeat timeout — while the per-slice cost (two
 * clock reads and a return to the executor) stays below 0.1 % of the slice, and a P = 1,000,000
 * reference job is 200 slices. The time bound caps slices on a slower machine or a loaded JVM.
 *
 * @param maxTasks the most descriptors one slice creates, group encoding work counted as
 *     descriptors of the same cost (>= 1)
 * @param maxNanos the time after which a slice stops at the next clock read (>= 1 ns; {@link
 *     Long#MAX_VALUE} for no time bound)
 * @param nanoClock the clock slices are timed with ({@code System::nanoTime} outside tests)
 */
public record SliceBudget(int maxTasks, long maxNanos, LongSupplier nanoClock) {
    /** 10,000 tasks or 5 ms a slice, timed with {@link System#nanoTime()}. */
    public static final SliceBudget DEFAULT =
            new SliceBudget(10_000, Duration.ofMillis(5).toNanos(), System::nanoTime);

    /**
     * Checks the bounds.
     *
     * @throws IllegalArgumentException if {@code maxTasks} is below 1 or {@code maxNanos} below 1
     */
    public SliceBudget {
        checkArgument(
                maxTasks >= 1,
                "maxTasks (descriptors per deployment slice) must be >= 1, was %s",
                maxTasks);
        checkArgument(
                maxNanos >= 1,
                "maxNanos (time per deployment slice) must be >= 1 ns (Long.MAX_VALUE for no time"
                        + " bound), was %s",
                maxNanos);
    }

    /**
     * At most {@code maxTasks} descriptors a slice, without a time bound.
     *
     * @throws IllegalArgumentException if {@code maxTasks} is below 1
     */
    public static SliceBudget ofTasks(int maxTasks) {
        return new SliceBudget(maxTasks, Long.MAX_VALUE, System::nanoTime);
    }

    /**
     * At most {@code maxTasks} descriptors and about {@code maxTime} a slice.
     *
     * @throws IllegalArgumentException if {@code maxTasks} is below 1 or {@code maxTime} is zero,
     *     negative or longer than {@link Long#MAX_VALUE} nanoseconds
     */
    public static SliceBudget of(int maxTasks, Duration maxTime) {
        checkArgument(
                !maxTime.isNegative() && !maxTime.isZero(),
                "maxTime (time per deployment slice) must be positive, was %s",
                maxTime);
        long nanos;
        try {
            nanos = maxTime.toNanos();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(
                    "maxTime (time per deployment slice) must be at most "
                            + Duration.ofNanos(Long.MAX_VALUE)
                            + ", was "
                            + maxTime,
                    e);
        }
        return new SliceBudget(maxTasks, nanos, System::nanoTime);
    }

    /** This budget timed with {@code clock} (a test's manual clock). */
    public SliceBudget withClock(LongSupplier clock) {
        return new SliceBudget(maxTasks, maxNanos, clock);
    }
}
