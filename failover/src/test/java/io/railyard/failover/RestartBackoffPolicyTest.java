package io.railyard.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.failover.ExponentialDelayBackoff.Options;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The contract every {@link RestartBackoffPolicy} keeps, run against each of them. */
class RestartBackoffPolicyTest {

    /** A policy on a clock, and the longest delay it may ever give. */
    record Case(String name, Function<ManualClock, RestartBackoffPolicy> create, long maxDelay) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> policies() {
        Options options =
                Options.of(Duration.ofMillis(10), Duration.ofSeconds(5))
                        .withMultiplier(3)
                        .withJitterFactor(0.5)
                        .withResetAfter(Duration.ofSeconds(2))
                        .withMaxAttempts(8);
        return Stream.of(
                new Case("noRestart", clock -> RestartBackoffPolicy.noRestart(), 0),
                new Case(
                        "fixedDelay",
                        clock -> RestartBackoffPolicy.fixedDelay(50, Duration.ofMillis(300)),
                        300),
                new Case(
                        "exponentialDelay",
                        clock ->
                                RestartBackoffPolicy.exponentialDelay(
                                        options, clock, new SplittableRandom(3)),
                        5_000),
                new Case(
                        "failureRate",
                        clock ->
                                RestartBackoffPolicy.failureRate(
                                        4, Duration.ofSeconds(1), Duration.ofMillis(70), clock),
                        70));
    }

    static Stream<Arguments> policiesAndSeeds() {
        return policies().flatMap(c -> Stream.of(0L, 1L, 2L, 3L, 4L).map(s -> Arguments.of(c, s)));
    }

    @ParameterizedTest(name = "{0}, seed {1}")
    @MethodSource("policiesAndSeeds")
    void onFailure_underAClockJumpingBothWays_givesWellFormedDecisions(Case c, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ManualClock clock = new ManualClock(random.nextLong());
        RestartBackoffPolicy policy = c.create().apply(clock);

        for (int i = 0; i < 2_000; i++) {
            clock.set(
                    random.nextInt(20) == 0
                            ? random.nextLong()
                            : clock.millis() + random.nextLong(-3_000, 3_000));
            RestartDecision decision = policy.onFailure();

            assertThat(decision.delayMillis())
                    .as("%s, failure %s", c, i)
                    .isBetween(0L, c.maxDelay());
            assertThat(decision.reason()).isNotBlank();
            if (!decision.restart()) {
                assertThat(decision.delayMillis()).isZero();
            }
        }
    }

    @Test
    void noRestart_refusesEveryFailure_sayingThePolicyIsNoRestart() {
        RestartBackoffPolicy policy = RestartBackoffPolicy.noRestart();

        for (int i = 0; i < 3; i++) {
            RestartDecision decision = policy.onFailure();
            assertThat(decision.restart()).isFalse();
            assertThat(decision.delayMillis()).isZero();
            assertThat(decision.reason())
                    .isEqualTo(
                            "the restart back-off policy is \"no restart\"; configure a"
                                    + " fixed-delay, exponential-delay or failure-rate policy to"
                                    + " restart failed jobs");
        }
        assertThat(RestartBackoffPolicy.noRestart()).isSameAs(policy);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void onFailure_fromASecondThread_failsTheConfinementAssertion(Case c)
            throws InterruptedException {
        RestartBackoffPolicy policy = c.create().apply(new ManualClock(0));
        policy.onFailure(); // binds the policy to this thread
        CompletableFuture<RestartDecision> elsewhere = new CompletableFuture<>();
        Thread other =
                new Thread(
                        () -> {
                            try {
                                elsewhere.complete(policy.onFailure());
                            } catch (Throwable t) {
                                elsewhere.completeExceptionally(t);
                            }
                        });
        other.start();
        other.join();

        if (c.name().equals("noRestart")) {
            assertThat(elsewhere).isCompleted(); // stateless: shared across threads
        } else {
            assertThatThrownBy(elsewhere::get)
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(AssertionError.class)
                    .hasMessageStartingWith("policy confined to Thread[");
        }
    }
}
