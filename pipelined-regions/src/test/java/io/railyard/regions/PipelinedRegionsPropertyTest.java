package io.railyard.regions;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.NaiveConnections;
import io.railyard.topology.RandomJobGraphs;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Regions of random job graphs against {@link RegionOracle} and the region rules. */
class PipelinedRegionsPropertyTest {

    static LongStream seeds() {
        return LongStream.range(3000, 3400);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void regions_equalTheOracle(long seed) {
        JobGraph graph = RandomJobGraphs.generate(seed);
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));

        assertThat(regions.checkInvariants()).isTrue();
        assertThat(RegionOracle.regions(regions)).isEqualTo(RegionOracle.regions(graph));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void connections_stayInsideOrGoForwardInTopologicalRank(long seed) {
        JobGraph graph = RandomJobGraphs.generate(seed);
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));

        NaiveConnections.forEach(
                graph,
                (e, p, consumer) -> {
                    int from = regions.regionOf(NaiveConnections.producerTask(graph, p));
                    int to = regions.regionOf(consumer);
                    if (graph.edgeResultType(e).mustBePipelinedConsumed()) {
                        assertThat(to).as("pipelined connection of edge %s", e).isEqualTo(from);
                    } else {
                        assertThat(regions.topologicalRank(from))
                                .as("connection of edge %s", e)
                                .isLessThanOrEqualTo(regions.topologicalRank(to));
                    }
                });
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void withoutTheAllToAllShortcut_cycleMergingReachesTheSameRegions(long seed) {
        JobGraph graph = RandomJobGraphs.generate(seed);
        PipelinedRegions regions = new RegionBuilder(ExecutionTopology.of(graph), false).build();

        assertThat(regions.checkInvariants()).isTrue();
        assertThat(RegionOracle.regions(regions)).isEqualTo(RegionOracle.regions(graph));
    }
}
