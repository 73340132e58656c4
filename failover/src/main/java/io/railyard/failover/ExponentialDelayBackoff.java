package io.railyard.failover;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.google.common.math.LongMath;
import java.time.Duration;
import java.time.InstantSource;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The exponential-delay restart policy: a back-off that grows with every restart attempt, with
 * random jitter, and returns to its initial value once the job has run quietly for a while. Create
 * it with {@link RestartBackoffPolicy#exponentialDelay}; its settings are an {@link Options}.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li><b>Growth.</b> Attempt {@code k} (counted from 1 since the last reset) has the nominal
 *       back-off {@code d(k) = min(maxBackoff, initialBackoff × multiplier^(k−1))}, evaluated in
 *       {@code double} and rounded to the nearest millisecond. A product that overflows, even to
 *       infinity, saturates at {@code maxBackoff}: no delay is ever negative or wrapped.
 *   <li><b>Jitter.</b> With {@code r = ⌊jitterFactor × d(k)⌋}, the delay is {@code d(k) + j},
 *       {@code j} a uniform integer in {@code [−r, r]} drawn from the injected {@link
 *       RandomGenerator}, then capped at {@code maxBackoff}. It is never negative, since {@code
 *       jitterFactor <= 1}, and never above {@code maxBackoff}, which is a hard ceiling. Unlike
 *       Flink, it is not raised to {@code initialBackoff} either: the band stays symmetric, so
 *       below the cap the mean delay is {@code d(k)}. A jitter factor of 0 draws nothing.
 *   <li><b>Reset.</b> The quiet period is measured from the moment the previous restart was due
 *       (previous failure + the delay it was given), not from the previous failure: waiting out a
 *       back-off is not running quietly. Measured from the failure, a job failing right after every
 *       restart would be reset whenever its back-off exceeds {@code resetAfter}, and its back-off
 *       would oscillate instead of staying at the maximum. When the quiet period reaches {@code
 *       resetAfter}, the attempt counter returns to 0, so the back-off returns to {@code
 *       initialBackoff} and the attempt limit starts afresh. Flink measures it the same way.
 *   <li><b>Limit.</b> Attempt {@code maxAttempts + 1} since the last reset is refused (unless
 *       {@link Options#UNLIMITED_ATTEMPTS}); a refused failure's restart is "due" at the failure.
 * </ul>
 *
 * <p>O(1) per failure and O(1) state; each restart allocates its decision. Not thread-safe: owned
 * by the JobManager's main thread (asserted with {@code -ea}).
 */
public final class ExponentialDelayBackoff implements RestartBackoffPolicy {
    private final long initialMillis;
    private final long maxMillis;
    private final double multiplier;
    private final double jitterFactor;
    private final long resetAfterMillis;
    private final int maxAttempts;
    private final InstantSource clock;
    private final RandomGenerator random;

    /** Failures since the last reset; 0 before the first. */
    private long attempts;

    /** When the previous restart was due: previous failure + its delay. */
    private long restartDueMillis;

    private @Nullable Thread owner;

    ExponentialDelayBackoff(Options options, InstantSource clock, RandomGenerator random) {
        requireNonNull(options, "options");
        this.clock = requireNonNull(clock, "clock");
        this.random = requireNonNull(random, "random");
        this.initialMillis = options.initialBackoff().toMillis();
        this.maxMillis = options.maxBackoff().toMillis();
        this.multiplier = options.multiplier();
        this.jitterFactor = options.jitterFactor();
        this.resetAfterMillis = options.resetAfter().toMillis();
        this.maxAttempts = options.maxAttempts();
    }

    @Override
    public RestartDecision onFailure() {
        assert confined()
                : "policy confined to " + owner + ", called from " + Thread.currentThread();
        long now = clock.millis();
        if (attempts > 0
                && BackoffArguments.elapsedMillis(restartDueMillis, now) >= resetAfterMillis) {
            attempts = 0;
        }
        if (attempts < Long.MAX_VALUE) {
            attempts++;
        }
        if (maxAttempts != Options.UNLIMITED_ATTEMPTS && attempts > maxAttempts) {
            restartDueMillis = now;
            return RestartDecision.noRestart(
                    "restart attempt "
                            + attempts
                            + " exceeds maxAttempts = "
                            + maxAttempts
                            + " of the exponential-delay restart policy, counted since the job"
                            + " last ran for resetAfter = "
                            + resetAfterMillis
                            + " ms; raise maxAttempts or lower resetAfter");
        }
        long delay = jittered(nominalMillis(attempts));
        restartDueMillis = LongMath.saturatedAdd(now, delay);
        assert delay >= 0 && delay <= maxMillis : delay;
        return RestartDecision.restartAfter(delay);
    }

    /** {@code min(max, initial × multiplier^(attempt − 1))}, saturating. O(1). */
    private long nominalMillis(long attempt) {
        double exact = (double) initialMillis * Math.pow(multiplier, (double) (attempt - 1));
        if (!(exact < (double) maxMillis)) {
            return maxMillis; // also infinity
        }
        return Math.min(maxMillis, Math.round(exact));
    }

    /** {@code nominal} plus a uniform integer in {@code [−r, r]}, capped at the maximum. O(1). */
    private long jittered(long nominal) {
        if (jitterFactor == 0) {
            return nominal;
        }
        // Rounding of a huge nominal to double must not widen the band beyond nominal, and
        // r + 1 below must not overflow.
        long r = Math.min((long) ((double) nominal * jitterFactor), nominal);
        r = Math.min(r, Long.MAX_VALUE - 1);
        if (r == 0) {
            return nominal;
        }
        long offset = random.nextLong(-r, r + 1);
        return Math.min(maxMillis, LongMath.saturatedAdd(nominal, offset));
    }

    @Override
    public String toString() {
        return "ExponentialDelayBackoff{initialMillis="
                + initialMillis
                + ", maxMillis="
                + maxMillis
                + ", multiplier="
                + multiplier
                + ", jitterFactor="
                + jitterFactor
                + ", resetAfterMillis="
                + resetAfterMillis
                + ", maxAttempts="
                + maxAttempts
                + ", attempts="
                + attempts
                + "}";
    }

    private boolean confined() {
        if (owner == null) {
            owner = Thread.currentThread();
        }
        return owner == Thread.currentThread();
    }

    /**
     * Settings of the exponential-delay restart policy, validated when built. Immutable; start from
     * {@link #of(Duration, Duration)} and change a setting with a {@code with…} method.
     *
     * @param initialBackoff back-off of the first attempt after a reset, {@code >= 1 ms}
     * @param maxBackoff the ceiling of every back-off, jitter included; {@code >= initialBackoff}
     * @param multiplier growth per attempt; finite and {@code >= 1} (1 keeps the back-off constant)
     * @param jitterFactor relative jitter in {@code [0, 1]}; 0 for exact back-offs
     * @param resetAfter quiet running time after which the back-off and the attempt count reset,
     *     {@code >= 1 ms}
     * @param maxAttempts restart attempts allowed between resets, {@code >= 1}, or {@link
     *     #UNLIMITED_ATTEMPTS}
     */
    public record Options(
            Duration initialBackoff,
            Duration maxBackoff,
            double multiplier,
            double jitterFactor,
            Duration resetAfter,
            int maxAttempts) {

        /** The {@code maxAttempts} that never refuses a restart. */
        public static final int UNLIMITED_ATTEMPTS = Integer.MAX_VALUE;

        /** The default multiplier of {@link #of}: the back-off doubles per attempt. */
        public static final double DEFAULT_MULTIPLIER = 2.0;

        /** The default jitter factor of {@link #of}: ±10%. */
        public static final double DEFAULT_JITTER_FACTOR = 0.1;

        /** The default quiet period of {@link #of}: one hour. */
        public static final Duration DEFAULT_RESET_AFTER = Duration.ofHours(1);

        /**
         * Validates every setting. O(1).
         *
         * @throws IllegalArgumentException naming the first setting out of range, its value and
         *     what is allowed
         * @throws NullPointerException if a duration is null
         */
        public Options {
            long initialMillis = BackoffArguments.toMillis(initialBackoff, "initialBackoff", 1);
            long maxMillis = BackoffArguments.toMillis(maxBackoff, "maxBackoff", 1);
            checkArgument(
                    maxMillis >= initialMillis,
                    "maxBackoff must be >= initialBackoff (%s), was %s",
                    initialBackoff,
                    maxBackoff);
            checkArgument(
                    Double.isFinite(multiplier) && multiplier >= 1,
                    "multiplier must be finite and >= 1, was %s",
                    multiplier);
            checkArgument(
                    jitterFactor >= 0 && jitterFactor <= 1,
                    "jitterFactor must be in [0, 1], was %s",
                    jitterFactor);
            BackoffArguments.toMillis(resetAfter, "resetAfter", 1);
            checkArgument(
                    maxAttempts >= 1,
                    "maxAttempts must be >= 1 (or UNLIMITED_ATTEMPTS), was %s",
                    maxAttempts);
        }

        /**
         * Back-offs from {@code initialBackoff} up to {@code maxBackoff}, with {@link
         * #DEFAULT_MULTIPLIER}, {@link #DEFAULT_JITTER_FACTOR}, {@link #DEFAULT_RESET_AFTER} and
         * {@link #UNLIMITED_ATTEMPTS}. O(1).
         *
         * @throws IllegalArgumentException if a duration is out of range
         * @throws NullPointerException if a duration is null
         */
        public static Options of(Duration initialBackoff, Duration maxBackoff) {
            return new Options(
                    initialBackoff,
                    maxBackoff,
                    DEFAULT_MULTIPLIER,
                    DEFAULT_JITTER_FACTOR,
                    DEFAULT_RESET_AFTER,
                    UNLIMITED_ATTEMPTS);
        }

        /**
         * These options with {@code multiplier} (finite, {@code >= 1}). O(1).
         *
         * @throws IllegalArgumentException if {@code multiplier} is out of range
         */
        public Options withMultiplier(double multiplier) {
            return new Options(
                    initialBackoff, maxBackoff, multiplier, jitterFactor, resetAfter, maxAttempts);
        }

        /**
         * These options with {@code jitterFactor} (in {@code [0, 1]}). O(1).
         *
         * @throws IllegalArgumentException if {@code jitterFactor} is out of range
         */
        public Options withJitterFactor(double jitterFactor) {
            return new Options(
                    initialBackoff, maxBackoff, multiplier, jitterFactor, resetAfter, maxAttempts);
        }

        /**
         * These options with the quiet period {@code resetAfter} ({@code >= 1 ms}). O(1).
         *
         * @throws IllegalArgumentException if {@code resetAfter} is out of range
         * @throws NullPointerException if {@code resetAfter} is null
         */
        public Options withResetAfter(Duration resetAfter) {
            return new Options(
                    initialBackoff, maxBackoff, multiplier, jitterFactor, resetAfter, maxAttempts);
        }

        /**
         * These options with {@code maxAttempts} ({@code >= 1}, or {@link #UNLIMITED_ATTEMPTS}).
         * O(1).
         *
         * @throws IllegalArgumentException if {@code maxAttempts} is out of range
         */
        public Options withMaxAttempts(int maxAttempts) {
            return new Options(
                    initialBackoff, maxBackoff, multiplier, jitterFactor, resetAfter, maxAttempts);
        }
    }
}
