package io.railyard.regions;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static io.railyard.topology.ResultPartitionType.PIPELINED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.Allocations;
import io.railyard.topology.JobGraph;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PipelinedRegions#regionOf(int)} and a reused {@link TaskRangeCursor} allocate nothing, as
 * their docs promise, on every kind of block (whole, aligned, table) and on merged regions;
 * measured with the thread allocation counter after warm-up.
 */
class PipelinedRegionsAllocationTest {
    private static final int CALLS = 20_000;

    static Stream<JobGraph> jobs() {
        return Stream.of(
                // aligned and table blocks, then 1,000 singleton sinks
                JobGraph.builder()
                        .addVertex("source", 1_000)
                        .addVertex("map", 400)
                        .addVertex("sink", 1_000)
                        .connect("source", "map", POINTWISE, PIPELINED)
                        .connect("map", "sink", ALL_TO_ALL, BLOCKING)
                        .build(),
                // a whole block (pipelined all-to-all) feeding an aligned chain
                JobGraph.builder()
                        .addVertex("a", 300)
                        .addVertex("b", 200)
                        .addVertex("c", 200)
                        .addVertex("d", 200)
                        .connect("a", "b", ALL_TO_ALL, PIPELINED)
                        .connect("b", "c", ALL_TO_ALL, BLOCKING)
                        .connect("c", "d", POINTWISE, PIPELINED)
                        .build(),
                // the diamond (A→B→C pointwise pipelined, A→C all-to-all blocking) whose
                // blocking cycle merges regions, without the all-to-all shortcut
                JobGraph.builder()
                        .addVertex("A", 64)
                        .addVertex("B", 64)
                        .addVertex("C", 64)
                        .addVertex("D", 500)
                        .connect("A", "B", POINTWISE, PIPELINED)
                        .connect("B", "C", POINTWISE, PIPELINED)
                        .connect("A", "C", ALL_TO_ALL, BLOCKING)
                        .connect("C", "D", POINTWISE, BLOCKING)
                        .build());
    }

    /** Every job, with and without Flink's all-to-all shortcut (without: more merging). */
    static Stream<Arguments> graphs() {
        return jobs().flatMap(graph -> Stream.of(arguments(graph, true), arguments(graph, false)));
    }

    private static PipelinedRegions regionsOf(JobGraph graph, boolean shortcut) {
        PipelinedRegions regions = new RegionBuilder(ExecutionTopology.of(graph), shortcut).build();
        assertThat(regions.checkInvariants()).isTrue();
        return regions;
    }

    @Test
    void graphs_coverEveryKindOfBlockAndMergedRegions() {
        java.util.Set<Byte> kinds = new java.util.HashSet<>();
        boolean merged = false;
        for (Arguments args : graphs().toList()) {
            PipelinedRegions regions = regionsOf((JobGraph) args.get()[0], (Boolean) args.get()[1]);
            for (byte kind : regions.blockKind) {
                kinds.add(kind);
            }
            merged |= regions.preRegionSlotsOfRegion != null;
        }

        assertThat(kinds)
                .containsExactlyInAnyOrder(
                        PipelinedRegions.WHOLE, PipelinedRegions.ALIGNED, PipelinedRegions.TABLE);
        assertThat(merged).isTrue();
    }

    @ParameterizedTest(name = "{0}, shortcut {1}")
    @MethodSource("graphs")
    void regionOf_allocatesNothing(JobGraph graph, boolean shortcut) {
        PipelinedRegions regions = regionsOf(graph, shortcut);
        int tasks = graph.numTasks();

        double bytes =
                Allocations.bytesPerCall(
                        CALLS, call -> regions.regionOf((int) ((call * 7919L) % tasks)));

        assertThat(bytes).as("bytes per call").isLessThan(1.0);
    }

    @ParameterizedTest(name = "{0}, shortcut {1}")
    @MethodSource("graphs")
    void reusedCursor_visitsARegionAllocatingNothing(JobGraph graph, boolean shortcut) {
        PipelinedRegions regions = regionsOf(graph, shortcut);
        TaskRangeCursor cursor = regions.newTaskRangeCursor();
        int numRegions = regions.numRegions();

        double bytes =
                Allocations.bytesPerCall(
                        CALLS,
                        call -> {
                            long sum = 0;
                            for (cursor.reset(call % numRegions); cursor.next(); ) {
                                sum += cursor.end() - cursor.start();
                            }
                            return sum + regions.numTasks(call % numRegions);
                        });

        assertThat(bytes).as("bytes per call").isLessThan(1.0);
    }
}
