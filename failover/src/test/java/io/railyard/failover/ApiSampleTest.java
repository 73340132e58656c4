package io.railyard.failover;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import io.railyard.regions.scheduling.TestingRegionDeployer;
import io.railyard.topology.JobGraph;
import io.railyard.topology.SampleJob;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Failover as a user walks it on {@link SampleJob}: a failed sink restarts alone with the policy's
 * 1 s back-off, and {@code restart} redeploys its region at once.
 */
class ApiSampleTest {

    @Test
    void sinkFailure_onTheSampleJob_restartsTheSinkAlone() {
        JobGraph graph = SampleJob.graph();
        int sink7 = graph.task(graph.vertexId("sink"), 7);
        TestingRegionDeployer deployer = new TestingRegionDeployer();
        RegionInputs inputs = RegionInputs.of(PipelinedRegions.build(ExecutionTopology.of(graph)));
        RegionSchedulingStrategy strategy = new RegionSchedulingStrategy(inputs, deployer);

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
        int deployedBeforeTheFailure = deployer.takeDeployed().length;
        Exception failure = new IllegalStateException("sink#7 failed");
        FailureHandling handling = failover.onTaskFailed(sink7, 0, failure);
        // ... cancel FailureHandlings.restart(handling).tasks(), wait
        // FailureHandlings.restart(handling).delayMillis(), then:
        failover.restart(FailureHandlings.restart(handling));

        assertThat(deployedBeforeTheFailure).isEqualTo(4_000 + 10_000);
        assertThat(FailureHandlings.restart(handling).tasks().toTaskArray()).containsExactly(sink7);
        assertThat(FailureHandlings.restart(handling).delayMillis()).isEqualTo(1_000);
        assertThat(failover.attempt(sink7)).isEqualTo(1);
        assertThat(deployer.takeDeployed())
                .containsExactly(inputs.regions().regionOf(sink7)); // redeployed at once
    }
}
