package io.railyard.benchmarks.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.DeployProcedures;
import io.railyard.benchmarks.procedures.FailoverProcedures;
import io.railyard.benchmarks.procedures.FailoverProcedures.Failure;
import io.railyard.benchmarks.procedures.IdleJobMaster;
import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.benchmarks.procedures.RegionProcedures;
import io.railyard.deployment.OffloadOptions;
import io.railyard.groups.ExecutionTopology;
import io.railyard.jobmaster.JobMaster;
import io.railyard.regions.PipelinedRegions;
import io.railyard.topology.JobGraph;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
import org.apache.flink.runtime.executiongraph.ExecutionVertex;
import org.apache.flink.runtime.scheduler.adapter.DefaultExecutionTopology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * CI twins of the side-by-side benchmarks' Flink side: each procedure of {@link FlinkProcedures}
 * and {@link FlinkDeployment} at P = 100 on every shape it is measured on, its answer checked
 * against Railyard's procedure on the same job (same regions, same restart set, same number of
 * regions scheduled, partitions released and descriptors shipped), so that a ratio of the two
 * benchmarks compares the same work.
 */
class FlinkProceduresTest {
    private static final int P = 100;

    private static ScheduledExecutorService executor;

    @BeforeAll
    static void startExecutor() {
        executor = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterAll
    static void stopExecutor() {
        executor.shutdownNow();
    }

    private static PipelinedRegions railyardRegions(JobGraph graph) {
        return RegionProcedures.buildRegions(ExecutionTopology.of(graph));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void initialize_givesEveryTaskAndRailyardsRegions_deployingNothing(Shape shape)
            throws Exception {
        JobGraph graph = shape.job(P);

        FlinkProcedures.InitializedGraph flink =
                FlinkProcedures.initialize(FlinkJobs.translate(graph), executor);
        JobMaster railyard = IdleJobMaster.of(graph);

        int flinkTasks = 0;
        for (ExecutionVertex ignored : flink.graph().getAllExecutionVertices()) {
            flinkTasks++;
        }
        assertThat(flinkTasks).isEqualTo(graph.numTasks());
        assertThat(FlinkProcedures.numRegions(flink.graph().getSchedulingTopology()))
                .isEqualTo(railyard.scheduler().regions().numRegions());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void buildRegions_equalsRailyardsRegions(Shape shape) throws Exception {
        JobGraph graph = shape.job(P);
        FlinkJobs.Translation job = FlinkJobs.translate(graph);
        DefaultExecutionGraph executionGraph = FlinkJobs.executionGraph(job, executor);

        DefaultExecutionTopology flink = FlinkProcedures.buildRegions(executionGraph);

        assertThat(FlinkJobs.regions(job, flink)).isEqualTo(regionSets(railyardRegions(graph)));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void initScheduling_deploysNothing(Shape shape) throws Exception {
        JobGraph graph = shape.job(P);
        DefaultExecutionGraph executionGraph =
                FlinkJobs.executionGraph(FlinkJobs.translate(graph), executor);
        FlinkProcedures.CountingOperations operations = new FlinkProcedures.CountingOperations();

        FlinkProcedures.initScheduling(executionGraph.getSchedulingTopology(), operations);

        assertThat(operations.deployedRegions()).isZero();
        assertThat(operations.deployedTasks()).isZero();
    }

    /** The expected counts are those of {@code RegionBenchmarksTest}. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"BLOCKING, 100", "PIPELINED, 0", "HYBRID_FULL, 0", "POINTWISE_CHAIN, 75"})
    void scheduleDownstream_deploysWhatRailyardDeploys(Shape shape, int expectedRegions)
            throws Exception {
        JobGraph graph = shape.job(P);
        FlinkProcedures.Downstream flink =
                new FlinkProcedures.Downstream(FlinkJobs.translate(graph), executor);
        RegionProcedures.Downstream railyard =
                new RegionProcedures.Downstream(railyardRegions(graph));

        assertThat(flink.finishLastSource())
                .isEqualTo(railyard.finishLastSource())
                .isEqualTo(expectedRegions);
    }

    /** The expected counts are those of {@code FailoverBenchmarksTest}. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "BLOCKING_SOURCE, 101",
        "BLOCKING_SINK, 1",
        "PIPELINED_ANY, 200",
        "HYBRID_FULL_SOURCE, 101",
        "POINTWISE_CHAIN_SOURCE, 6"
    })
    void tasksToRestart_restartsRailyardsTasks(Failure failure, int expectedTasks)
            throws Exception {
        JobGraph graph = failure.shape().job(P);
        FlinkJobs.Translation job = FlinkJobs.translate(graph);
        FlinkProcedures.Restart flink = new FlinkProcedures.Restart(job, executor, failure);
        FailoverProcedures.Restart railyard =
                new FailoverProcedures.Restart(railyardRegions(graph), failure);

        assertThat(flink.tasksToRestart()).isEqualTo(expectedTasks);
        assertThat(railyard.tasksToRestart()).isEqualTo(expectedTasks);
        Set<Integer> flinkTasks =
                flink.tasksNeedingRestart().stream()
                        .map(job::task)
                        .collect(Collectors.toCollection(TreeSet::new));
        assertThat(flinkTasks).containsExactlyElementsOf(toList(railyard.result().toTaskArray()));
        assertThat(flink.tasksToRestart()).isEqualTo(expectedTasks); // repeatable
    }

    /** The expected counts are those of {@code FailoverBenchmarksTest}. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"BLOCKING, 100", "HYBRID_FULL, 100", "POINTWISE_CHAIN, 50"})
    void partitionRelease_releasesWhatRailyardReleases(Shape shape, int expectedPartitions)
            throws Exception {
        JobGraph graph = shape.job(P);
        FlinkJobs.Translation job = FlinkJobs.translate(graph);
        DefaultExecutionGraph executionGraph = FlinkJobs.executionGraph(job, executor);

        FlinkProcedures.Release flink = new FlinkProcedures.Release(job, executionGraph);
        FailoverProcedures.Release railyard =
                new FailoverProcedures.Release(railyardRegions(graph));

        assertThat(flink.finishSinks())
                .isEqualTo(railyard.finishSinks())
                .isEqualTo(expectedPartitions);
        // A second state over the same graph starts afresh, as each benchmark iteration does.
        assertThat(new FlinkProcedures.Release(job, executionGraph).finishSinks())
                .isEqualTo(expectedPartitions);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = Shape.class,
            names = {"BLOCKING", "PIPELINED"})
    void deployAll_shipsEveryTask_offloadShrinksTheDescriptors(Shape shape) throws Exception {
        JobGraph graph = shape.job(P);
        FlinkJobs.Translation job = FlinkJobs.translate(graph);
        // 100 descriptors x 100 consumers reach this threshold, as in DeployBenchmarksTest.
        OffloadOptions offload = new OffloadOptions(true, 1_000, 1 << 20, true);

        long withOffload;
        long inline;
        try (FlinkDeployment flink = new FlinkDeployment(job, offload)) {
            withOffload = flink.deployAll();
            assertThat(flink.shippedDescriptors()).isEqualTo(graph.numTasks());
            assertThat(flink.offloadedBlobs()).isEqualTo(1); // the one all-to-all group
        }
        try (FlinkDeployment flink = new FlinkDeployment(job, OffloadOptions.NEVER)) {
            inline = flink.deployAll();
            assertThat(flink.shippedDescriptors()).isEqualTo(graph.numTasks());
            assertThat(flink.offloadedBlobs()).isZero();
        }

        assertThat(withOffload).isPositive().isLessThan(inline);
        assertThat(DeployProcedures.deployAll(ExecutionTopology.of(graph), offload))
                .isPositive()
                .isLessThan(
                        DeployProcedures.deployAll(
                                ExecutionTopology.of(graph), OffloadOptions.NEVER));
    }

    private static Set<Set<Integer>> regionSets(PipelinedRegions regions) {
        JobGraph graph = regions.topology().jobGraph();
        List<Set<Integer>> byId =
                IntStream.range(0, regions.numRegions())
                        .<Set<Integer>>mapToObj(r -> new TreeSet<>())
                        .toList();
        for (int task = 0; task < graph.numTasks(); task++) {
            byId.get(regions.regionOf(task)).add(task);
        }
        return new HashSet<>(byId);
    }

    private static List<Integer> toList(int[] tasks) {
        return Arrays.stream(tasks).boxed().toList();
    }
}
