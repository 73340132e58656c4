package io.railyard.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FailureRateBackoffTest {
    private final ManualClock clock = new ManualClock(0);

    /** Three failures per second, restarts after 50 ms. */
    private FailureRateBackoff threePerSecond() {
        return new FailureRateBackoff(3, Duration.ofSeconds(1), Duration.ofMillis(50), clock);
    }

    private static boolean restartsAt(RestartBackoffPolicy policy, ManualClock clock, long now) {
        clock.set(now);
        return policy.onFailure().restart();
    }

    @Test
    void onFailure_upToTheLimitWithinTheWindow_restartsAfterTheDelay() {
        RestartBackoffPolicy policy = threePerSecond();

        for (long now : new long[] {0, 100, 200}) {
            clock.set(now);
            assertThat(policy.onFailure()).isEqualTo(RestartDecision.restartAfter(50));
        }
    }

    @Test
    void onFailure_oneMoreWithinTheWindow_refusesNamingCountWindowAndLimit() {
        RestartBackoffPolicy policy = threePerSecond();
        restartsAt(policy, clock, 0);
        restartsAt(policy, clock, 100);
        restartsAt(policy, clock, 200);

        clock.set(999);
        RestartDecision fourth = policy.onFailure();

        assertThat(fourth.restart()).isFalse();
        assertThat(fourth.delayMillis()).isZero();
        assertThat(fourth.reason())
                .isEqualTo(
                        "at least 4 failures within the last 1000 ms (window) exceed"
                                + " maxFailuresPerWindow = 3 of the failure-rate restart policy;"
                                + " raise maxFailuresPerWindow or shorten the window");
    }

    @Test
    void onFailure_failureExactlyOneWindowAgo_isOutsideTheWindow() {
        RestartBackoffPolicy policy = threePerSecond();
        restartsAt(policy, clock, 0);
        restartsAt(policy, clock, 100);
        restartsAt(policy, clock, 200);

        assertThat(restartsAt(policy, clock, 1_000)).isTrue(); // window (0, 1000]: 100, 200, 1000
        assertThat(restartsAt(policy, clock, 1_099)).isFalse(); // (99, 1099]: 4 failures
        assertThat(restartsAt(policy, clock, 1_200)).isTrue(); // (200, 1200]: 1000, 1099, 1200
    }

    @Test
    void onFailure_windowSlides_olderFailuresAreForgotten() {
        RestartBackoffPolicy policy = threePerSecond();
        for (int burst = 0; burst < 5; burst++) {
            long start = burst * 10_000L;
            assertThat(restartsAt(policy, clock, start)).isTrue();
            assertThat(restartsAt(policy, clock, start + 1)).isTrue();
            assertThat(restartsAt(policy, clock, start + 2)).isTrue();
            assertThat(restartsAt(policy, clock, start + 3)).as("burst %s", burst).isFalse();
        }
    }

    @Test
    void onFailure_refusedFailuresCount_too() {
        RestartBackoffPolicy policy =
                RestartBackoffPolicy.failureRate(1, Duration.ofMillis(100), Duration.ZERO, clock);

        assertThat(restartsAt(policy, clock, 0)).isTrue();
        assertThat(restartsAt(policy, clock, 60)).isFalse();
        assertThat(restartsAt(policy, clock, 120)).isFalse(); // 60 is within (20, 120]
        assertThat(restartsAt(policy, clock, 220)).isTrue();
    }

    @Test
    void onFailure_clockGoingBackwards_countsFutureFailuresAsNow_andRecovers() {
        RestartBackoffPolicy policy =
                RestartBackoffPolicy.failureRate(2, Duration.ofMillis(500), Duration.ZERO, clock);
        assertThat(restartsAt(policy, clock, 1_000)).isTrue();
        assertThat(restartsAt(policy, clock, 2_000)).isTrue();

        assertThat(restartsAt(policy, clock, 0)).isFalse(); // 1000 and 2000 read as "now"
        assertThat(restartsAt(policy, clock, Long.MIN_VALUE)).isFalse();
        assertThat(restartsAt(policy, clock, 2_600)).isTrue(); // forgets 2000, 0 and MIN_VALUE
        assertThat(restartsAt(policy, clock, Long.MAX_VALUE)).isTrue(); // no overflow
    }

    @Test
    void onFailure_restarts_shareOneDecision() {
        RestartBackoffPolicy policy = threePerSecond();
        RestartDecision first = policy.onFailure();

        assertThat(restartsAt(policy, clock, 10)).isTrue();
        assertThat(policy.onFailure()).isSameAs(first);
    }

    @Test
    void onFailure_hugeLimit_growsTheRingOnlyAsFailuresArrive() {
        FailureRateBackoff policy =
                new FailureRateBackoff(Integer.MAX_VALUE, Duration.ofDays(1), Duration.ZERO, clock);
        assertThat(policy.capacity()).isEqualTo(16);

        for (int i = 0; i < 100; i++) {
            clock.advance(1);
            assertThat(policy.onFailure().restart()).isTrue();
        }

        assertThat(policy.capacity()).isEqualTo(128);
        assertThat(policy.checkInvariants()).isTrue();
    }

    @Test
    void onFailure_ringGrowsToExactlyTheLimit_thenWrapsAround() {
        FailureRateBackoff policy =
                new FailureRateBackoff(20, Duration.ofMillis(100), Duration.ZERO, clock);

        for (int i = 0; i < 20; i++) {
            assertThat(restartsAt(policy, clock, i)).isTrue();
        }
        assertThat(policy.capacity()).isEqualTo(20);
        assertThat(restartsAt(policy, clock, 50)).isFalse(); // 21 within (-50, 50]
        assertThat(restartsAt(policy, clock, 101)).isTrue(); // oldest kept is 1: forgotten
        assertThat(policy.capacity()).isEqualTo(20);
        assertThat(policy.checkInvariants()).isTrue();
    }

    static LongStream seeds() {
        return LongStream.range(0, 100);
    }

    /** Against a naive count over every failure so far, with a clock that never goes back. */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void onFailure_matchesANaiveCountOverAllFailures(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int limit = 1 + random.nextInt(random.nextBoolean() ? 4 : 40);
        long window = 1 + random.nextLong(1_000);
        long maxStep = Math.max(1, 3 * window / limit);
        FailureRateBackoff policy =
                new FailureRateBackoff(limit, Duration.ofMillis(window), Duration.ZERO, clock);
        long[] all = new long[2_000];
        int refusals = 0;

        for (int n = 0; n < all.length; n++) {
            long now =
                    clock.advance(random.nextInt(4) == 0 ? 0 : random.nextLong(maxStep)).millis();
            all[n] = now;
            int inWindow = 0;
            for (int i = 0; i <= n; i++) {
                inWindow += now - all[i] < window ? 1 : 0;
            }
            boolean expected = inWindow <= limit;

            assertThat(policy.onFailure().restart())
                    .as("seed %s failure %s: %s in window, limit %s", seed, n, inWindow, limit)
                    .isEqualTo(expected);
            refusals += expected ? 0 : 1;
        }
        assertThat(policy.checkInvariants()).isTrue();
        assertThat(refusals).as("seed %s exercised refusals", seed).isPositive();
        assertThat(refusals).as("seed %s exercised restarts", seed).isLessThan(all.length);
    }

    @Test
    void failureRate_badArguments_areRejectedNamingThem() {
        Duration second = Duration.ofSeconds(1);
        assertThatThrownBy(() -> RestartBackoffPolicy.failureRate(0, second, second, clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxFailuresPerWindow must be >= 1, was 0");
        assertThatThrownBy(() -> RestartBackoffPolicy.failureRate(1, Duration.ZERO, second, clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("window must be >= 1 ms, was PT0S");
        assertThatThrownBy(
                        () ->
                                RestartBackoffPolicy.failureRate(
                                        1, Duration.ofSeconds(Long.MAX_VALUE), second, clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("window must fit in a long of milliseconds");
        assertThatThrownBy(
                        () ->
                                RestartBackoffPolicy.failureRate(
                                        1, second, Duration.ofDays(-1), clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delay must be >= 0 ms, was PT-24H");
    }

    @Test
    void failureRate_nullArguments_areRejectedNamingThem() {
        Duration second = Duration.ofSeconds(1);
        assertThatThrownBy(() -> RestartBackoffPolicy.failureRate(1, null, second, clock))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("window");
        assertThatThrownBy(() -> RestartBackoffPolicy.failureRate(1, second, null, clock))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("delay");
        assertThatThrownBy(() -> RestartBackoffPolicy.failureRate(1, second, second, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("clock");
    }
}
