package io.railyard.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RestartDecisionTest {

    @Test
    void restartAfter_restartsWithTheDelay_andSaysSo() {
        RestartDecision decision = RestartDecision.restartAfter(250);

        assertThat(decision.restart()).isTrue();
        assertThat(decision.delayMillis()).isEqualTo(250);
        assertThat(decision.reason()).isEqualTo("restart after 250 ms");
    }

    @Test
    void noRestart_refusesWithoutDelay_keepingTheReason() {
        RestartDecision decision = RestartDecision.noRestart("out of attempts");

        assertThat(decision.restart()).isFalse();
        assertThat(decision.delayMillis()).isZero();
        assertThat(decision.reason()).isEqualTo("out of attempts");
    }

    @Test
    void restartAfter_negativeDelay_isRejected() {
        assertThatThrownBy(() -> RestartDecision.restartAfter(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delayMillis must be >= 0, was -1");
    }

    @Test
    void constructor_refusalWithDelay_isRejected() {
        assertThatThrownBy(() -> new RestartDecision(false, 5, "no"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delayMillis of a refusal must be 0, was 5");
    }

    @Test
    void noRestart_emptyOrNullReason_isRejected() {
        assertThatThrownBy(() -> RestartDecision.noRestart(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("reason must not be empty");
        assertThatThrownBy(() -> RestartDecision.noRestart(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("reason");
    }
}
