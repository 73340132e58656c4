package io.railyard.failover;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import io.railyard.regions.scheduling.TestingRegionDeployer;
import io.railyard.topology.JobGraph;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

/**
 * Reliability row 13: a task that keeps failing exhausts the restart back-off — fixed delay and
 * failure rate — through {@link FailoverHandler}: restarts until the policy refuses, then the job
 * fails with a {@link JobFailedException} that names the task and the policy's setting and carries
 * the task's exception (and its root cause) as its cause; every partition is released, each once;
 * later events are ignored.
 */
class BackoffExhaustionTest {
    private final TestingRegionDeployer deployer = new TestingRegionDeployer();
    private final BitSet released = new BitSet();
    private int releasedTwice;

    /** a(2) -> b(2) -> c(2), ALL_TO_ALL BLOCKING: six singleton regions, six partitions. */
    private static JobGraph chain() {
        return JobGraph.builder()
                .addVertex("a", 2)
                .addVertex("b", 2)
                .addVertex("c", 2)
                .connect("a", "b", ALL_TO_ALL, BLOCKING)
                .connect("b", "c", ALL_TO_ALL, BLOCKING)
                .build();
    }

    /** A handler whose a and b finished (a's partitions released): both sinks are running. */
    private FailoverHandler runningSinks(JobGraph graph, RestartBackoffPolicy policy) {
        RegionInputs inputs = RegionInputs.of(PipelinedRegions.build(ExecutionTopology.of(graph)));
        RegionSchedulingStrategy strategy = new RegionSchedulingStrategy(inputs, deployer);
        FailoverHandler handler =
                new FailoverHandler(
                        inputs,
                        strategy,
                        policy,
                        (from, to) -> {
                            releasedTwice += released.get(from, to).cardinality();
                            released.set(from, to);
                        });
        strategy.startScheduling();
        for (int task = 0; task < graph.firstTask(2); task++) {
            assertThat(handler.onTaskFinished(task, 0)).isTrue();
        }
        return handler;
    }

    /** Sink c#0 fails with a new exception whose root cause is an I/O error. */
    private static FailureHandling sinkFails(FailoverHandler handler, int sink, int failure) {
        RuntimeException cause =
                new UncheckedIOException(
                        "c#0 failure " + failure, new IOException("disk gone " + failure));
        FailureHandling handling = handler.onTaskFailed(sink, handler.attempt(sink), cause);
        assertThat(handling.cause()).isSameAs(cause);
        return handling;
    }

    @Test
    void fixedDelay_exhausted_failsTheJobWithTheTasksExceptionAsCause_andReleasesEverything() {
        JobGraph graph = chain();
        FailoverHandler handler =
                runningSinks(graph, RestartBackoffPolicy.fixedDelay(3, Duration.ofMillis(10)));
        int c0 = graph.task(2, 0);

        for (int failure = 1; failure <= 3; failure++) {
            FailureHandling restart = sinkFails(handler, c0, failure);
            assertThat(restart)
                    .as("failure %s", failure)
                    .isInstanceOf(FailureHandling.Restart.class);
            assertThat(FailureHandlings.restart(restart).delayMillis()).isEqualTo(10);
            assertThat(FailureHandlings.restart(restart).tasks().toTaskArray()).containsExactly(c0);
            handler.restart(FailureHandlings.restart(restart));
        }
        FailureHandling last = sinkFails(handler, c0, 4);

        assertJobFailed(graph, handler, last, "c#0 (attempt 3)", "maxAttempts = 3");
        assertThat(FailureHandlings.failJob(last).failure()).hasRootCauseMessage("disk gone 4");
    }

    @Test
    void failureRate_exhausted_failsTheJobWithTheTasksExceptionAsCause_andReleasesEverything() {
        JobGraph graph = chain();
        ManualClock clock = new ManualClock(0);
        FailoverHandler handler =
                runningSinks(
                        graph,
                        RestartBackoffPolicy.failureRate(
                                2, Duration.ofMinutes(1), Duration.ofMillis(5), clock));
        int c0 = graph.task(2, 0);

        // At 0 s, 30 s, 100 s (30 s is 70 s ago: outside the window) and 110 s: at most two in
        // any minute. At 115 s the third within one minute.
        long[] atSeconds = {0, 30, 100, 110};
        for (int i = 0; i < atSeconds.length; i++) {
            clock.set(atSeconds[i] * 1_000);
            FailureHandling restart = sinkFails(handler, c0, i + 1);
            assertThat(restart)
                    .as("at %s s", atSeconds[i])
                    .isInstanceOf(FailureHandling.Restart.class);
            assertThat(FailureHandlings.restart(restart).delayMillis()).isEqualTo(5);
            handler.restart(FailureHandlings.restart(restart));
        }
        clock.set(115_000);
        FailureHandling last = sinkFails(handler, c0, 5);

        assertJobFailed(graph, handler, last, "c#0 (attempt 4)", "maxFailuresPerWindow = 2");
        assertThat(FailureHandlings.failJob(last).failure()).hasMessageContaining("60000 ms");
        assertThat(FailureHandlings.failJob(last).failure()).hasRootCauseMessage("disk gone 5");
    }

    private void assertJobFailed(
            JobGraph graph,
            FailoverHandler handler,
            FailureHandling last,
            String task,
            String setting) {
        assertThat(last).isInstanceOf(FailureHandling.FailJob.class);
        assertThat(handler.isJobFailed()).isTrue();
        assertThat(handler.jobFailure()).containsSame(FailureHandlings.failJob(last).failure());
        assertThat(FailureHandlings.failJob(last).failure())
                .hasMessageContaining(task)
                .hasMessageContaining(setting)
                .hasMessageContaining(last.reason())
                .cause()
                .isSameAs(last.cause());
        assertThat(released.cardinality()).as("released").isEqualTo(graph.numPartitions());
        assertThat(releasedTwice).as("released twice").isZero();
        int c1 = graph.task(2, 1);
        assertThat(handler.onTaskFinished(c1, 0)).as("after the job failed").isFalse();
        FailureHandling late = handler.onTaskFailed(c1, 0, new IllegalStateException("cancelled"));
        assertThat(late).isInstanceOf(FailureHandling.Ignored.class);
        assertThat(handler.jobFailure()).containsSame(FailureHandlings.failJob(last).failure());
    }
}
