package io.railyard.regions.scheduling;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static io.railyard.topology.ResultPartitionType.HYBRID_FULL;
import static io.railyard.topology.ResultPartitionType.HYBRID_SELECTIVE;
import static io.railyard.topology.ResultPartitionType.PIPELINED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class RegionSchedulingStrategyTest {
    private final TestingRegionDeployer deployer = new TestingRegionDeployer();

    private RegionSchedulingStrategy strategyFor(JobGraph graph) {
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));
        return new RegionSchedulingStrategy(RegionInputs.of(regions), deployer);
    }

    private static JobGraph twoVertices(int p, int q, ResultPartitionType type) {
        return JobGraph.builder()
                .addVertex("source", p)
                .addVertex("sink", q)
                .connect("source", "sink", ALL_TO_ALL, type)
                .build();
    }

    @Test
    void blockingJob_deploysSinksOnlyAfterTheLastSourceFinished() {
        RegionSchedulingStrategy strategy = strategyFor(twoVertices(3, 2, BLOCKING));

        strategy.startScheduling();
        assertThat(deployer.takeDeployed()).containsExactly(0, 1, 2);
        strategy.onTaskFinished(0);
        strategy.onTaskFinished(2);
        assertThat(deployer.takeDeployed()).isEmpty();
        assertThat(strategy.pendingInputs(3)).isEqualTo(1);
        strategy.onTaskFinished(1);

        assertThat(deployer.takeDeployed()).containsExactly(3, 4);
    }

    @Test
    void hybridChain_isDeployedInOnePass_inTopologicalOrder() {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 2)
                        .addVertex("b", 3)
                        .addVertex("c", 2)
                        .connect("a", "b", ALL_TO_ALL, HYBRID_FULL)
                        .connect("b", "c", POINTWISE, HYBRID_SELECTIVE)
                        .build();
        RegionSchedulingStrategy strategy = strategyFor(graph);

        strategy.startScheduling();

        assertThat(deployer.takeDeployed()).containsExactly(0, 1, 2, 3, 4, 5, 6);
    }

    @Test
    void pipelinedJob_isOneRegionDeployedAtStart() {
        RegionSchedulingStrategy strategy = strategyFor(twoVertices(3, 2, PIPELINED));

        strategy.startScheduling();

        assertThat(deployer.takeDeployed()).containsExactly(0);
        assertThat(strategy.regions().numTasks(0)).isEqualTo(5);
    }

    @Test
    void restartedRegions_areRedeployedWhenTheirInputsAreConsumableAgain() {
        RegionSchedulingStrategy strategy = strategyFor(twoVertices(2, 2, BLOCKING));
        strategy.startScheduling();
        strategy.onTaskFinished(0);
        strategy.onTaskFinished(1);
        deployer.takeDeployed();

        // Source 0 failed: it and both sinks restart. Source 0 has no inputs: deployed at once.
        strategy.restartRegions(0, 2, 3);

        assertThat(deployer.takeDeployed()).containsExactly(0);
        assertThat(strategy.isScheduled(2)).isFalse();
        assertThat(strategy.pendingInputs(2)).isEqualTo(1);
        strategy.onTaskFinished(0);
        assertThat(deployer.takeDeployed()).containsExactly(2, 3);
    }

    @Test
    void restartingAHybridProducer_reArmsItsScheduledConsumersCounters() {
        RegionSchedulingStrategy strategy = strategyFor(twoVertices(1, 1, HYBRID_FULL));
        strategy.startScheduling();
        deployer.takeDeployed();

        strategy.restartRegions(1);
        assertThat(deployer.takeDeployed()).containsExactly(1);
        strategy.restartRegions(0, 1);

        assertThat(deployer.takeDeployed()).containsExactly(0, 1);
    }

    @Test
    void badEvents_areRejected_namingTheTaskAndTheRule() {
        RegionSchedulingStrategy strategy = strategyFor(twoVertices(2, 2, BLOCKING));

        assertThatThrownBy(() -> strategy.restartRegions(0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("before startScheduling()");
        strategy.startScheduling();
        assertThatThrownBy(strategy::startScheduling)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already called");
        assertThatThrownBy(() -> strategy.onTaskFinished(2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("task sink#0 finished, but its region 2 is not scheduled");
        strategy.onTaskFinished(0);
        assertThatThrownBy(() -> strategy.onTaskFinished(0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("task source#0 already finished in this attempt");
        assertThatThrownBy(() -> strategy.onTaskFinished(4))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("task (4) must be less than size (4)");
        assertThatThrownBy(() -> strategy.restartRegions(0, 7))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("region (7) must be less than size (4)");
        // The rejected call changed nothing.
        assertThat(strategy.isScheduled(0)).isTrue();
    }

    @Test
    void callsFromAnotherThread_areRejected() {
        RegionSchedulingStrategy strategy = strategyFor(twoVertices(2, 2, BLOCKING));

        CompletableFuture<Void> call = CompletableFuture.runAsync(strategy::startScheduling);

        assertThatThrownBy(call::get)
                .isInstanceOf(ExecutionException.class)
                .rootCause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(
                        "the scheduling strategy is confined to thread "
                                + Thread.currentThread().getName()
                                + ", called from ");
    }

    @Test
    void callsFromInsideDeploy_areRejected() {
        RegionSchedulingStrategy strategy = strategyFor(twoVertices(1, 1, BLOCKING));
        deployer.setOnDeploy(region -> strategy.onTaskFinished(0));

        assertThatThrownBy(strategy::startScheduling)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("called back from inside RegionDeployer.deploy");
    }
}
