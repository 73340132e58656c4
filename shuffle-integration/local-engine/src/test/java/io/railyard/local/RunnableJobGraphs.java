package io.railyard.local;

import io.railyard.regions.RegionOracle;
import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.JobGraphBuilder;
import io.railyard.topology.RandomJobGraphs;
import io.railyard.topology.ResultPartitionType;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

/**
 * Seeded random job graphs that the {@link LocalEngine} runs, by construction: {@link
 * RandomJobGraphs}' graphs (every pattern and partition type, datasets read by several consumer
 * vertices), repaired where {@link LocalEngine#checkRunnable} would refuse them, so that a property
 * test draws a graph for every seed instead of skipping most of them.
 *
 * <p>The repair keeps every vertex, parallelism, type and edge; it only splits datasets: a consumer
 * edge that cannot share its dataset's partitions with the dataset's first consumer edge (the type
 * cannot be read twice, or the consumer's parallelism differs) reads a dataset of its own from the
 * same producer, of the same type; one that can, but reads with another pattern, takes the first
 * edge's pattern (so shared datasets stay). Redrawing until a graph happens to be runnable would
 * keep mostly the small graphs, where few edges leave few chances to break the rule.
 */
final class RunnableJobGraphs {
    private RunnableJobGraphs() {}

    /**
     * A runnable graph of {@code shape} with at least one edge, the same for the same seed: {@link
     * RandomJobGraphs}' graph of a seed drawn from {@code seed} (the next one while a graph has no
     * edge), {@link #repaired}.
     */
    static JobGraph draw(long seed, RandomJobGraphs.Shape shape) {
        SplittableRandom seeds = new SplittableRandom(seed);
        for (int draw = 0; draw < 1_000; draw++) {
            JobGraph graph = RandomJobGraphs.generate(seeds.nextLong(), shape);
            if (graph.numEdges() > 0) {
                JobGraph repaired = repaired(graph);
                LocalEngine.checkRunnable(repaired);
                return repaired;
            }
        }
        throw new AssertionError("1,000 graphs of " + shape + " without an edge");
    }

    /** {@code graph} with its unshareable datasets split (see the class notes). */
    static JobGraph repaired(JobGraph graph) {
        return repaired(graph, false);
    }

    /** {@code graph} with its unshareable datasets split, or every shared one if {@code all}. */
    private static JobGraph repaired(JobGraph graph, boolean all) {
        List<String> dataSetOfEdge = new ArrayList<>();
        List<DistributionPattern> patternOfEdge = new ArrayList<>();
        List<String[]> extraDataSets = new ArrayList<>(); // {its name, the dataset it splits}
        for (int e = 0; e < graph.numEdges(); e++) {
            int d = graph.edgeDataSet(e);
            int first = graph.consumerEdge(d, 0);
            boolean shares =
                    !all
                            && graph.resultType(d).isReconsumable()
                            && graph.parallelism(graph.edgeConsumer(e))
                                    == graph.parallelism(graph.edgeConsumer(first));
            if (e == first || shares) {
                dataSetOfEdge.add(graph.dataSetName(d));
                patternOfEdge.add(graph.edgePattern(first));
            } else {
                String own =
                        graph.dataSetName(d) + "-for-" + graph.vertexName(graph.edgeConsumer(e));
                extraDataSets.add(new String[] {own, graph.dataSetName(d)});
                dataSetOfEdge.add(own);
                patternOfEdge.add(graph.edgePattern(e));
            }
        }
        JobGraphBuilder builder = vertices(graph);
        for (int d = 0; d < graph.numDataSets(); d++) {
            builder.addDataSet(
                    graph.dataSetName(d), graph.vertexName(graph.producer(d)), graph.resultType(d));
        }
        for (String[] extra : extraDataSets) {
            int of = graph.dataSetId(extra[1]);
            builder.addDataSet(
                    extra[0], graph.vertexName(graph.producer(of)), graph.resultType(of));
        }
        for (int e = 0; e < graph.numEdges(); e++) {
            builder.addEdge(
                    dataSetOfEdge.get(e),
                    graph.vertexName(graph.edgeConsumer(e)),
                    patternOfEdge.get(e));
        }
        return builder.build();
    }

