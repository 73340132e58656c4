package io.railyard.benchmarks.flink;

import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static io.railyard.topology.ResultPartitionType.PIPELINED;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.topology.JobGraph;
import io.railyard.topology.NaiveConnections;
import io.railyard.topology.RandomJobGraphs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.LongStream;
import org.apache.flink.runtime.scheduler.strategy.PipelinedRegionSchedulingStrategy;
import org.apache.flink.runtime.scheduler.strategy.SchedulingTopology;
import org.jgrapht.Graph;
import org.jgrapht.alg.connectivity.KosarajuStrongConnectivityInspector;
import org.jgrapht.graph.DefaultDirectedGraph;
import org.jgrapht.graph.DefaultEdge;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Railyard's pipelined regions against the pipelined regions of flink-runtime 2.3's scheduling
 * topology, for random job graphs and for a blocking cycle across two logical regions.
 *
 * <p>The two differ on purpose in one case. Flink merges regions on cycles of non-pipelined
 * (blocking or hybrid) connections only inside one logical pipelined region: {@code
 * DefaultExecutionTopology} runs {@code SchedulingPipelinedRegionComputeUtil} once per logical
 * region, and that skips consumers outside it. Railyard merges such cycles across logical regions
 * too ({@link PipelinedRegions}). So the expected regions are Flink's regions <em>closed</em> under
 * that merge: the strongly connected components of Flink's regions, linked by their non-pipelined
 * task-level connections, each merged into one region. Where Flink's regions already form a DAG
 * (most seeds), that is exactly Flink's regions; the test counts both cases so that it cannot pass
 * on the merge alone.
 */
class RegionsFlinkParityTest {
    private static final int SEEDS = 200;

    /**
     * The share of seeds whose Flink regions must already form a DAG (equal without a merge); 161
     * of the 200 do with the generator of this writing.
     */
    private static final double MIN_EXACT_SHARE = 0.75;

    private static ScheduledExecutorService executor;
    private static int exactSeeds;
    private static int mergedSeeds;

    @BeforeAll
    static void startExecutor() {
        executor = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterAll
    static void stopExecutorAndCheckCoverage() {
        executor.shutdownNow();
        // Only a full run says anything about coverage (a single seed may be run alone).
        if (exactSeeds + mergedSeeds == SEEDS) {
            System.out.printf(
                    "RegionsFlinkParityTest: %s seeds equal to Flink, %s equal after merging"
                            + " cross-logical-region cycles%n",
                    exactSeeds, mergedSeeds);
            assertThat(exactSeeds)
                    .as(
                            "seeds where Railyard equals Flink without any merge (%s merged)",
                            mergedSeeds)
                    .isGreaterThanOrEqualTo((int) Math.ceil(MIN_EXACT_SHARE * SEEDS));
            assertThat(mergedSeeds).as("seeds with a cycle across logical regions").isPositive();
        }
    }

    static LongStream seeds() {
        return LongStream.range(0, SEEDS);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomGraph_regionsEqualFlinks_closedUnderCrossRegionCycles(long seed) throws Exception {
        JobGraph graph = RandomJobGraphs.generate(seed);
        Set<Set<Integer>> flink = flinkRegions(graph);
        Set<Set<Integer>> expected = mergeCycles(graph, flink);
        Set<Set<Integer>> railyard = railyardRegions(graph);

        assertThat(described(graph, railyard))
                .as(
                        "seed %s: Railyard's regions; Flink's are %s, expected %s",
                        seed, described(graph, flink), expected.equals(flink) ? "those" : "merged")
                .containsExactlyInAnyOrderElementsOf(described(graph, expected));
        if (expected.equals(flink)) {
            exactSeeds++;
        } else {
            mergedSeeds++;
        }
    }

    @Test
    void blockingCycleAcrossLogicalRegions_flinkKeepsTwoRegions_railyardMergesThem()
            throws Exception {
        // a->d and b->c are pipelined (two logical regions); a->b and c->d are blocking, so
        // {a,d} waits for c and {b,c} waits for a.
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

        FlinkJobs.Translation job = FlinkJobs.translate(graph);
        SchedulingTopology topology =
                FlinkJobs.executionGraph(job, executor).getSchedulingTopology();
        Set<Set<Integer>> flink = FlinkJobs.regions(job, topology);
        List<String> deployed = new ArrayList<>();
        new PipelinedRegionSchedulingStrategy(
                        ids -> ids.forEach(id -> deployed.add(graph.taskName(job.task(id)))),
                        topology)
                .startScheduling();

        // Flink keeps the two logical regions apart, and as each consumes a blocking result of
        // the other, neither is a source region: its scheduler deploys nothing at all.
        assertThat(described(graph, flink)).containsExactly("[a#0, d#0]", "[b#0, c#0]");
        assertThat(deployed).isEmpty();
        assertThat(described(graph, railyardRegions(graph)))
                .containsExactly("[a#0, b#0, c#0, d#0]")
                .isEqualTo(described(graph, mergeCycles(graph, flink)));
    }

    /** Flink's pipelined regions of {@code graph}, each the set of its Railyard task ids. */
    private static Set<Set<Integer>> flinkRegions(JobGraph graph) throws Exception {
        FlinkJobs.Translation job = FlinkJobs.translate(graph);
        return FlinkJobs.regions(
                job, FlinkJobs.executionGraph(job, executor).getSchedulingTopology());
    }

    /** Railyard's pipelined regions of {@code graph}, each the set of its task ids. */
    private static Set<Set<Integer>> railyardRegions(JobGraph graph) {
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));
        assertThat(regions.checkInvariants()).isTrue();
        List<Set<Integer>> byId = new ArrayList<>();
        for (int r = 0; r < regions.numRegions(); r++) {
            byId.add(new TreeSet<>());
        }
        for (int task = 0; task < graph.numTasks(); task++) {
            byId.get(regions.regionOf(task)).add(task);
        }
        return new HashSet<>(byId);
    }

