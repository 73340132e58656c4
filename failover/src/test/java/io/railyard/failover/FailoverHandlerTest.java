package io.railyard.failover;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static io.railyard.topology.ResultPartitionType.PIPELINED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import io.railyard.regions.scheduling.TestingRegionDeployer;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import java.time.Duration;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

/**
 * The failover handler end to end with the scheduling strategy: attempts and stale events, lost
 * partitions, back-off exhaustion and release (ARCHITECTURE.md, Reliability rows 8–13).
 */
class FailoverHandlerTest {
    private final RuntimeException failure = new IllegalStateException("task failed");
    private final TestingRegionDeployer deployer = new TestingRegionDeployer();
    private final BitSet released = new BitSet();
    private int releasedTwice;
    private int failures;

    /** a(2) -> b(2) -> c(2), every edge ALL_TO_ALL BLOCKING: six singleton regions. */
    private static JobGraph chain() {
        return JobGraph.builder()
                .addVertex("a", 2)
                .addVertex("b", 2)
                .addVertex("c", 2)
                .connect("a", "b", ALL_TO_ALL, BLOCKING)
                .connect("b", "c", ALL_TO_ALL, BLOCKING)
                .build();
    }

    private FailoverHandler handler(JobGraph graph, RestartBackoffPolicy policy) {
        RegionInputs inputs = RegionInputs.of(PipelinedRegions.build(ExecutionTopology.of(graph)));
        RegionSchedulingStrategy strategy = new RegionSchedulingStrategy(inputs, deployer);
        FailoverHandler handler =
                new FailoverHandler(
                        inputs,
                        strategy,
                        () -> {
                            failures++;
                            return policy.onFailure();
                        },
                        (from, to) -> {
                            releasedTwice += released.get(from, to).cardinality();
                            released.set(from, to);
                        });
        strategy.startScheduling();
        return handler;
    }

    private static void finishAll(FailoverHandler handler, JobGraph graph, String vertex) {
        int v = graph.vertexId(vertex);
        for (int i = 0; i < graph.parallelism(v); i++) {
            int task = graph.task(v, i);
            assertThat(handler.onTaskFinished(task, handler.attempt(task))).isTrue();
        }
    }

    @Test
    void twoFailuresOfOneAttempt_makeOneRestart_countedOnce() {
        JobGraph graph = chain();
        FailoverHandler handler =
                handler(graph, RestartBackoffPolicy.fixedDelay(5, Duration.ofMillis(7)));
        finishAll(handler, graph, "a");
        int b0 = graph.task(graph.vertexId("b"), 0);
        int b1 = graph.task(graph.vertexId("b"), 1);
        assertThat(handler.onTaskFinished(b1, 0)).isTrue(); // else b#1 restarts too: not produced

        FailureHandling first = handler.onTaskFailed(b0, 0, failure);
        FailureHandling again = handler.onTaskFailed(b0, 0, failure);

        assertThat(first).isInstanceOf(FailureHandling.Restart.class);
        assertThat(FailureHandlings.restart(first).delayMillis()).isEqualTo(7);
        assertThat(FailureHandlings.restart(first).tasks().toTaskArray()) // b#0 and both sinks
                .containsExactly(b0, graph.task(2, 0), graph.task(2, 1));
        assertThat(again).isInstanceOf(FailureHandling.Ignored.class);
        assertThat(failures).isEqualTo(1);
        assertThat(handler.attempt(b0)).isEqualTo(1);
        assertThat(handler.attempt(graph.task(2, 1))).isEqualTo(1);
        assertThat(handler.attempt(graph.task(1, 1))).isZero();
    }

    /**
     * A restart whose regions a later decision took over restarts only what it still owns: here
     * nothing, since the lost partition's decision includes the failed sink (b#0's partition is
     * lost and a's were released once b finished, so everything reruns); the later restart
     * redeploys the sources, and the sinks once each after b finished again.
     */
    @Test
    void aRestartRestartsOnlyTheRegionsItStillOwns() {
        JobGraph graph = chain();
        FailoverHandler handler = handler(graph, RestartBackoffPolicy.fixedDelay(5, Duration.ZERO));
        finishAll(handler, graph, "a");
        finishAll(handler, graph, "b");
        int c0 = graph.task(2, 0);
        int c1 = graph.task(2, 1);
        deployer.takeDeployed();
        FailureHandling sinkFailed = handler.onTaskFailed(c0, 0, failure);
        FailureHandling partitionLost =
                handler.onTaskFailed(c1, 0, failure, new PartitionId(graph.firstPartition(1), 0));
        assertThat(FailureHandlings.restart(partitionLost).tasks().contains(c0))
                .as("taken over")
                .isTrue();

        handler.restart(
                FailureHandlings.restart(sinkFailed),
                region -> !FailureHandlings.restart(partitionLost).tasks().contains(c0));

        assertThat(deployer.takeDeployed()).as("c#0 is left to the later decision").isEmpty();
        handler.restart(FailureHandlings.restart(partitionLost));
        assertThat(deployer.takeDeployed()).as("the sources; the rest waits").hasSize(2);
        finishAll(handler, graph, "a");
        finishAll(handler, graph, "b");
        assertThat(deployer.takeDeployed()).as("b, then both sinks, once each").hasSize(4);
        assertThat(handler.attempt(c0)).isEqualTo(2);
        assertThat(handler.attempt(c1)).isEqualTo(1);
    }

