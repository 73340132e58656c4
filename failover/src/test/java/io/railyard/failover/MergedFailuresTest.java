package io.railyard.failover;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static io.railyard.topology.ResultPartitionType.PIPELINED;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import io.railyard.regions.scheduling.TestingRegionDeployer;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Reliability row 8: failures that one restart already handles — of another task of the failed
 * region, or of a task in the same restart set, reported with the attempt the restart cancelled —
 * make no second restart and are counted once by the back-off policy, as Flink's {@code
 * testMergeMultipleExceptionsIntoOneAttempt} merges them into one attempt. The policy allows a
 * single restart, so counting a second failure would fail the job.
 */
class MergedFailuresTest {
    private final TestingRegionDeployer deployer = new TestingRegionDeployer();
    private int counted;

    /**
     * a(2) -POINTWISE PIPELINED-> b(2) -ALL_TO_ALL BLOCKING-> c(2): regions {a#0, b#0}, {a#1, b#1},
     * {c#0}, {c#1}. b#i produces partition 2 + i.
     */
    private static JobGraph job() {
        return JobGraph.builder()
                .addVertex("a", 2)
                .addVertex("b", 2)
                .addVertex("c", 2)
                .connect("a", "b", POINTWISE, PIPELINED)
                .connect("b", "c", ALL_TO_ALL, BLOCKING)
                .build();
    }

    private FailoverHandler handler(RegionInputs inputs) {
        RegionSchedulingStrategy strategy = new RegionSchedulingStrategy(inputs, deployer);
        RestartBackoffPolicy once = RestartBackoffPolicy.fixedDelay(1, Duration.ofMillis(3));
        FailoverHandler handler =
                new FailoverHandler(
                        inputs,
                        strategy,
                        () -> {
                            counted++;
                            return once.onFailure();
                        },
                        (from, to) -> {});
        strategy.startScheduling();
        return handler;
    }

    private static void finish(FailoverHandler handler, int... tasks) {
        for (int task : tasks) {
            assertThat(handler.onTaskFinished(task, handler.attempt(task))).isTrue();
        }
    }

    @Test
    void anotherTaskOfTheFailedRegion_failingWithItsOldAttempt_isMergedIntoTheOneRestart() {
        JobGraph graph = job();
        RegionInputs inputs = RegionInputs.of(PipelinedRegions.build(ExecutionTopology.of(graph)));
        FailoverHandler handler = handler(inputs);
        int a0 = graph.task(0, 0);
        int b0 = graph.task(1, 0);
        finish(handler, graph.task(0, 1), graph.task(1, 1)); // else the sinks need them rerun
        deployer.takeDeployed();

        FailureHandling first = handler.onTaskFailed(b0, 0, new IllegalStateException("b#0"));
        // a#0 shares b#0's region: cancelled with it, it reports its own failure, attempt 0.
        FailureHandling second =
                handler.onTaskFailed(a0, 0, new IllegalStateException("a#0 cancelled"));
        handler.restart(FailureHandlings.restart(first));

        assertThat(first).isInstanceOf(FailureHandling.Restart.class);
        assertThat(
                        FailureHandlings.restart(first)
                                .tasks()
                                .toTaskArray()) // the region and both consumers
                .containsExactly(a0, b0, graph.task(2, 0), graph.task(2, 1));
        assertThat(second).isInstanceOf(FailureHandling.Ignored.class);
        assertThat(second.cause()).hasMessage("a#0 cancelled");
        assertThat(counted).as("failures the policy counted").isEqualTo(1);
        assertThat(handler.isJobFailed()).isFalse();
        assertThat(handler.attempt(a0)).isEqualTo(1);
        assertThat(handler.attempt(b0)).isEqualTo(1);
        assertThat(handler.attempt(graph.task(0, 1))).isZero();
        assertThat(deployer.takeDeployed())
                .as("the region redeployed once")
                .containsExactly(inputs.regions().regionOf(b0));
    }

    @Test
    void aTaskOfTheSameRestartSet_failingWithItsOldAttempt_isMergedIntoTheOneRestart() {
        JobGraph graph = job();
        RegionInputs inputs = RegionInputs.of(PipelinedRegions.build(ExecutionTopology.of(graph)));
        FailoverHandler handler = handler(inputs);
        int a0 = graph.task(0, 0);
        int b0 = graph.task(1, 0);
        int c0 = graph.task(2, 0);
        int c1 = graph.task(2, 1);
        finish(handler, a0, graph.task(0, 1), b0, graph.task(1, 1)); // both sinks deployed
        deployer.takeDeployed();
        PartitionId lost = new PartitionId(graph.firstPartition(1), 0); // b#0's, read by both sinks

        FailureHandling first =
                handler.onTaskFailed(c0, 0, new IllegalStateException("c#0 lost it"), lost);
        // c#1 is in the restart set (a consumer of the restarted region) and fails reading the
        // same partition before the restart runs: one restart already covers it.
        FailureHandling second =
                handler.onTaskFailed(c1, 0, new IllegalStateException("c#1 lost it"), lost);
        handler.restart(FailureHandlings.restart(first));
        int[] redeployed = deployer.takeDeployed();
        finish(handler, a0, b0);

        assertThat(first).isInstanceOf(FailureHandling.Restart.class);
        assertThat(FailureHandlings.restart(first).tasks().toTaskArray())
                .containsExactly(a0, b0, c0, c1);
        assertThat(second).isInstanceOf(FailureHandling.Ignored.class);
        assertThat(counted).as("failures the policy counted").isEqualTo(1);
        for (int task : new int[] {a0, b0, c0, c1}) {
            assertThat(handler.attempt(task)).as(graph.taskName(task)).isEqualTo(1);
        }
        assertThat(handler.attempt(graph.task(1, 1))).isZero();
        assertThat(redeployed).containsExactly(inputs.regions().regionOf(b0));
        assertThat(deployer.takeDeployed())
                .as("each sink redeployed once, once b#0 produced again")
                .containsExactly(inputs.regions().regionOf(c0), inputs.regions().regionOf(c1));
    }
}
