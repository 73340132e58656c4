package io.railyard.benchmarks.cli;

import static io.railyard.benchmarks.cli.InspectCommandTest.inspect;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.failover.PartitionAvailability;
import io.railyard.failover.RegionFailover;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.topology.JobGraph;
import io.railyard.topology.RandomJobGraphs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code inspect} on seeded random job graphs, written to a file with one dataset per edge, against
 * an oracle computed on the original graph (whose datasets may have several consumers): the regions
 * grouped and sorted naively (a sorted set per region, regions in a map keyed by their smallest
 * task name), and the restart set from {@link RegionFailover} directly.
 */
class InspectPropertyTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    static LongStream seeds() {
        return LongStream.range(0, 200);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void inspect_randomGraph_equalsTheOracle(long seed) throws IOException {
        JobGraph graph = RandomJobGraphs.generate(seed);
        Random random = new Random(seed);
        int failed = random.nextInt(graph.numTasks());
        boolean all = random.nextBoolean();
        Path file = dir.resolve("job-" + seed + ".json");
        Files.writeString(file, JSON.writeValueAsString(asFile(graph)));

        String out =
                inspect(
                                "--job",
                                file.toString(),
                                "--fail",
                                graph.taskName(failed),
                                "--available",
                                all ? "all" : "none")
                        .json();

        JsonNode printed = JSON.readTree(out);
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));
        List<List<String>> printedRegions = new ArrayList<>();
        printed.get("regions").forEach(region -> printedRegions.add(strings(region)));
        assertThat(printedRegions)
                .as("regions, seed %d", seed)
                .isEqualTo(naiveRegions(graph, regions));
        assertThat(strings(printed.get("restart")))
                .as("restart of %s, seed %d", graph.taskName(failed), seed)
                .isEqualTo(restart(graph, regions, failed, all));
    }

    private static List<String> strings(JsonNode array) {
        List<String> strings = new ArrayList<>();
        array.forEach(element -> strings.add(element.textValue()));
        return strings;
    }

    /** The graph in the file format: every edge with its producer, pattern and result type. */
    private static ObjectNode asFile(JobGraph graph) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode vertices = root.putArray("vertices");
        for (int v = 0; v < graph.numJobVertices(); v++) {
            vertices.addObject()
                    .put("name", graph.vertexName(v))
                    .put("parallelism", graph.parallelism(v));
        }
        ArrayNode edges = root.putArray("edges");
        for (int e = 0; e < graph.numEdges(); e++) {
            edges.addObject()
                    .put("source", graph.vertexName(graph.edgeProducer(e)))
                    .put("target", graph.vertexName(graph.edgeConsumer(e)))
                    .put("pattern", graph.edgePattern(e).name())
                    .put("type", graph.edgeResultType(e).name());
        }
        return root;
    }

    private static List<List<String>> naiveRegions(JobGraph graph, PipelinedRegions regions) {
        List<TreeSet<String>> byRegion = new ArrayList<>();
        for (int r = 0; r < regions.numRegions(); r++) {
            byRegion.add(new TreeSet<>());
        }
        for (int task = 0; task < graph.numTasks(); task++) {
            byRegion.get(regions.regionOf(task)).add(graph.taskName(task));
        }
        TreeMap<String, List<String>> byFirst = new TreeMap<>();
        for (TreeSet<String> region : byRegion) {
            byFirst.put(region.first(), new ArrayList<>(region));
        }
        return new ArrayList<>(byFirst.values());
    }

    private static List<String> restart(
            JobGraph graph, PipelinedRegions regions, int failed, boolean all) {
        PartitionAvailability availability =
                all ? PartitionAvailability.all() : PartitionAvailability.none();
        TreeSet<String> names = new TreeSet<>();
        for (int task :
                new RegionFailover(RegionInputs.of(regions), availability)
                        .tasksToRestart(failed)
                        .toTaskArray()) {
            names.add(graph.taskName(task));
        }
        return new ArrayList<>(names);
    }
}
