package io.railyard.failover;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.verifyNoMoreInteractions;
import static org.mockito.Mockito.when;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import io.railyard.regions.scheduling.TestingRegionDeployer;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import java.time.Duration;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;
import org.mockito.InOrder;

/**
 * The calls {@link FailoverHandler} makes on its boundaries, verified with Mockito mocks: the exact
 * partition ranges it hands to the {@link ReleaseListener} (and none while a restart has re-armed
 * the counters), and how often it reads the back-off policy's clock (ARCHITECTURE.md, Reliability
 * rows 3, 8, 9 and 13).
 */
class FailoverHandlerInteractionTest {
    private final RuntimeException failure = new IllegalStateException("task failed");
    private final TestingRegionDeployer deployer = new TestingRegionDeployer();

    /**
     * a(4) -POINTWISE BLOCKING-> b(2) -ALL_TO_ALL BLOCKING-> c(3), every task its own region.
     * Partitions: a's [0, 4), b#0 reads [0, 2) and b#1 [2, 4); b's [4, 6), read by every c.
     */
    private static JobGraph job() {
        return JobGraph.builder()
                .addVertex("a", 4)
                .addVertex("b", 2)
                .addVertex("c", 3)
                .connect("a", "b", POINTWISE, BLOCKING)
                .connect("b", "c", ALL_TO_ALL, BLOCKING)
                .build();
    }

    private FailoverHandler handler(
            JobGraph graph, RestartBackoffPolicy policy, ReleaseListener listener) {
        RegionInputs inputs = RegionInputs.of(PipelinedRegions.build(ExecutionTopology.of(graph)));
        RegionSchedulingStrategy strategy = new RegionSchedulingStrategy(inputs, deployer);
        FailoverHandler handler = new FailoverHandler(inputs, strategy, policy, listener);
        strategy.startScheduling();
        return handler;
    }

    private static void finish(FailoverHandler handler, JobGraph graph, int v, int... subtasks) {
        for (int subtask : subtasks) {
            int task = graph.task(v, subtask);
            assertThat(handler.onTaskFinished(task, handler.attempt(task))).isTrue();
        }
    }

    @Test
    void releases_exactRangesOnceConsumersFinish_noneWhileARestartHasReArmedThem() {
        JobGraph graph = job();
        ReleaseListener listener = mock(ReleaseListener.class);
        FailoverHandler handler =
                handler(graph, RestartBackoffPolicy.fixedDelay(1, Duration.ZERO), listener);
        InOrder order = inOrder(listener);

        finish(handler, graph, 0, 0, 1, 2, 3);
        verifyNoInteractions(listener);
        finish(handler, graph, 1, 0);
        order.verify(listener).release(0, 2);
        finish(handler, graph, 1, 1);
        order.verify(listener).release(2, 4);
        finish(handler, graph, 2, 0, 1);
        order.verifyNoMoreInteractions();

        // c#2 fails reading b#0's partition: b#0 reruns, and so do a#0 and a#1 (their partitions
        // were released) and every c. b#0 had finished: a[0, 2) becomes unreleasable again.
        FailureHandling handling =
                handler.onTaskFailed(graph.task(2, 2), 0, failure, new PartitionId(4, 0));
        assertThat(handling).isInstanceOf(FailureHandling.Restart.class);
        assertThat(FailureHandlings.restart(handling).tasks().toTaskArray())
                .containsExactly(0, 1, 4, 6, 7, 8);
        handler.restart(FailureHandlings.restart(handling));
        finish(handler, graph, 0, 0, 1);
        order.verifyNoMoreInteractions(); // re-armed: nothing until b#0 finishes again

        finish(handler, graph, 1, 0);
        order.verify(listener).release(0, 2);
        finish(handler, graph, 2, 0, 1, 2);
        order.verify(listener).release(4, 6);
        verify(listener, times(2)).release(0, 2);
        verifyNoMoreInteractions(listener);
        assertThat(deployer.takeDeployed()).hasSize(9 + 6); // every region once, restarted again
    }

    @Test
    void clock_isReadOncePerCountedFailure_inMillis_neverForStaleEvents() {
        JobGraph graph = job();
        InstantSource clock = mock(InstantSource.class);
        when(clock.millis()).thenReturn(1_000L, 2_000L, 3_000L);
        ReleaseListener listener = mock(ReleaseListener.class);
        FailoverHandler handler =
                handler(
                        graph,
                        RestartBackoffPolicy.failureRate(
                                2, Duration.ofMinutes(1), Duration.ofMillis(5), clock),
                        listener);
        int a0 = graph.task(0, 0);
        int a1 = graph.task(0, 1);

        FailureHandling first = handler.onTaskFailed(a0, 0, failure);
        FailureHandling stale = handler.onTaskFailed(a0, 0, failure); // same attempt: one restart
        verify(clock, times(1)).millis();
        handler.restart(FailureHandlings.restart(first));
        FailureHandling second = handler.onTaskFailed(a0, handler.attempt(a0), failure);
        handler.restart(FailureHandlings.restart(second));
        FailureHandling third =
                handler.onTaskFailed(a1, handler.attempt(a1), failure); // 3 in 1 min

        assertThat(first).isInstanceOf(FailureHandling.Restart.class);
        assertThat(FailureHandlings.restart(first).delayMillis()).isEqualTo(5);
        assertThat(stale).isInstanceOf(FailureHandling.Ignored.class);
        assertThat(second).isInstanceOf(FailureHandling.Restart.class);
        assertThat(third).isInstanceOf(FailureHandling.FailJob.class);
        assertThat(third.reason()).contains("failure-rate").contains("60000 ms");
        assertThat(handler.onTaskFailed(a1, handler.attempt(a1), failure))
                .isInstanceOf(FailureHandling.Ignored.class); // the job has failed
        verify(clock, times(3)).millis();
        verifyNoMoreInteractions(clock); // never instant(): milliseconds only
        verify(listener).release(0, 2); // the job failed: every group released, each once
        verify(listener).release(2, 4);
        verify(listener).release(4, 6);
        verifyNoMoreInteractions(listener);
    }
}
