package io.railyard.benchmarks;

import io.railyard.groups.ExecutionTopology;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Time to build the reference job (source → sink, ALL_TO_ALL, BLOCKING) and its execution topology
 * with consumer groups, at P × P connections.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar BuildTopologyBenchmark}. Flink 1.14
 * published 627 ms for job initialization at P = 10,000 (which also builds regions).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BuildTopologyBenchmark {
    /** Parallelism of source and sink. */
    @Param({"1000", "10000", "100000"})
    public int parallelism;

    /** Builds the job graph and its execution topology. */
    @Benchmark
    public ExecutionTopology buildTopology() {
        return BuildTopology.run(parallelism);
    }
}
