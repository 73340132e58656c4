package io.railyard.regions.scheduling;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static io.railyard.topology.ResultPartitionType.HYBRID_FULL;
import static io.railyard.topology.ResultPartitionType.PIPELINED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoMoreInteractions;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.topology.JobGraph;
import org.junit.jupiter.api.Test;
import org.mockito.InOrder;

/**
 * The exact calls {@link RegionSchedulingStrategy} makes on its boundary, the {@link
 * RegionDeployer}: which regions, in which order, and never one twice within an attempt (its
 * contract: once per region and attempt, ascending topological rank within one event). A Mockito
 * mock with {@link InOrder} and {@code verifyNoMoreInteractions}.
 */
class RegionDeployerInteractionTest {

    /**
     * source(2) -ALL_TO_ALL BLOCKING-> map(2) -POINTWISE PIPELINED-> reduce(2) -ALL_TO_ALL
     * HYBRID_FULL-> sink(2). Regions: source#0 = 0, source#1 = 1, {map#i, reduce#i} = 2 + i, sink#i
     * = 4 + i.
     */
    private static JobGraph job() {
        return JobGraph.builder()
                .addVertex("source", 2)
                .addVertex("map", 2)
                .addVertex("reduce", 2)
                .addVertex("sink", 2)
                .connect("source", "map", ALL_TO_ALL, BLOCKING)
                .connect("map", "reduce", POINTWISE, PIPELINED)
                .connect("reduce", "sink", ALL_TO_ALL, HYBRID_FULL)
                .build();
    }

    @Test
    void smallJob_deploysEachRegionOnce_inTopologicalOrder_andARestartedRegionOnceMore() {
        JobGraph graph = job();
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));
        RegionDeployer deployer = mock(RegionDeployer.class);
        RegionSchedulingStrategy strategy =
                new RegionSchedulingStrategy(RegionInputs.of(regions), deployer);
        InOrder order = inOrder(deployer);
        assertThat(regions.numRegions()).isEqualTo(6);
        assertThat(regions.describe(2)).isEqualTo("[map#0, reduce#0]");
        assertThat(regions.describe(5)).isEqualTo("[sink#1]");

        strategy.startScheduling();
        order.verify(deployer).deploy(0);
        order.verify(deployer).deploy(1);
        order.verifyNoMoreInteractions();

        strategy.onTaskFinished(graph.task(0, 1));
        strategy.onTaskFinished(graph.task(0, 0)); // the last source: the rest in one pass
        order.verify(deployer).deploy(2);
        order.verify(deployer).deploy(3);
        order.verify(deployer).deploy(4);
        order.verify(deployer).deploy(5);

        for (int v = 1; v < 4; v++) { // map, reduce and sink finish: nothing more to deploy
            strategy.onTaskFinished(graph.task(v, 0));
            strategy.onTaskFinished(graph.task(v, 1));
        }
        strategy.restartRegions(3, 3); // given twice, taken back and redeployed once
        order.verify(deployer).deploy(3);

        for (int region = 0; region < 6; region++) {
            verify(deployer, times(region == 3 ? 2 : 1)).deploy(region);
        }
        verifyNoMoreInteractions(deployer);
    }
}
