package io.railyard.jobmaster;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.deployment.WorkerTable;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.failover.RestartSet;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import io.railyard.topology.ResultPartitionType;
import it.unimi.dsi.fastutil.ints.IntList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShuffleMasterTest {
    private final JobGraph graph =
            JobGraph.builder()
                    .addVertex("source", 3)
                    .addVertex("sink", 2)
                    .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                    .build();
    private final JobScheduler scheduler =
            new JobScheduler(graph, RestartBackoffPolicy.noRestart(), new NoActions());
    private final ShuffleMaster master =
            new ShuffleMaster(graph, new WorkerTable(List.of("a:1", "b:1")), scheduler.failover());

    /** The scheduler's decisions go nowhere: only its attempts are read. */
    private static final class NoActions implements JobScheduler.Actions {
        @Override
        public void deploy(IntList regions) {}

        @Override
        public void release(int from, int to) {}

        @Override
        public void stop(RestartSet tasks) {}

        @Override
        public void stopAll() {}
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
