package io.railyard.topology;

/**
 * The job of the modules' API sample tests ({@code ApiSampleTest}): source(10,000) → map(4,000)
 * POINTWISE PIPELINED, map → sink(10,000) ALL_TO_ALL BLOCKING. One place, so that every module's
 * sample walks the same job.
 */
public final class SampleJob {
    private SampleJob() {}

    /** Builds the sample job. */
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