    /**
     * {@code regions} closed under merging cycles: the strongly connected components of the graph
     * whose vertices are the regions and whose edges are the non-pipelined task-level connections
     * between them, each merged into one region. Also checks that every pipelined connection stays
     * inside one region, as it must in Flink's regions.
     */
    private static Set<Set<Integer>> mergeCycles(JobGraph graph, Set<Set<Integer>> regions) {
        List<Set<Integer>> list = new ArrayList<>(regions);
        Map<Integer, Integer> regionOfTask = new HashMap<>();
        Graph<Integer, DefaultEdge> quotient = new DefaultDirectedGraph<>(DefaultEdge.class);
        for (int r = 0; r < list.size(); r++) {
            quotient.addVertex(r);
            for (int task : list.get(r)) {
                regionOfTask.put(task, r);
            }
        }
        assertThat(regionOfTask).as("tasks covered by the regions").hasSize(graph.numTasks());
        NaiveConnections.forEach(
                graph,
                (edge, partition, consumer) -> {
                    int from = regionOfTask.get(NaiveConnections.producerTask(graph, partition));
                    int to = regionOfTask.get(consumer);
                    if (graph.edgeResultType(edge).mustBePipelinedConsumed()) {
                        assertThat(to)
                                .as(
                                        "region of a pipelined connection of %s",
                                        graph.describeEdge(edge))
                                .isEqualTo(from);
                    } else if (from != to) {
                        quotient.addEdge(from, to);
                    }
                });
        Set<Set<Integer>> merged = new HashSet<>();
        for (Set<Integer> component :
                new KosarajuStrongConnectivityInspector<>(quotient).stronglyConnectedSets()) {
            Set<Integer> region = new TreeSet<>();
            for (int r : component) {
                region.addAll(list.get(r));
            }
            merged.add(region);
        }
        return merged;
    }

    /** Each region as people read it, tasks ascending, e.g. {@code "[a#0, b#0]"}. */
    private static List<String> described(JobGraph graph, Set<Set<Integer>> regions) {
        List<String> out = new ArrayList<>();
        for (Set<Integer> region : regions) {
            List<String> names = new ArrayList<>();
            for (int task : new TreeSet<>(region)) {
                names.add(graph.taskName(task));
            }
            out.add(names.toString());
        }
        out.sort(null);
        return out;
    }
}
