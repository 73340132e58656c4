package io.railyard.benchmarks.procedures;

import io.railyard.benchmarks.jmh.BuildTopologyBenchmark;
import io.railyard.groups.ExecutionTopology;

/**
 * The procedure "build topology": the reference job's graph from its builder, then its execution
 * topology with consumer groups. Shared by {@link BuildTopologyBenchmark}, its test twin and the
 * scale report, so all three measure the same work.
 */
public final class BuildTopology {
    private BuildTopology() {}

    /** Builds the reference job at {@code parallelism} and its execution topology. */
    public static ExecutionTopology run(int parallelism) {
        return ExecutionTopology.of(ReferenceJobs.reference(parallelism));
    }
}
