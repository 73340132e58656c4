package io.railyard.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FixedDelayBackoffTest {

    @Test
    void onFailure_restartsMaxAttemptsTimes_thenRefusesNamingAttemptAndLimit() {
        RestartBackoffPolicy policy = RestartBackoffPolicy.fixedDelay(3, Duration.ofMillis(200));

        for (int failure = 1; failure <= 3; failure++) {
            RestartDecision decision = policy.onFailure();
            assertThat(decision.restart()).as("failure %s", failure).isTrue();
            assertThat(decision.delayMillis()).isEqualTo(200);
        }
        RestartDecision fourth = policy.onFailure();

        assertThat(fourth.restart()).isFalse();
        assertThat(fourth.delayMillis()).isZero();
        assertThat(fourth.reason())
                .isEqualTo(
                        "restart attempt 4 exceeds maxAttempts = 3 of the fixed-delay restart"
                                + " policy; raise maxAttempts to restart more often");
    }

    @Test
    void onFailure_afterTheLimit_keepsRefusing_countingOn() {
        RestartBackoffPolicy policy = RestartBackoffPolicy.fixedDelay(1, Duration.ZERO);

        assertThat(policy.onFailure().restart()).isTrue();
        assertThat(policy.onFailure().reason()).startsWith("restart attempt 2 exceeds");
        assertThat(policy.onFailure().reason()).startsWith("restart attempt 3 exceeds");
    }

    @Test
    void onFailure_zeroDelay_restartsImmediately() {
        RestartBackoffPolicy policy = RestartBackoffPolicy.fixedDelay(2, Duration.ZERO);

        assertThat(policy.onFailure()).isEqualTo(RestartDecision.restartAfter(0));
    }

    @Test
    void onFailure_subMillisecondDelay_isTruncatedToWholeMilliseconds() {
        RestartBackoffPolicy policy =
                RestartBackoffPolicy.fixedDelay(1, Duration.ofNanos(2_999_999));

        assertThat(policy.onFailure().delayMillis()).isEqualTo(2);
    }

    @Test
    void onFailure_restart_sharesOneDecision_noAllocation() {
        RestartBackoffPolicy policy = RestartBackoffPolicy.fixedDelay(5, Duration.ofSeconds(1));

        assertThat(policy.onFailure()).isSameAs(policy.onFailure());
    }

    @Test
    void fixedDelay_maxAttemptsBelowOne_isRejected() {
        assertThatThrownBy(() -> RestartBackoffPolicy.fixedDelay(0, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxAttempts must be >= 1, was 0");
        assertThatThrownBy(() -> RestartBackoffPolicy.fixedDelay(-3, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxAttempts must be >= 1, was -3");
    }

    @Test
    void fixedDelay_badDelay_isRejectedNamingIt() {
        assertThatThrownBy(() -> RestartBackoffPolicy.fixedDelay(1, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delay must be >= 0 ms, was PT-0.001S");
        assertThatThrownBy(
                        () ->
                                RestartBackoffPolicy.fixedDelay(
                                        1, Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "delay must fit in a long of milliseconds (at most 9223372036854775807"
                                + " ms), was PT2562047788015215H30M7S");
        assertThatThrownBy(() -> RestartBackoffPolicy.fixedDelay(1, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("delay");
    }

    @Test
    void fixedDelay_largestDelayThatFits_isAccepted() {
        RestartBackoffPolicy policy =
                RestartBackoffPolicy.fixedDelay(1, Duration.ofMillis(Long.MAX_VALUE));

        assertThat(policy.onFailure().delayMillis()).isEqualTo(Long.MAX_VALUE);
    }
}
