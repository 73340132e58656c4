package io.railyard.regions;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static io.railyard.topology.ResultPartitionType.HYBRID_FULL;
import static io.railyard.topology.ResultPartitionType.PIPELINED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PipelinedRegionsTest {

    static PipelinedRegions regionsOf(JobGraph graph) {
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));
        assertThat(regions.checkInvariants()).isTrue();
        return regions;
    }

    static List<String> described(PipelinedRegions regions) {
        List<String> out = new ArrayList<>();
        for (int r = 0; r < regions.numRegions(); r++) {
            out.add(regions.describe(r));
        }
        return out;
    }

    @Test
    void singletonRegionBase_isTheFirstRegionOfVerticesSplitIntoConsecutiveSingletons() {
        JobGraph blocking =
                JobGraph.builder()
                        .addVertex("a", 4)
                        .addVertex("b", 3)
                        .connect("a", "b", ALL_TO_ALL, BLOCKING)
                        .build();
        JobGraph pipelined =
                JobGraph.builder()
                        .addVertex("a", 4)
                        .addVertex("b", 4)
                        .connect("a", "b", POINTWISE, PIPELINED)
                        .build();

        PipelinedRegions split = PipelinedRegions.build(ExecutionTopology.of(blocking));
        PipelinedRegions aligned = PipelinedRegions.build(ExecutionTopology.of(pipelined));

        assertThat(split.singletonRegionBase(0)).isZero();
        assertThat(split.singletonRegionBase(1)).isEqualTo(4);
        for (int subtask = 0; subtask < 3; subtask++) {
            assertThat(split.regionOf(1, subtask)).isEqualTo(4 + subtask);
        }
        assertThat(aligned.singletonRegionBase(0)).isEqualTo(-1); // a#i shares with b#i
        assertThatThrownBy(() -> split.singletonRegionBase(2))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("vertex (2)");
    }

    @Test
    void diamond_pipelinedChainPlusBlockingShortcut_isMergedIntoOneRegion() {
        // A->B->C pipelined pointwise, A->C blocking all-to-all, P = 2: {A0,B0,C0} and
        // {A1,B1,C1} each wait for the other's blocking output unless merged.
        JobGraph diamond =
                JobGraph.builder()
                        .addVertex("A", 2)
                        .addVertex("B", 2)
                        .addVertex("C", 2)
                        .connect("A", "B", POINTWISE, PIPELINED)
                        .connect("B", "C", POINTWISE, PIPELINED)
                        .connect("A", "C", ALL_TO_ALL, BLOCKING)
                        .build();

        PipelinedRegions regions = regionsOf(diamond);
        // The same without Flink's all-to-all shortcut: the cycle pass alone merges the two.
        PipelinedRegions byCycles = new RegionBuilder(ExecutionTopology.of(diamond), false).build();

        assertThat(described(regions)).containsExactly("[A#0, A#1, B#0, B#1, C#0, C#1]");
        assertThat(byCycles.checkInvariants()).isTrue();
        assertThat(described(byCycles)).containsExactly("[A#0, A#1, B#0, B#1, C#0, C#1]");
        assertThat(RegionOracle.regions(regions)).isEqualTo(RegionOracle.regions(diamond));
    }

    @Test
    void blockingAllToAll_givesOneRegionPerTask_inTopologicalOrder() {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 3)
                        .addVertex("sink", 2)
                        .connect("source", "sink", ALL_TO_ALL, BLOCKING)
                        .build();

        PipelinedRegions regions = regionsOf(graph);

        assertThat(described(regions))
                .containsExactly("[source#0]", "[source#1]", "[source#2]", "[sink#0]", "[sink#1]");
        assertThat(regions.regionOf(graph.task(graph.vertexId("sink"), 1))).isEqualTo(4);
    }

    @Test
    void pipelinedAllToAll_isOneRegion() {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 3)
                        .addVertex("sink", 2)
                        .connect("source", "sink", ALL_TO_ALL, PIPELINED)
                        .build();

        assertThat(described(regionsOf(graph)))
                .containsExactly("[source#0, source#1, source#2, sink#0, sink#1]");
    }

    @Test
    void pointwiseChainWithUnequalParallelism_isSplitAtTaskLevel() {
        // 4 -> 2 fans in, 2 -> 4 fans out again: {a0,a1,b0,c0,c1} and {a2,a3,b1,c2,c3}.
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 4)
                        .addVertex("b", 2)
                        .addVertex("c", 4)
                        .connect("a", "b", POINTWISE, PIPELINED)
                        .connect("b", "c", POINTWISE, PIPELINED)
                        .build();

        assertThat(described(regionsOf(graph)))
                .containsExactly("[a#0, a#1, b#0, c#0, c#1]", "[a#2, a#3, b#1, c#2, c#3]");
    }

    @Test
    void pointwiseBlockThatRepeats_storesOnePeriod_andNumbersRegionsPeriodAfterPeriod() {
        // 8 -> 6 (gcd 2): periods of c#0..3 and d#0..2; in each, d0 <- c0, d1 <- c1, d2 <- c2, c3.
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("c", 8)
                        .addVertex("d", 6)
                        .connect("c", "d", POINTWISE, PIPELINED)
                        .build();

        PipelinedRegions regions = regionsOf(graph);

        assertThat(described(regions))
                .containsExactly(
                        "[c#0, d#0]",
                        "[c#1, d#1]",
                        "[c#2, c#3, d#2]",
                        "[c#4, d#3]",
                        "[c#5, d#4]",
                        "[c#6, c#7, d#5]");
        assertThat(regions.periodTasks(0)).as("c's table: one period").isEqualTo(4);
        assertThat(regions.periodTasks(1)).as("d's table: one period").isEqualTo(3);
        assertThat(regions.numTasks(5)).isEqualTo(3);
    }

    @Test
    void pointwiseBlockOfCoprimeParallelism_isOnePeriod() {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 5)
                        .addVertex("b", 3)
                        .connect("a", "b", POINTWISE, PIPELINED)
                        .build();

        PipelinedRegions regions = regionsOf(graph);

        assertThat(regions.periodTasks(0)).isEqualTo(5);
        assertThat(RegionOracle.regions(regions)).isEqualTo(RegionOracle.regions(graph));
    }

    @Test
    void pointwiseChainAtAMillion_keepsTablesOfAFewTasks() {
        int p = 1_000_000;
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", p)
                        .addVertex("b", p / 2)
                        .addVertex("c", p)
                        .addVertex("d", 3 * p / 4)
                        .connect("a", "b", POINTWISE, PIPELINED)
                        .connect("b", "c", POINTWISE, BLOCKING)
                        .connect("c", "d", POINTWISE, PIPELINED)
                        .build();

        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));

        assertThat(regions.periodTasks(0) + regions.periodTasks(1)).isEqualTo(3);
        assertThat(regions.periodTasks(2) + regions.periodTasks(3)).isEqualTo(7);
        assertThat(regions.numRegions()).isEqualTo(p / 2 + 3 * p / 4);
        int lastC = graph.firstTask(2) + p - 1;
        int lastD = graph.firstTask(3) + 3 * p / 4 - 1;
        assertThat(regions.regionOf(lastC)).isEqualTo(regions.regionOf(lastD));
        assertThat(regions.regionOf(lastC - 1)).isEqualTo(regions.regionOf(lastD));
        assertThat(regions.regionOf(lastC - 2)).isNotEqualTo(regions.regionOf(lastD));
    }

    @Test
    void hybridEdges_separateRegions_likeBlockingOnes() {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 2)
                        .addVertex("b", 2)
                        .connect("a", "b", POINTWISE, HYBRID_FULL)
                        .build();

        assertThat(described(regionsOf(graph))).containsExactly("[a#0]", "[a#1]", "[b#0]", "[b#1]");
    }

    @Test
    void blockingCycleAcrossTwoLogicalRegions_isMerged() {
        // a->d and b->c are pipelined (two logical regions); a->b and c->d are blocking, so
        // {a,d} waits for c and {b,c} waits for a: a cycle Flink would not merge.
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 1)
                        .addVertex("b", 1)
                        .addVertex("c", 1)
                        .addVertex("d", 1)
                        .connect("a", "d", POINTWISE, PIPELINED)
                        .connect("b", "c", POINTWISE, PIPELINED)
                        .connect("a", "b", POINTWISE, BLOCKING)
                        .connect("c", "d", POINTWISE, BLOCKING)
                        .build();

        assertThat(described(regionsOf(graph))).containsExactly("[a#0, b#0, c#0, d#0]");
    }

    @Test
    void regionsAreRenumbered_whenBlockOrderIsNotTopological() {
        // Logical region {x, z} comes first by vertex id but consumes y's blocking output, and
        // y consumes x's: merged. Here instead z consumes y and y is alone: y must rank first.
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("x", 1)
                        .addVertex("y", 1)
                        .addVertex("z", 1)
                        .connect("x", "z", POINTWISE, PIPELINED)
                        .connect("y", "z", POINTWISE, BLOCKING)
                        .build();

        PipelinedRegions regions = regionsOf(graph);

        assertThat(described(regions)).containsExactly("[y#0]", "[x#0, z#0]");
    }

    @Test
    void queries_rejectIdsOutOfRange_namingTheArgument() {
        PipelinedRegions regions =
                regionsOf(
                        JobGraph.builder()
                                .addVertex("a", 2)
                                .addVertex("b", 2)
                                .connect("a", "b", POINTWISE, BLOCKING)
                                .build());

        assertThatThrownBy(() -> regions.regionOf(4))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("element (4) must be less than size (4)");
        assertThatThrownBy(() -> regions.regionOf(0, 2))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("subtask (2) must be less than size (2)");
        assertThatThrownBy(() -> regions.numTasks(-1))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("region (-1) must not be negative");
        assertThatThrownBy(() -> regions.newTaskRangeCursor().reset(4))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("region (4) must be less than size (4)");
    }
}
