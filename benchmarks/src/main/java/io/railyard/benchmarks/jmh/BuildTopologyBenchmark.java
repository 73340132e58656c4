package io.railyard.benchmarks.jmh;

import io.railyard.benchmarks.procedures.BuildTopology;
import io.railyard.groups.ExecutionTopology;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * Time to build the reference job (source → sink, ALL_TO_ALL, BLOCKING) and its execution topology
 * with consumer groups, at P × P connections.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar BuildTopologyBenchmark}. Flink 1.14
 * published 627 ms for job initialization at P = 10,000 (which also builds regions).
 */
public class BuildTopologyBenchmark extends ScaleBenchmark {
    /** Builds the job graph and its execution topology. */
    @Benchmark
    public ExecutionTopology buildTopology() {
        return BuildTopology.run(parallelism);
    }
}
