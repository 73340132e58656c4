package io.railyard.benchmarks.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.inspect.FlinkPlan;
import io.railyard.failover.PartitionAvailability;
import io.railyard.failover.RegionFailover;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.topology.JobGraph;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.flink.api.common.ApplicationID;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
import org.apache.flink.runtime.executiongraph.ExecutionVertex;
import org.apache.flink.runtime.executiongraph.TestingDefaultExecutionGraphBuilder;
import org.apache.flink.runtime.executiongraph.failover.RestartPipelinedRegionFailoverStrategy;
import org.apache.flink.runtime.instance.SlotSharingGroupId;
import org.apache.flink.runtime.jobgraph.JobType;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobgraph.jsonplan.JsonPlanGenerator;
import org.apache.flink.runtime.rest.messages.JobPlanInfo;
import org.apache.flink.runtime.rest.messages.job.JobDetailsInfo;
import org.apache.flink.runtime.rest.messages.job.metrics.IOMetricsInfo;
import org.apache.flink.runtime.rest.util.RestMapperUtils;
import org.apache.flink.runtime.scheduler.strategy.ExecutionVertexID;
import org.apache.flink.runtime.scheduler.strategy.SchedulingExecutionVertex;
import org.apache.flink.runtime.scheduler.strategy.SchedulingPipelinedRegion;
import org.apache.flink.runtime.scheduler.strategy.SchedulingTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Plans Flink generates itself, read by Railyard's plan reader (issue 33): for each of six real
 * DataStream programs — a word count (blocking and hybrid), a two-input keyed join, forward and
 * rescale edges, an adaptive-batch job whose parallelism Flink leaves undecided, and a streaming
 * job — Flink 2.x builds the job graph and {@code JsonPlanGenerator} its plan, as the REST API
 * serves it at {@code /jobs/:jobid/plan}. The plan must be the checked-in golden file in {@code
 * plans/} (regenerate with {@code -Drailyard.golden.write=true} when Flink's output changes), and
 * the job graph read from that file must have Flink's pipelined regions and, for every task,
 * Flink's restart set — Flink computing them on its own job graph.
 */
class FlinkPlanGoldenTest {
    private static final Path GOLDEN =
            Path.of("src/test/resources/io/railyard/benchmarks/flink/plans");
    private static ScheduledExecutorService executor;

    @BeforeAll
    static void startExecutor() {
        executor = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterAll
    static void stopExecutor() {
        executor.shutdownNow();
    }

    /** A program, its execution settings and the parallelisms the reader must be given. */
    record Program(
            String name,
            RuntimeExecutionMode mode,
            BatchShuffleMode shuffle,
            int defaultParallelism,
            Map<String, Integer> vertexParallelism,
            Consumer<StreamExecutionEnvironment> body) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Program> programs() {
        return Stream.of(
                new Program(
                        "word-count",
                        RuntimeExecutionMode.BATCH,
                        BatchShuffleMode.ALL_EXCHANGES_BLOCKING,
                        2,
                        Map.of(),
                        FlinkPlanGoldenTest::wordCount),
                new Program(
                        "word-count-hybrid-full",
                        RuntimeExecutionMode.BATCH,
                        BatchShuffleMode.ALL_EXCHANGES_HYBRID_FULL,
                        2,
                        Map.of(),
                        FlinkPlanGoldenTest::wordCount),
                new Program(
                        "two-input-join",
                        RuntimeExecutionMode.BATCH,
                        BatchShuffleMode.ALL_EXCHANGES_BLOCKING,
                        2,
                        Map.of(),
                        FlinkPlanGoldenTest::twoInputJoin),
                new Program(
                        "forward-and-rescale",
                        RuntimeExecutionMode.BATCH,
                        BatchShuffleMode.ALL_EXCHANGES_BLOCKING,
                        4,
                        Map.of(),
                        FlinkPlanGoldenTest::forwardAndRescale),
                new Program(
                        "adaptive-undecided",
                        RuntimeExecutionMode.BATCH,
                        BatchShuffleMode.ALL_EXCHANGES_BLOCKING,
                        -1,
                        Map.of("Keyed Reduce -> Sink: Writer", 5),
                        FlinkPlanGoldenTest::adaptive),
                new Program(
                        "streaming-word-count",
                        RuntimeExecutionMode.STREAMING,
                        BatchShuffleMode.ALL_EXCHANGES_BLOCKING,
                        2,
                        Map.of(),
                        FlinkPlanGoldenTest::wordCount));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("programs")
    void flinksOwnPlan_readsIntoFlinksRegionsAndRestartSets(Program program) throws Exception {
        org.apache.flink.runtime.jobgraph.JobGraph flink = jobGraph(program);
        String plan = planJson(flink);
        byte[] golden = golden(program.name(), plan);
        assertThat(new String(golden, StandardCharsets.UTF_8))
                .as("the plan Flink generates now is the golden file (regenerate on purpose)")
                .isEqualTo(plan);

        FlinkPlan.Result read = FlinkPlan.parse(golden, program.vertexParallelism());
        assertThat(read.warnings()).isEmpty();
        checkAgainstFlink(flink, read);
    }

    /**
     * The {@code /jobs/:jobid} document of the adaptive job, as Flink's REST API serializes it
     * ({@code JobDetailsInfo}): its vertices carry the max parallelism the adaptive batch scheduler
     * may go up to (Flink's default, 128, where the job graph leaves it unset), which the reader
     * takes for the undecided vertices, with a warning each.
     */
    @Test
    void aJobDetailsDocument_givesUndecidedVerticesTheirMaxParallelism() throws Exception {
        Program program =
                programs()
                        .filter(p -> p.name().equals("adaptive-undecided"))
                        .findFirst()
                        .orElseThrow();
        org.apache.flink.runtime.jobgraph.JobGraph flink = jobGraph(program);
        List<JobDetailsInfo.JobVertexDetailsInfo> vertices = new ArrayList<>();
        for (JobVertex vertex : flinkVertices(flink)) {
            vertices.add(
                    new JobDetailsInfo.JobVertexDetailsInfo(
                            vertex.getID(),
                            new SlotSharingGroupId(0, vertices.size()), // random in Flink
                            vertex.getName(),
                            vertex.getMaxParallelism() > 0 ? vertex.getMaxParallelism() : 128,
                            vertex.getParallelism(),
                            ExecutionState.CREATED,
                            -1,
                            -1,
                            -1,
                            Map.of(),
                            new IOMetricsInfo(0, true, 0, true, 0, true, 0, true, 0, 0, 0)));
        }
        JobDetailsInfo details =
                new JobDetailsInfo(
                        flink.getJobID(),
                        new ApplicationID(0, 0),
                        flink.getName(),
                        false,
                        JobStatus.CREATED,
                        JobType.BATCH,
                        JobManagerOptions.SchedulerType.AdaptiveBatch,
                        0,
                        -1,
                        0,
                        128,
                        0,
                        Map.of(),
                        vertices,
                        Map.of(),
                        JsonPlanGenerator.generatePlan(flink),
                        new JobPlanInfo.RawJson("{}"),
                        0);
        String json =
                RestMapperUtils.getStrictObjectMapper()
                                .writerWithDefaultPrettyPrinter()
                                .writeValueAsString(details)
                        + "\n";
        byte[] golden = golden("adaptive-undecided-job-details", json);
        assertThat(new String(golden, StandardCharsets.UTF_8)).isEqualTo(json);

        FlinkPlan.Result read = FlinkPlan.parse(golden, Map.of());

        assertThat(read.warnings())
                .containsExactly(
                        "vertex 'Keyed Reduce -> Sink: Writer': parallelism decided at run time (-1"
                                + " in the plan); using its maxParallelism 128 — give"
                                + " --vertex-parallelism 'Keyed Reduce -> Sink: Writer=P' for"
                                + " another");
        checkAgainstFlink(flink, read);
    }

    /**
     * Checks the graph read from Flink's plan against Flink's own job graph: the same vertices and
     * parallelisms (an undecided Flink vertex takes the one read), Flink's pipelined regions, and
     * for every task Flink's restart set, every partition available.
     */
    private static void checkAgainstFlink(
            org.apache.flink.runtime.jobgraph.JobGraph flink, FlinkPlan.Result read)
            throws Exception {
        JobGraph graph = read.graph();
        Map<String, Integer> vertexOfId = new HashMap<>();
        for (int v = 0; v < read.vertexIds().size(); v++) {
            vertexOfId.put(read.vertexIds().get(v), v);
        }
        assertThat(vertexOfId.keySet())
                .containsExactlyInAnyOrderElementsOf(
                        flinkVertices(flink).stream().map(x -> x.getID().toString()).toList());
        Map<Integer, JobVertex> flinkOfVertex = new HashMap<>();
        for (JobVertex vertex : flinkVertices(flink)) {
            int v = vertexOfId.get(vertex.getID().toString());
            flinkOfVertex.put(v, vertex);
            if (vertex.getParallelism() <= 0) { // undecided: what the reader was told
                vertex.setParallelism(graph.parallelism(v));
            }
            assertThat(graph.parallelism(v)).isEqualTo(vertex.getParallelism());
        }

        DefaultExecutionGraph executionGraph =
                TestingDefaultExecutionGraphBuilder.newBuilder()
                        .setJobGraph(flink)
                        .setUserClassLoader(FlinkPlanGoldenTest.class.getClassLoader())
                        .build(executor);
        for (ExecutionVertex vertex : executionGraph.getAllExecutionVertices()) {
            vertex.getCurrentExecutionAttempt().transitionState(ExecutionState.RUNNING);
        }
        SchedulingTopology topology = executionGraph.getSchedulingTopology();
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));

        assertThat(railyardRegions(graph, regions))
                .as("Railyard's regions of the plan (actual) and Flink's of its job graph")
                .isEqualTo(flinkRegions(topology, vertexOfId, graph));
        RegionFailover failover =
                new RegionFailover(RegionInputs.of(regions), PartitionAvailability.all());
        RestartPipelinedRegionFailoverStrategy flinkFailover =
                new RestartPipelinedRegionFailoverStrategy(topology, partition -> true);
        for (int task = 0; task < graph.numTasks(); task++) {
            Set<Integer> railyard = new TreeSet<>();
            for (int t : failover.tasksToRestart(task).toTaskArray()) {
                railyard.add(t);
            }
            JobVertex vertex = flinkOfVertex.get(graph.vertexOfTask(task));
            Set<Integer> flinks = new TreeSet<>();
            for (ExecutionVertexID id :
                    flinkFailover.getTasksNeedingRestart(
                            new ExecutionVertexID(vertex.getID(), graph.subtaskIndex(task)),
                            new Exception("test"))) {
                flinks.add(task(id, vertexOfId, graph));
            }
            assertThat(railyard)
                    .as("tasks to restart when %s fails (actual: Railyard)", graph.taskName(task))
                    .isEqualTo(flinks);
        }
    }

    // ---- the programs ----

    private static void wordCount(StreamExecutionEnvironment env) {
        env.fromSequence(0, 999)
                .setParallelism(2)
                .flatMap(new Words())
                .setParallelism(2)
                .keyBy(new ByWord())
                .reduce(new Sum())
                .setParallelism(3)
                .rebalance()
                .sinkTo(new DiscardingSink<>())
                .setParallelism(2);
    }

    private static void twoInputJoin(StreamExecutionEnvironment env) {
        DataStream<String> left =
                env.fromSequence(0, 99)
                        .setParallelism(2)
                        .map(new Prefix<Long>("l"))
                        .setParallelism(3);
        DataStream<String> right =
                env.fromSequence(0, 99)
                        .setParallelism(2)
                        .map(new Prefix<Long>("r"))
                        .setParallelism(2);
        left.connect(right)
                .keyBy(new ByWord(), new ByWord())
                .process(new Join())
                .setParallelism(4)
                .sinkTo(new DiscardingSink<>())
                .setParallelism(4);
    }

    private static void forwardAndRescale(StreamExecutionEnvironment env) {
        env.fromSequence(0, 99)
                .setParallelism(4)
                .map(new Prefix<Long>("a"))
                .setParallelism(4)
                .disableChaining()
                .rescale()
                .map(new Prefix<String>("b"))
                .setParallelism(2)
                .forward()
                .map(new Prefix<String>("c"))
                .setParallelism(2)
                .disableChaining()
                .sinkTo(new DiscardingSink<>())
                .setParallelism(2);
    }

    private static void adaptive(StreamExecutionEnvironment env) {
        env.fromSequence(0, 999)
                .setParallelism(2)
                .flatMap(new Words())
                .setParallelism(2)
                .keyBy(new ByWord())
                .reduce(new Sum())
                .sinkTo(new DiscardingSink<>());
    }

    // ---- Flink's side ----

    private static org.apache.flink.runtime.jobgraph.JobGraph jobGraph(Program program) {
        Configuration config = new Configuration();
        config.set(ExecutionOptions.RUNTIME_MODE, program.mode());
        config.set(ExecutionOptions.BATCH_SHUFFLE_MODE, program.shuffle());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(program.defaultParallelism());
        program.body().accept(env);
        return env.getStreamGraph()
                .getJobGraph(FlinkPlanGoldenTest.class.getClassLoader(), new JobID(0, 33));
    }

    /** The plan as {@code /jobs/:jobid/plan} serves it: {@code {"plan": …}}, pretty-printed. */
    private static String planJson(org.apache.flink.runtime.jobgraph.JobGraph flink)
            throws IOException {
        JobPlanInfo.Plan plan = JsonPlanGenerator.generatePlan(flink);
        return RestMapperUtils.getStrictObjectMapper()
                        .writerWithDefaultPrettyPrinter()
                        .writeValueAsString(new JobPlanInfo(plan))
                + "\n";
    }

    private static byte[] golden(String name, String generated) throws IOException {
        Path file = GOLDEN.resolve(name + ".json");
        if (Boolean.getBoolean("railyard.golden.write")) {
            Files.createDirectories(GOLDEN);
            Files.writeString(file, generated);
        }
        assertThat(file).as("golden plan (write it with -Drailyard.golden.write=true)").exists();
        return Files.readAllBytes(file);
    }

    private static List<JobVertex> flinkVertices(org.apache.flink.runtime.jobgraph.JobGraph flink) {
        List<JobVertex> vertices = new ArrayList<>();
        flink.getVertices().forEach(vertices::add);
        return vertices;
    }

    private static int task(ExecutionVertexID id, Map<String, Integer> vertexOfId, JobGraph graph) {
        return graph.task(vertexOfId.get(id.getJobVertexId().toString()), id.getSubtaskIndex());
    }

    private static Set<Set<Integer>> flinkRegions(
            SchedulingTopology topology, Map<String, Integer> vertexOfId, JobGraph graph) {
        Set<Set<Integer>> regions = new HashSet<>();
        for (SchedulingPipelinedRegion region : topology.getAllPipelinedRegions()) {
            Set<Integer> tasks = new TreeSet<>();
            for (SchedulingExecutionVertex vertex : region.getVertices()) {
                tasks.add(task(vertex.getId(), vertexOfId, graph));
            }
            regions.add(tasks);
        }
        return regions;
    }

    private static Set<Set<Integer>> railyardRegions(JobGraph graph, PipelinedRegions regions) {
        List<Set<Integer>> byRegion = new ArrayList<>();
        for (int r = 0; r < regions.numRegions(); r++) {
            byRegion.add(new TreeSet<>());
        }
        for (int task = 0; task < graph.numTasks(); task++) {
            byRegion.get(regions.regionOf(task)).add(task);
        }
        return new HashSet<>(byRegion);
    }

    // ---- the programs' functions (serializable classes: Flink checks lambdas' types) ----

    static final class Words implements FlatMapFunction<Long, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void flatMap(Long value, Collector<String> out) {
            out.collect("w" + (value % 17));
            out.collect("w" + (value % 5));
        }
    }

    /** Each record as text after a prefix; any record type. */
    static final class Prefix<T> implements MapFunction<T, String> {
        private static final long serialVersionUID = 1L;
        private final String prefix;

        Prefix(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public String map(T value) {
            return prefix + value;
        }
    }

    static final class ByWord implements KeySelector<String, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(String value) {
            return value;
        }
    }

    static final class Sum implements ReduceFunction<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String reduce(String a, String b) {
            return a.length() >= b.length() ? a : b;
        }
    }

    static final class Join extends KeyedCoProcessFunction<String, String, String, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void processElement1(String value, Context ctx, Collector<String> out) {
            out.collect(value);
        }

        @Override
        public void processElement2(String value, Context ctx, Collector<String> out) {
            out.collect(value);
        }
    }
}
