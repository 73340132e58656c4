package io.railyard.regions.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.topology.JobGraph;
import io.railyard.topology.SampleJob;
import org.junit.jupiter.api.Test;

/**
 * Regions and region scheduling as a user walks them on {@link SampleJob}: a task's region, the
 * regions deployed at start, and a sink region that waits for every map.
 */
class ApiSampleTest {

    @Test
    void scheduling_onTheSampleJob_deploysSourceAndMapRegionsFirst() {
        JobGraph graph = SampleJob.graph();
        ExecutionTopology topology = ExecutionTopology.of(graph);
        int sink7 = graph.task(graph.vertexId("sink"), 7);
        TestingRegionDeployer deployer = new TestingRegionDeployer();

        PipelinedRegions regions = PipelinedRegions.build(topology);
        int region = regions.regionOf(sink7);
        RegionInputs inputs = RegionInputs.of(regions);
        RegionSchedulingStrategy strategy = new RegionSchedulingStrategy(inputs, deployer);
        strategy.startScheduling();
        int deployedAtStart = deployer.takeDeployed().length;
        strategy.onTaskFinished(graph.task(graph.vertexId("map"), 0));

        assertThat(regions.numRegions()).isEqualTo(14_000);
        assertThat(region).isEqualTo(4_007);
        assertThat(regions.describe(0)).isEqualTo("[source#0, source#1, map#0]");
        assertThat(deployedAtStart).isEqualTo(4_000);
        assertThat(deployer.takeDeployed()).isEmpty();
        assertThat(strategy.pendingInputs(region)).isEqualTo(1);
    }
}
