package io.railyard.benchmarks;

import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;

/** The job shapes that every benchmark and the scale report measure (DESIGN.md §2). */
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
