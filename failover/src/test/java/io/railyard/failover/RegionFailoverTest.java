package io.railyard.failover;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import org.junit.jupiter.api.Test;

/** The region failover rules on small named jobs and on the 10k × 10k reference jobs. */
class RegionFailoverTest {

    private static JobGraph twoVertices(int parallelism, ResultPartitionType type) {
        return JobGraph.builder()
                .addVertex("source", parallelism)
                .addVertex("sink", parallelism)
                .connect("source", "sink", ALL_TO_ALL, type)
                .build();
    }

    private static RegionFailover failover(JobGraph graph, PartitionAvailability availability) {
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));
        return new RegionFailover(RegionInputs.of(regions), availability);
    }

    @Test
    void blockingJob_sourceFailure_restartsItAndEverySink() {
        JobGraph graph = twoVertices(10_000, ResultPartitionType.BLOCKING);
        RegionFailover failover = failover(graph, PartitionAvailability.all());

        RestartSet set = failover.tasksToRestart(graph.task(0, 42));

        assertThat(set.numTasks()).isEqualTo(10_001);
        assertThat(set.numRegions()).isEqualTo(10_001);
        assertThat(set.numRanges()).isEqualTo(2); // source#42 and all sinks
        assertThat(set.rangeStart(0)).isEqualTo(42);
        assertThat(set.rangeEnd(0)).isEqualTo(43);
        assertThat(set.rangeStart(1)).isEqualTo(10_000);
        assertThat(set.rangeEnd(1)).isEqualTo(20_000);
        assertThat(set.rangeVertex(1)).isEqualTo(graph.vertexId("sink"));
    }

    @Test
    void blockingJob_sinkFailure_restartsTheSinkOnly_whenItsInputsAreAvailable() {
        JobGraph graph = twoVertices(10_000, ResultPartitionType.BLOCKING);
        int sink = graph.task(graph.vertexId("sink"), 7);

        RestartSet available = failover(graph, PartitionAvailability.all()).tasksToRestart(sink);
        RestartSet lost = failover(graph, PartitionAvailability.none()).tasksToRestart(sink);

        assertThat(available.toTaskArray()).containsExactly(sink);
        assertThat(lost.numTasks()).isEqualTo(20_000); // every source, then every sink
    }

    @Test
    void pipelinedJob_anyFailure_restartsAllTasksAsTwoRanges() {
        JobGraph graph = twoVertices(10_000, ResultPartitionType.PIPELINED);

        RestartSet set = failover(graph, PartitionAvailability.all()).tasksToRestart(12_345);

        assertThat(set.numTasks()).isEqualTo(20_000);
        assertThat(set.numRegions()).isEqualTo(1);
        assertThat(set.numRanges()).isEqualTo(2);
    }

    @Test
    void hybridSelectiveInputs_cannotBeReread_hybridFullInputsCan() {
        for (ResultPartitionType type :
                new ResultPartitionType[] {
                    ResultPartitionType.HYBRID_FULL, ResultPartitionType.HYBRID_SELECTIVE
                }) {
            JobGraph graph = twoVertices(4, type);
            int sink = graph.task(graph.vertexId("sink"), 0);

            RestartSet set = failover(graph, PartitionAvailability.all()).tasksToRestart(sink);

            assertThat(set.numTasks())
                    .as("%s", type)
                    .isEqualTo(type == ResultPartitionType.HYBRID_FULL ? 1 : 8);
        }
    }

    @Test
    void onlyTheLostPartitionsProducerIsAdded_andItsOtherConsumersFollow() {
        // a(4) -POINTWISE BLOCKING-> b(4): four independent pairs a#i -> b#i.
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 4)
                        .addVertex("b", 4)
                        .connect("a", "b", POINTWISE, ResultPartitionType.BLOCKING)
                        .build();
        PartitionTracker tracker = new PartitionTracker(graph);
        for (int p = 0; p < 4; p++) {
            tracker.onPartitionFinished(p);
        }
        tracker.onPartitionLost(2);
        RegionFailover failover = failover(graph, tracker);

        assertThat(failover.tasksToRestart(graph.task(1, 2)).toTaskArray())
                .containsExactly(graph.task(0, 2), graph.task(1, 2));
        assertThat(failover.tasksToRestart(graph.task(1, 3)).toTaskArray())
                .containsExactly(graph.task(1, 3));
    }

    @Test
    void reusedSet_isClearedBetweenCalls() {
        JobGraph graph = twoVertices(100, ResultPartitionType.BLOCKING);
        RegionFailover failover = failover(graph, PartitionAvailability.all());
        RestartSet set = new RestartSet();

        failover.tasksToRestart(0, set);
        failover.tasksToRestart(150, set);

        assertThat(set.toTaskArray()).containsExactly(150);
        assertThat(set.regions()).hasSize(1);
    }

    @Test
    void badTaskIds_areRejectedWithTheirName() {
        RegionFailover failover =
                failover(twoVertices(3, ResultPartitionType.BLOCKING), PartitionAvailability.all());

        assertThatThrownBy(() -> failover.tasksToRestart(6))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("failedTask (6)");
        assertThatThrownBy(() -> failover.tasksToRestart(-1))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("failedTask (-1)");
    }

    @Test
    void partitionTracker_followsEvents_andRejectsBadIds() {
        JobGraph graph = twoVertices(3, ResultPartitionType.BLOCKING);
        PartitionTracker tracker = new PartitionTracker(graph);

        tracker.onPartitionFinished(0);
        tracker.onPartitionFinished(1);
        tracker.onPartitionFinished(2);
        tracker.onPartitionReleased(1);

        assertThat(tracker.nextUnavailable(0, 3)).isEqualTo(1);
        assertThat(tracker.isAvailable(2)).isTrue();
        tracker.onPartitionsInvalidated(0, 3);
        assertThat(tracker.numAvailable()).isZero();
        assertThatThrownBy(() -> tracker.onPartitionLost(3))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("partition (3)");
        assertThatThrownBy(() -> tracker.nextUnavailable(2, 1))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }
}
