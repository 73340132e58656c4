package io.railyard.failover;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ReadmeJob;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The failover sample of README.md, kept compiling and true. */
class ReadmeSampleTest {

    @Test
    void readmeSample_runsAsDocumented() {
        JobGraph graph = ReadmeJob.graph();
        int sink7 = graph.task(graph.vertexId("sink"), 7);
        IntArrayList deployed = new IntArrayList();
        RegionInputs inputs = RegionInputs.of(PipelinedRegions.build(ExecutionTopology.of(graph)));
        RegionSchedulingStrategy strategy = new RegionSchedulingStrategy(inputs, deployed::add);

        FailoverHandler failover =
                new FailoverHandler(
                        inputs,
                        strategy,
                        RestartBackoffPolicy.fixedDelay(3, Duration.ofSeconds(1)),
                        (from, to) -> {});
        strategy.startScheduling();
        for (int task = 0; task < graph.firstTask(graph.vertexId("sink")); task++) {
            failover.onTaskFinished(task, 0); // sources and maps: the 10,000 sinks deploy
        }
        FailureHandling handling = failover.onTaskFailed(sink7, 0, -1);
        // ... cancel handling.restartSet(), wait handling.delayMillis(), then:
        failover.restart(handling);

        assertThat(handling.restartSet().toTaskArray()).containsExactly(sink7);
        assertThat(handling.delayMillis()).isEqualTo(1_000);
        assertThat(failover.attempt(sink7)).isEqualTo(1);
        assertThat(deployed.getInt(deployed.size() - 1))
                .isEqualTo(inputs.regions().regionOf(sink7)); // redeployed at once
    }
}
