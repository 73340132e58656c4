package io.railyard.topology;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Seeded random job graphs for property tests in every module (shipped in the test-jar).
 *
 * <p>Graphs mix every distribution pattern and result-partition type, reuse parallelisms so that
 * equal-parallelism pointwise edges are common, give some datasets several consumer vertices, and
 * add vertices to the builder in a shuffled order so that the topological renumbering is exercised.
 * The same seed always gives the same graph.
 */
public final class RandomJobGraphs {
    /** Up to 12 job vertices with parallelism up to 64, the default for property tests. */
    public static final Shape DEFAULT = new Shape(12, 64);

    /** Bounds of a random graph: at most {@code maxVertices} vertices of parallelism 1..maxP. */
    public record Shape(int maxVertices, int maxParallelism) {}

    private RandomJobGraphs() {}

    /** A random graph of the {@link #DEFAULT} shape. */
    public static JobGraph generate(long seed) {
        return generate(seed, DEFAULT);
    }

    /** A random graph of the given shape; the same seed and shape give the same graph. */
    public static JobGraph generate(long seed, Shape shape) {
        Random random = new Random(seed);
        int n = 1 + random.nextInt(shape.maxVertices());
        int[] parallelism = new int[n];
        for (int v = 0; v < n; v++) {
            boolean reuse = v > 0 && random.nextInt(3) == 0;
            parallelism[v] =
                    reuse
                            ? parallelism[random.nextInt(v)]
                            : 1 + random.nextInt(shape.maxParallelism());
        }
        JobGraphBuilder builder = JobGraph.builder();
        List<Integer> insertion = new ArrayList<>();
        for (int v = 0; v < n; v++) {
            insertion.add(v);
        }
        Collections.shuffle(insertion, random);
        for (int v : insertion) {
            builder.addVertex(name(v), parallelism[v]);
        }
        // Edges only go from a lower to a higher logical index, so the graph is acyclic.
        List<List<String>> dataSetsOf = new ArrayList<>();
        for (int v = 0; v < n; v++) {
            dataSetsOf.add(new ArrayList<>());
        }
        DistributionPattern[] patterns = DistributionPattern.values();
        ResultPartitionType[] types = ResultPartitionType.values();
        int dataSetCount = 0;
        for (int consumer = 1; consumer < n; consumer++) {
            int inputs = random.nextInt(4);
            List<Integer> producers = new ArrayList<>();
            for (int i = 0; i < inputs; i++) {
                int producer = random.nextInt(consumer);
                if (!producers.contains(producer)) {
                    producers.add(producer);
                }
            }
            for (int producer : producers) {
                DistributionPattern pattern = patterns[random.nextInt(patterns.length)];
                List<String> existing = dataSetsOf.get(producer);
                if (!existing.isEmpty() && random.nextInt(3) == 0) {
                    builder.addEdge(
                            existing.get(random.nextInt(existing.size())), name(consumer), pattern);
                } else {
                    String dataSet = "d" + dataSetCount++;
                    builder.addDataSet(
                            dataSet, name(producer), types[random.nextInt(types.length)]);
                    builder.addEdge(dataSet, name(consumer), pattern);
                    existing.add(dataSet);
                }
            }
        }
        return builder.build();
    }

    private static String name(int v) {
        return "v" + v;
    }
}