    @Test
    void staleFinishedEvent_isIgnored_andChangesNothing() {
        JobGraph graph = chain();
        FailoverHandler handler = handler(graph, () -> RestartDecision.restartAfter(0));
        int a0 = graph.task(0, 0);
        FailureHandling handling = handler.onTaskFailed(a0, 0, failure);

        assertThat(handler.onTaskFinished(a0, 0)).isFalse();
        assertThat(handler.availability().isAvailable(0)).isFalse();

        handler.restart(FailureHandlings.restart(handling));
        assertThat(handler.onTaskFinished(a0, 1)).isTrue();
        assertThat(handler.availability().isAvailable(0)).isTrue();
    }

    @Test
    void lostPartition_restartsItsProducer_andTheRestartedRegionsAreRedeployed() {
        // a(2) -POINTWISE PIPELINED-> b(2) -ALL_TO_ALL BLOCKING-> c(2): regions {a#i, b#i}, c#j.
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 2)
                        .addVertex("b", 2)
                        .addVertex("c", 2)
                        .connect("a", "b", POINTWISE, PIPELINED)
                        .connect("b", "c", ALL_TO_ALL, BLOCKING)
                        .build();
        FailoverHandler handler = handler(graph, () -> RestartDecision.restartAfter(0));
        finishAll(handler, graph, "a");
        finishAll(handler, graph, "b");
        deployer.takeDeployed();
        int a1 = graph.task(0, 1);
        int b1 = graph.task(1, 1);
        int c1 = graph.task(2, 1);
        int lost = graph.firstPartition(graph.producedDataSet(1, 0)) + 1; // b#1's output

        FailureHandling handling = handler.onTaskFailed(c1, 0, failure, new PartitionId(lost, 0));
        handler.restart(FailureHandlings.restart(handling));

        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));
        assertThat(FailureHandlings.restart(handling).tasks().toTaskArray())
                .containsExactly(a1, b1, graph.task(2, 0), c1);
        assertThat(deployer.takeDeployed()).containsExactly(regions.regionOf(b1));
        handler.onTaskFinished(a1, 1);
        handler.onTaskFinished(b1, 1);
        assertThat(deployer.takeDeployed())
                .containsExactly(regions.regionOf(graph.task(2, 0)), regions.regionOf(c1));
    }

    @Test
    void workerLoss_backtracksThroughLostInputs_withOneAttemptPerRegion() {
        JobGraph graph = chain();
        FailoverHandler handler = handler(graph, () -> RestartDecision.restartAfter(0));
        finishAll(handler, graph, "a");
        finishAll(handler, graph, "b");
        for (int p = 0; p < graph.numPartitions(); p++) {
            handler.onPartitionLost(new PartitionId(p, 0)); // the only worker held them all
        }

        FailureHandling handling = handler.onTaskFailed(graph.task(2, 0), 0, failure);

        assertThat(FailureHandlings.restart(handling).tasks().numTasks()).isEqualTo(6);
        for (int task = 0; task < 6; task++) {
            assertThat(handler.attempt(task)).as(graph.taskName(task)).isEqualTo(1);
        }
    }

    @Test
    void partitionLostAfterItsConsumersFinished_restartsNothing_andIsReleasedOnce() {
        JobGraph graph = chain();
        FailoverHandler handler = handler(graph, () -> RestartDecision.restartAfter(0));
        finishAll(handler, graph, "a");
        finishAll(handler, graph, "b");
        assertThat(released.get(0, 2).cardinality()).isEqualTo(2); // a's outputs, read by b

        handler.onPartitionLost(new PartitionId(0, 0));
        finishAll(handler, graph, "c");

        assertThat(released.cardinality()).isEqualTo(4);
        assertThat(releasedTwice).isZero();
        assertThat(failures).isZero();
    }

    @Test
    void exhaustedBackoff_failsTheJob_releasesEveryPartitionOnce_andIgnoresLaterEvents() {
        JobGraph graph = chain();
        FailoverHandler handler = handler(graph, RestartBackoffPolicy.noRestart());
        finishAll(handler, graph, "a");
        finishAll(handler, graph, "b"); // a's partitions released here

        FailureHandling handling = handler.onTaskFailed(graph.task(2, 0), 0, failure);

        assertThat(handling).isInstanceOf(FailureHandling.FailJob.class);
        assertThat(handling.reason()).contains("no restart");
        assertThat(handler.isJobFailed()).isTrue();
        assertThat(released.cardinality()).isEqualTo(graph.numPartitions());
        assertThat(releasedTwice).isZero();
        assertThat(handler.onTaskFinished(graph.task(2, 1), 0)).isFalse();
        assertThat(handler.onTaskFailed(graph.task(2, 1), 0, failure))
                .isInstanceOf(FailureHandling.Ignored.class);
    }

    @Test
    void badIds_areRejectedWithTheirNames() {
        JobGraph graph = chain();
        FailoverHandler handler = handler(graph, RestartBackoffPolicy.noRestart());

        assertThatThrownBy(() -> handler.onTaskFailed(6, 0, failure))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("task (6)");
        assertThatThrownBy(() -> handler.onTaskFailed(0, 0, failure, new PartitionId(4, 0)))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("lost partition (4)");
        assertThatThrownBy(() -> handler.onPartitionLost(new PartitionId(99, 0)))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("partition (99)");
    }
}
