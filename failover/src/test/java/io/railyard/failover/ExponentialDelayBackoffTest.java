package io.railyard.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import io.railyard.failover.ExponentialDelayBackoff.Options;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ExponentialDelayBackoffTest {
    private final ManualClock clock = new ManualClock(1_000_000);

    /** 100 ms doubling up to 1 s, no jitter, reset after 5 s of quiet, unlimited attempts. */
    private static Options exact() {
        return Options.of(Duration.ofMillis(100), Duration.ofSeconds(1))
                .withJitterFactor(0)
                .withResetAfter(Duration.ofSeconds(5));
    }

    private RestartBackoffPolicy policy(Options options) {
        return RestartBackoffPolicy.exponentialDelay(options, clock, new SplittableRandom(7));
    }

    /** Fails at once after each restart, {@code n} times; returns the delays. */
    private static long[] failRightAfterEachRestart(
            RestartBackoffPolicy policy, ManualClock clock, int n) {
        long[] delays = new long[n];
        for (int i = 0; i < n; i++) {
            RestartDecision decision = policy.onFailure();
            assertThat(decision.restart()).as("failure %s", i + 1).isTrue();
            delays[i] = decision.delayMillis();
            clock.advance(delays[i]);
        }
        return delays;
    }

    @Test
    void onFailure_withoutJitter_doublesUpToTheMaximum_exactly() {
        RestartBackoffPolicy policy = policy(exact());

        assertThat(failRightAfterEachRestart(policy, clock, 7))
                .containsExactly(100, 200, 400, 800, 1000, 1000, 1000);
    }

    @Test
    void onFailure_fractionalMultiplier_roundsToTheNearestMillisecond() {
        RestartBackoffPolicy policy =
                policy(exact().withMultiplier(1.5).withResetAfter(Duration.ofHours(1)));

        // 100, 150, 225, 337.5, 506.25, 759.375, 1139.06 -> capped
        assertThat(failRightAfterEachRestart(policy, clock, 7))
                .containsExactly(100, 150, 225, 338, 506, 759, 1000);
    }

    @Test
    void onFailure_multiplierOne_keepsTheInitialBackoff() {
        RestartBackoffPolicy policy = policy(exact().withMultiplier(1));

        assertThat(failRightAfterEachRestart(policy, clock, 4)).containsOnly(100);
    }

    @Test
    void onFailure_afterAQuietPeriodSinceTheRestart_resetsToTheInitialBackoff() {
        RestartBackoffPolicy policy = policy(exact());
        failRightAfterEachRestart(policy, clock, 4); // 100, 200, 400, 800; restart due now

        clock.advance(5_000);

        assertThat(failRightAfterEachRestart(policy, clock, 3)).containsExactly(100, 200, 400);
    }

    @Test
    void onFailure_quietPeriodOneMillisecondShort_keepsGrowing() {
        RestartBackoffPolicy policy = policy(exact());
        failRightAfterEachRestart(policy, clock, 3); // 100, 200, 400; restart due now

        clock.advance(4_999);

        assertThat(policy.onFailure().delayMillis()).isEqualTo(800);
    }

    @Test
    void onFailure_quietPeriodCountsFromTheRestart_notFromTheFailure() {
        // Back-offs longer than resetAfter: a job that fails 10 ms after every restart has not
        // run quietly, so its back-off stays at the maximum instead of falling back to 100.
        RestartBackoffPolicy policy =
                policy(
                        Options.of(Duration.ofMillis(100), Duration.ofSeconds(10))
                                .withMultiplier(10)
                                .withJitterFactor(0)
                                .withResetAfter(Duration.ofSeconds(1)));
        long[] delays = new long[6];
        for (int i = 0; i < delays.length; i++) {
            delays[i] = policy.onFailure().delayMillis();
            clock.advance(delays[i] + 10);
        }

        assertThat(delays).containsExactly(100, 1_000, 10_000, 10_000, 10_000, 10_000);
    }

    @Test
    void onFailure_duringTheBackoff_isNotQuiet() {
        RestartBackoffPolicy policy = policy(exact().withResetAfter(Duration.ofMillis(1)));

        assertThat(policy.onFailure().delayMillis()).isEqualTo(100);
        clock.advance(50); // the restart is not even due yet
        assertThat(policy.onFailure().delayMillis()).isEqualTo(200);
    }

    @Test
    void onFailure_maxAttempts_refusesTheNextAttemptNamingAttemptLimitAndQuietPeriod() {
        RestartBackoffPolicy policy = policy(exact().withMaxAttempts(2));
        failRightAfterEachRestart(policy, clock, 2);

        RestartDecision third = policy.onFailure();

        assertThat(third.restart()).isFalse();
        assertThat(third.delayMillis()).isZero();
        assertThat(third.reason())
                .isEqualTo(
                        "restart attempt 3 exceeds maxAttempts = 2 of the exponential-delay"
                                + " restart policy, counted since the job last ran for resetAfter ="
                                + " 5000 ms; raise maxAttempts or lower resetAfter");
        assertThat(policy.onFailure().reason()).startsWith("restart attempt 4 exceeds");
    }

    @Test
    void onFailure_maxAttempts_startAfreshAfterAQuietPeriod() {
        RestartBackoffPolicy policy = policy(exact().withMaxAttempts(1));
        assertThat(policy.onFailure().delayMillis()).isEqualTo(100);
        clock.advance(100);
        assertThat(policy.onFailure().restart()).isFalse();

        clock.advance(5_000); // quiet since the refused failure

        RestartDecision decision = policy.onFailure();
        assertThat(decision.restart()).isTrue();
        assertThat(decision.delayMillis()).isEqualTo(100);
    }

    @Test
    void onFailure_clockGoingBackwards_neitherResetsNorBreaks() {
        RestartBackoffPolicy policy = policy(exact());
        failRightAfterEachRestart(policy, clock, 2); // 100, 200

        clock.advance(-3_600_000);
        assertThat(policy.onFailure().delayMillis()).isEqualTo(400);
        clock.set(Long.MIN_VALUE);
        assertThat(policy.onFailure().delayMillis()).isEqualTo(800);
        clock.set(Long.MAX_VALUE); // 2^63 ms after the restart was due: quiet, not negative
        assertThat(policy.onFailure().delayMillis()).isEqualTo(100);
    }

    @Test
    void onFailure_hugeMultiplierOverManyAttempts_saturatesAtTheMaximum_neverWraps() {
        Options options =
                Options.of(Duration.ofMillis(1), Duration.ofMillis(Long.MAX_VALUE))
                        .withMultiplier(1e9)
                        .withJitterFactor(0);
        RestartBackoffPolicy policy = policy(options);

        long previous = 0;
        for (int attempt = 1; attempt <= 10_000; attempt++) {
            long delay = policy.onFailure().delayMillis();
            assertThat(delay).as("attempt %s", attempt).isGreaterThanOrEqualTo(previous);
            previous = delay;
            if (attempt == 3) {
                assertThat(delay).isEqualTo(1_000_000_000_000_000_000L);
            }
        }
        assertThat(previous).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void onFailure_hugeMultiplierWithFullJitter_staysWithinZeroAndTheMaximum() {
        Options options =
                Options.of(Duration.ofMillis(1), Duration.ofMillis(Long.MAX_VALUE))
                        .withMultiplier(1e9)
                        .withJitterFactor(1);
        RestartBackoffPolicy policy = policy(options);

        boolean sawBelowHalf = false;
        for (int attempt = 1; attempt <= 10_000; attempt++) {
            long delay = policy.onFailure().delayMillis();
            assertThat(delay).as("attempt %s", attempt).isBetween(0L, Long.MAX_VALUE);
            sawBelowHalf |= attempt > 3 && delay < Long.MAX_VALUE / 2;
        }
        assertThat(sawBelowHalf).as("jitter applied at the cap").isTrue();
    }

    @Test
    void onFailure_hugeMultiplier_cappedAtAnHour() {
        RestartBackoffPolicy policy =
                policy(
                        Options.of(Duration.ofSeconds(1), Duration.ofHours(1))
                                .withMultiplier(1e9)
                                .withJitterFactor(0));

        assertThat(failRightAfterEachRestart(policy, clock, 3))
                .containsExactly(1_000, 3_600_000, 3_600_000);
    }

    @Test
    void onFailure_constantNominal_jitterIsUniformAndSymmetric() {
        // nominal 1000 with jitter 0.5: uniform over [500, 1500]
        RestartBackoffPolicy policy =
                RestartBackoffPolicy.exponentialDelay(
                        Options.of(Duration.ofSeconds(1), Duration.ofSeconds(10))
                                .withMultiplier(1)
                                .withJitterFactor(0.5),
                        clock,
                        new SplittableRandom(42));
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        long sum = 0;
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            long delay = policy.onFailure().delayMillis();
            min = Math.min(min, delay);
            max = Math.max(max, delay);
            sum += delay;
        }

        assertThat(min).isBetween(500L, 510L);
        assertThat(max).isBetween(1_490L, 1_500L);
        // the standard error of the mean is 289 / sqrt(n) = 2 ms
        assertThat((double) sum / n).isCloseTo(1_000.0, offset(10.0));
    }

    static LongStream seeds() {
        return LongStream.range(0, 50);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void onFailure_jitteredDelays_stayInTheBandAroundTheExactDelays_capped(long seed) {
        SplittableRandom settings = new SplittableRandom(seed);
        long initial = 1 + settings.nextLong(10_000);
        long maxBackoff = initial * (1 + settings.nextLong(1_000));
        // biased towards slow growth, so that many draws happen below the cap
        double multiplier = 1 + 3 * Math.pow(settings.nextDouble(), 4);
        double jitter = settings.nextDouble();
        Options exact =
                Options.of(Duration.ofMillis(initial), Duration.ofMillis(maxBackoff))
                        .withMultiplier(multiplier)
                        .withJitterFactor(0);
        ManualClock exactClock = new ManualClock(0);
        RestartBackoffPolicy exactPolicy =
                RestartBackoffPolicy.exponentialDelay(exact, exactClock, new SplittableRandom(0));
        RestartBackoffPolicy jittered =
                RestartBackoffPolicy.exponentialDelay(
                        exact.withJitterFactor(jitter), clock, new SplittableRandom(seed));
        int drawsWithRoomAbove = 0;
        boolean sawLow = false;
        boolean sawHigh = false;

        for (int attempt = 1; attempt <= 200; attempt++) {
            // both fail during their back-off, so neither resets
            long nominal = exactPolicy.onFailure().delayMillis();
            long delay = jittered.onFailure().delayMillis();
            long r = (long) (nominal * jitter);
            assertThat(delay)
                    .as("seed %s attempt %s nominal %s jitter %s", seed, attempt, nominal, jitter)
                    .isBetween(nominal - r, Math.min(maxBackoff, nominal + r));
            sawLow |= delay < nominal;
            sawHigh |= delay > nominal;
            if (r >= 1 && nominal < maxBackoff) {
                drawsWithRoomAbove++;
            }
        }
        // each draw with r >= 1 lands strictly below (or above) nominal with probability >= 1/3
        if ((long) (initial * jitter) >= 1) {
            assertThat(sawLow).as("seed %s: some delay below nominal", seed).isTrue();
        }
        if (drawsWithRoomAbove >= 30) {
            assertThat(sawHigh).as("seed %s: some delay above nominal", seed).isTrue();
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void onFailure_exactDelays_matchAnArbitraryPrecisionOracle(long seed) {
        SplittableRandom settings = new SplittableRandom(seed);
        long initial = 1 + settings.nextLong(1_000);
        long maxBackoff = initial + settings.nextLong(1_000_000_000_000L);
        double multiplier = 1 + 2 * settings.nextDouble();
        RestartBackoffPolicy policy =
                RestartBackoffPolicy.exponentialDelay(
                        Options.of(Duration.ofMillis(initial), Duration.ofMillis(maxBackoff))
                                .withMultiplier(multiplier)
                                .withJitterFactor(0),
                        clock,
                        RandomGenerator.of("L64X128MixRandom"));
        BigDecimal exact = BigDecimal.valueOf(initial);
        BigDecimal max = BigDecimal.valueOf(maxBackoff);

        for (int attempt = 1; attempt <= 100; attempt++) {
            long expected =
                    exact.compareTo(max) >= 0
                            ? maxBackoff
                            : exact.setScale(0, RoundingMode.HALF_UP).longValueExact();
            // Math.pow may be 1 ulp off, which can move a value at .5 by one millisecond
            assertThat(policy.onFailure().delayMillis())
                    .as("seed %s attempt %s", seed, attempt)
                    .isBetween(expected - 1, expected);
            if (exact.compareTo(max) < 0) {
                exact = exact.multiply(new BigDecimal(multiplier));
            }
        }
    }

    @Test
    void options_of_appliesTheDocumentedDefaults() {
        Options options = Options.of(Duration.ofSeconds(1), Duration.ofMinutes(5));

        assertThat(options.multiplier()).isEqualTo(2.0);
        assertThat(options.jitterFactor()).isEqualTo(0.1);
        assertThat(options.resetAfter()).isEqualTo(Duration.ofHours(1));
        assertThat(options.maxAttempts()).isEqualTo(Options.UNLIMITED_ATTEMPTS);
    }

    @Test
    void options_badBackoffs_areRejectedNamingTheSetting() {
        Duration second = Duration.ofSeconds(1);
        assertThatThrownBy(() -> Options.of(Duration.ZERO, second))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("initialBackoff must be >= 1 ms, was PT0S");
        assertThatThrownBy(() -> Options.of(Duration.ofSeconds(-1), second))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("initialBackoff must be >= 1 ms, was PT-1S");
        assertThatThrownBy(() -> Options.of(Duration.ofNanos(500_000), second))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("initialBackoff must be >= 1 ms, was PT0.0005S");
        assertThatThrownBy(() -> Options.of(second, Duration.ofMillis(500)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxBackoff must be >= initialBackoff (PT1S), was PT0.5S");
        assertThatThrownBy(() -> Options.of(second, Duration.ofSeconds(Long.MAX_VALUE / 1000 + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "maxBackoff must fit in a long of milliseconds (at most"
                                + " 9223372036854775807 ms), was PT2562047788015H12M56S");
        assertThatThrownBy(() -> Options.of(null, second))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("initialBackoff");
        assertThatThrownBy(() -> Options.of(second, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("maxBackoff");
    }

    @Test
    void options_badMultiplier_isRejected() {
        Options options = exact();
        for (double bad : new double[] {0.999, 0, -2, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> options.withMultiplier(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("multiplier must be finite and >= 1, was " + bad);
        }
    }

    @Test
    void options_badJitterFactor_isRejected() {
        Options options = exact();
        for (double bad : new double[] {-0.01, 1.01, Double.NaN}) {
            assertThatThrownBy(() -> options.withJitterFactor(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("jitterFactor must be in [0, 1], was " + bad);
        }
        assertThat(options.withJitterFactor(1).jitterFactor()).isEqualTo(1);
    }

    @Test
    void options_badResetAfterAndMaxAttempts_areRejected() {
        Options options = exact();
        assertThatThrownBy(() -> options.withResetAfter(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("resetAfter must be >= 1 ms, was PT0S");
        assertThatThrownBy(() -> options.withResetAfter(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("resetAfter");
        assertThatThrownBy(() -> options.withMaxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxAttempts must be >= 1 (or UNLIMITED_ATTEMPTS), was 0");
    }

    @Test
    void exponentialDelay_nullArguments_areRejectedNamingThem() {
        RandomGenerator random = new SplittableRandom(1);
        assertThatThrownBy(() -> RestartBackoffPolicy.exponentialDelay(null, clock, random))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("options");
        assertThatThrownBy(() -> RestartBackoffPolicy.exponentialDelay(exact(), null, random))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("clock");
        assertThatThrownBy(() -> RestartBackoffPolicy.exponentialDelay(exact(), clock, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("random");
    }
}
