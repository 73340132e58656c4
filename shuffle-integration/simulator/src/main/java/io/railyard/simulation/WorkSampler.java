package io.railyard.simulation;

import io.railyard.topology.JobGraph;
import java.util.SplittableRandom;

/**
 * Draws every task's work from its vertex's distribution and the failures of every attempt, both
 * from the run's seed alone: the same seed gives the same samples whatever the edge types, and an
 * attempt's failure does not depend on the order events happened in.
 */
final class WorkSampler {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private WorkSampler() {}

    /** Checks that {@code config} names only vertices of {@code graph}, with room for the skew. */
    static void check(JobGraph graph, SimulationConfig config) {
        for (String vertex : config.vertexWork().keySet()) {
            vertexOf(graph, vertex, "work");
        }
        for (Skew skew : config.skews()) {
            int v = vertexOf(graph, skew.vertex(), "skew");
            if (skew.hotSubtasks() > graph.parallelism(v)) {
                throw new IllegalArgumentException(
                        "skew "
                                + skew
                                + " names "
                                + skew.hotSubtasks()
                                + " hot subtasks; '"
                                + skew.vertex()
                                + "' has "
                                + graph.parallelism(v));
            }
        }
    }

    private static int vertexOf(JobGraph graph, String vertex, String what) {
        return graph.findVertex(vertex)
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "the "
                                                + what
                                                + " names vertex '"
                                                + vertex
                                                + "', which is not in the job; its vertices: "
                                                + vertices(graph)));
    }

    private static String vertices(JobGraph graph) {
        StringBuilder names = new StringBuilder();
        for (int v = 0; v < graph.numJobVertices() && v < 20; v++) {
            names.append(v == 0 ? "" : ", ").append(graph.vertexName(v));
        }
        return graph.numJobVertices() > 20 ? names + ", ..." : names.toString();
    }

    /** Fills {@code work[task]} for every task; vertex {@code v} draws from its own stream. */
    static void sample(JobGraph graph, SimulationConfig config, double[] work) {
        for (int v = 0; v < graph.numJobVertices(); v++) {
            WorkDistribution distribution = config.workOf(graph.vertexName(v));
            SplittableRandom random = new SplittableRandom(mix(config.seed(), v));
            int first = graph.firstTask(v);
            for (int i = 0; i < graph.parallelism(v); i++) {
                work[first + i] = distribution.sample(random) + config.taskOverhead();
            }
        }
        for (Skew skew : config.skews()) {
            int v = graph.vertexId(skew.vertex());
            double hot = skew.factor() * config.workOf(skew.vertex()).mean();
            for (int i = 0; i < skew.hotSubtasks(); i++) {
                work[graph.firstTask(v) + i] = hot + config.taskOverhead();
            }
        }
    }

    /**
     * The seeded failures of {@code config}: attempt {@code a} of task {@code t} fails with
     * probability {@code failRate}, after a uniform fraction of its work, from a stream of its own.
     */
    static JobSimulator.FailurePlan failures(SimulationConfig config) {
        return config.failRate() == 0
                ? new NoFailures()
                : new SeededFailures(config.seed() ^ 0x5DEECE66DL, config.failRate());
    }

    /** Nothing fails (a named class, as every part of a simulator, so that JOL can walk it). */
    private static final class NoFailures implements JobSimulator.FailurePlan {
        @Override
        public double failAt(int task, int attempt) {
            return -1;
        }
    }

    /** Each attempt fails with probability {@code rate}, from a stream of its own. */
    private static final class SeededFailures implements JobSimulator.FailurePlan {
        private final long seed;
        private final double rate;

        SeededFailures(long seed, double rate) {
            this.seed = seed;
            this.rate = rate;
        }

        @Override
        public double failAt(int task, int attempt) {
            SplittableRandom random = new SplittableRandom(mix(mix(seed, task), attempt));
            return random.nextDouble() < rate ? random.nextDouble() : -1;
        }
    }

    private static long mix(long seed, long value) {
        long z = seed + GOLDEN * (value + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
