package io.railyard.jobmaster;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.deployment.WorkerTable;
import io.railyard.failover.FailoverHandler;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import io.railyard.topology.ResultPartitionType;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShuffleMasterTest {
    private final JobGraph graph =
            JobGraph.builder()
                    .addVertex("source", 3)
                    .addVertex("sink", 2)
                    .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                    .build();
    private final FailoverHandler failover = failover(graph);
    private final ShuffleMaster master =
            new ShuffleMaster(graph, new WorkerTable(List.of("a:1", "b:1")), failover);

    private static FailoverHandler failover(JobGraph graph) {
        RegionInputs inputs = RegionInputs.of(PipelinedRegions.build(ExecutionTopology.of(graph)));
        RegionSchedulingStrategy strategy = new RegionSchedulingStrategy(inputs, region -> {});
        return new FailoverHandler(
                inputs, strategy, RestartBackoffPolicy.noRestart(), (from, to) -> {});
    }

    @Test
    void partitionsLiveWhereTheirProducerIsPlaced_untilItIsUnplaced() {
        master.place(1, 1);

        assertThat(master.worker(1)).isEqualTo(1);
        assertThat(master.worker(0)).as("unplaced").isEqualTo(-1);
        assertThat(master.partitionId(1)).isEqualTo(new PartitionId(1, 0));
        assertThat(master.connectionIndex(1)).isZero();

        master.unplace(0, 3);
        assertThat(master.worker(1)).isEqualTo(-1);
    }

    @Test
    void badArguments_nameWhatIsWrong() {
        assertThatThrownBy(() -> master.place(5, 0)).hasMessageContaining("task (5)");
        assertThatThrownBy(() -> master.place(0, 2)).hasMessageContaining("worker (2)");
        assertThatThrownBy(() -> master.unplace(2, 9))
                .hasMessage("task range [2, 9) is not within [0, 5)");
    }
}