    /**
     * {@code graph} if it has an edge {@link #blockingEdgesAcrossRegions} accepts; otherwise the
     * graph with the first dataset, in an order drawn from {@code random}, whose becoming BLOCKING
     * makes such an edge, BLOCKING; or, if none does, with every dataset BLOCKING and read through
     * one edge (every task is then a region of its own).
     *
     * @throws IllegalArgumentException if {@code graph} has no edge
     */
    static JobGraph withBlockingEdgeAcrossRegions(JobGraph graph, SplittableRandom random) {
        if (graph.numEdges() == 0) {
            throw new IllegalArgumentException(
                    "a graph without edges has no edge to make BLOCKING");
        }
        if (blockingEdgesAcrossRegions(graph).length > 0) {
            return graph;
        }
        int[] order = IntStream.range(0, graph.numDataSets()).toArray();
        for (int i = order.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        for (int d : order) {
            JobGraph changed =
                    withTypes(
                            graph,
                            k -> k == d ? ResultPartitionType.BLOCKING : graph.resultType(k));
            if (blockingEdgesAcrossRegions(changed).length > 0) {
                return changed;
            }
        }
        return repaired(withTypes(graph, k -> ResultPartitionType.BLOCKING), true);
    }

    /**
     * The BLOCKING edges, each its dataset's only consumer edge, whose producer subtask 0 and
     * consumer subtask 0 lie in different regions (as the independent {@link RegionOracle} computes
     * them): consumer subtask 0 reads producer subtask 0's partition whatever the pattern, and is
     * deployed only once it is finished — so that partition's file exists then, and nobody has read
     * it yet. (A reader of another consumer vertex may have opened the file already: deleting an
     * open file loses nothing.)
     */
    static int[] blockingEdgesAcrossRegions(JobGraph graph) {
        int[] region = RegionOracle.regionOfTask(graph);
        return IntStream.range(0, graph.numEdges())
                .filter(e -> graph.edgeResultType(e) == ResultPartitionType.BLOCKING)
                .filter(e -> graph.numConsumerEdges(graph.edgeDataSet(e)) == 1)
                .filter(
                        e ->
                                region[graph.task(graph.edgeProducer(e), 0)]
                                        != region[graph.task(graph.edgeConsumer(e), 0)])
                .toArray();
    }

    /** The size of {@code graph}'s largest region (the independent {@link RegionOracle}'s). */
    static int largestRegion(JobGraph graph) {
        int[] size = new int[graph.numTasks()];
        int largest = 0;
        for (int r : RegionOracle.regionOfTask(graph)) {
            largest = Math.max(largest, ++size[r]);
        }
        return largest;
    }

    /** {@code graph} with dataset {@code d} of type {@code type.apply(d)}, all else the same. */
    private static JobGraph withTypes(JobGraph graph, IntFunction<ResultPartitionType> type) {
        JobGraphBuilder builder = vertices(graph);
        for (int d = 0; d < graph.numDataSets(); d++) {
            builder.addDataSet(
                    graph.dataSetName(d), graph.vertexName(graph.producer(d)), type.apply(d));
        }
        for (int e = 0; e < graph.numEdges(); e++) {
            builder.addEdge(
                    graph.dataSetName(graph.edgeDataSet(e)),
                    graph.vertexName(graph.edgeConsumer(e)),
                    graph.edgePattern(e));
        }
        return builder.build();
    }

    /** A builder holding {@code graph}'s vertices, with their parallelism and max parallelism. */
    private static JobGraphBuilder vertices(JobGraph graph) {
        JobGraphBuilder builder = JobGraph.builder();
        for (int v = 0; v < graph.numJobVertices(); v++) {
            int parallelism = graph.parallelism(v);
            if (graph.maxParallelism(v).isPresent()) {
                builder.addVertex(
                        graph.vertexName(v), parallelism, graph.maxParallelism(v).getAsInt());
            } else {
                builder.addVertex(graph.vertexName(v), parallelism);
            }
        }
        return builder;
    }
}
