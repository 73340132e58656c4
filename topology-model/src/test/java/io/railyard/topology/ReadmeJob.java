package io.railyard.topology;

/**
 * The job of README.md's code samples: source(10,000) → map(4,000) POINTWISE PIPELINED, map →
 * sink(10,000) ALL_TO_ALL BLOCKING. One place, so every module's README sample test reads the same
 * job the README shows.
 */
public final class ReadmeJob {
    private ReadmeJob() {}

    /** Builds the job exactly as the README's sample does. */
    public static JobGraph graph() {
        return JobGraph.builder()
                .addVertex("source", 10_000)
                .addVertex("map", 4_000)
                .addVertex("sink", 10_000)
                .connect(
                        "source",
                        "map",
                        DistributionPattern.POINTWISE,
                        ResultPartitionType.PIPELINED)
                .connect(
                        "map", "sink", DistributionPattern.ALL_TO_ALL, ResultPartitionType.BLOCKING)
                .build();
    }
}
