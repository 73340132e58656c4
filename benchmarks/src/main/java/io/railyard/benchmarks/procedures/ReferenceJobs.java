package io.railyard.benchmarks.procedures;

import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;

/**
 * The job shapes that every benchmark and the scale report measure: the reference job of Flink's
 * scheduler blog in its BLOCKING, PIPELINED and HYBRID_FULL variants, and a pointwise chain with
 * unequal parallelisms (which Flink's own scheduler benchmarks do not cover).
 */
public final class ReferenceJobs {
    private ReferenceJobs() {}

    /**
     * The reference job of Flink's scheduler blog: {@code source -> sink}, both of parallelism
     * {@code parallelism}, one ALL_TO_ALL BLOCKING edge ({@code parallelism^2} connections).
     */
    public static JobGraph reference(int parallelism) {
        return twoVertices(
                parallelism, DistributionPattern.ALL_TO_ALL, ResultPartitionType.BLOCKING);
    }

    /**
     * The shapes measured by the region and scheduling benchmarks (issue 3): the two-vertex job
     * with an ALL_TO_ALL edge of three types, and a pointwise chain with unequal parallelism.
     */
    public enum Shape {
        /** {@code source -> sink}, ALL_TO_ALL, BLOCKING: 2P singleton regions. */
        BLOCKING,
        /** {@code source -> sink}, ALL_TO_ALL, PIPELINED: one region of 2P tasks. */
        PIPELINED,
        /** {@code source -> sink}, ALL_TO_ALL, HYBRID_FULL: 2P regions, all scheduled at once. */
        HYBRID_FULL,
        /** {@link #pointwiseChain(int)}. */
        POINTWISE_CHAIN,
        /** {@link #fourStage(int)}: 4P singleton regions. */
        FOUR_STAGE;

        /** This shape at parallelism {@code parallelism}. */
        public JobGraph job(int parallelism) {
            return switch (this) {
                case BLOCKING -> reference(parallelism);
                case PIPELINED ->
                        twoVertices(
                                parallelism,
                                DistributionPattern.ALL_TO_ALL,
                                ResultPartitionType.PIPELINED);
                case HYBRID_FULL ->
                        twoVertices(
                                parallelism,
                                DistributionPattern.ALL_TO_ALL,
                                ResultPartitionType.HYBRID_FULL);
                case POINTWISE_CHAIN -> pointwiseChain(parallelism);
                case FOUR_STAGE -> fourStage(parallelism);
            };
        }
    }

    /**
     * A chain of 4 job vertices with unequal parallelism and only POINTWISE edges: {@code a (P) ->
     * b (P/2)} PIPELINED, {@code b -> c (P)} BLOCKING, {@code c -> d (3P/4)} PIPELINED. Each
     * pipelined pair splits into task-level regions of unequal size; the blocking edge fans out.
     */
    public static JobGraph pointwiseChain(int parallelism) {
        int half = Math.max(1, parallelism / 2);
        int threeQuarters = Math.max(1, (int) (parallelism * 3L / 4));
        return JobGraph.builder()
                .addVertex("a", parallelism)
                .addVertex("b", half)
                .addVertex("c", parallelism)
                .addVertex("d", threeQuarters)
                .connect("a", "b", DistributionPattern.POINTWISE, ResultPartitionType.PIPELINED)
                .connect("b", "c", DistributionPattern.POINTWISE, ResultPartitionType.BLOCKING)
                .connect("c", "d", DistributionPattern.POINTWISE, ResultPartitionType.PIPELINED)
                .build();
    }

    /**
     * {@code a -> b -> c -> d}, all of parallelism {@code p}, BLOCKING edges: ALL_TO_ALL, POINTWISE
     * (one group per subtask), ALL_TO_ALL.
     */
    public static JobGraph fourStage(int p) {
        return JobGraph.builder()
                .addVertex("a", p)
                .addVertex("b", p)
                .addVertex("c", p)
                .addVertex("d", p)
                .connect("a", "b", DistributionPattern.ALL_TO_ALL, ResultPartitionType.BLOCKING)
                .connect("b", "c", DistributionPattern.POINTWISE, ResultPartitionType.BLOCKING)
                .connect("c", "d", DistributionPattern.ALL_TO_ALL, ResultPartitionType.BLOCKING)
                .build();
    }

    /** {@code source -> sink}, both of parallelism {@code parallelism}, one edge. */
    public static JobGraph twoVertices(
            int parallelism, DistributionPattern pattern, ResultPartitionType type) {
        return JobGraph.builder()
                .addVertex("source", parallelism)
                .addVertex("sink", parallelism)
                .connect("source", "sink", pattern, type)
                .build();
    }
}
