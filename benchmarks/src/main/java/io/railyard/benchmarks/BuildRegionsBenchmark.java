package io.railyard.benchmarks;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Time to build the pipelined regions of each shape's execution topology (built in setup).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar BuildRegionsBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BuildRegionsBenchmark {
    /** Parallelism of the shape's vertices. */
    @Param({"1000", "10000", "100000"})
    public int parallelism;

    /** The job shape. */
    @Param({"BLOCKING", "PIPELINED", "HYBRID_FULL", "POINTWISE_CHAIN"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public ReferenceJobs.Shape shape;

    @SuppressWarnings("NullAway.Init") // set in setup
    private ExecutionTopology topology;

    /** Builds the topology the benchmark partitions into regions. */
    @Setup
    public void setUp() {
        topology = ExecutionTopology.of(shape.job(parallelism));
    }

    /** Builds the regions. */
    @Benchmark
    public PipelinedRegions buildRegions() {
        return RegionProcedures.buildRegions(topology);
    }
}
