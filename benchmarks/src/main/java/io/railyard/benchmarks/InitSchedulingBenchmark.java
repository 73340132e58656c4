package io.railyard.benchmarks;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
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
 * Time to initialise the region scheduling strategy (classify gating groups, set every counter)
 * over regions built in setup.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar InitSchedulingBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class InitSchedulingBenchmark {
    /** Parallelism of the shape's vertices. */
    @Param({"1000", "10000", "100000"})
    public int parallelism;

    /** The job shape. */
    @Param({"BLOCKING", "PIPELINED", "HYBRID_FULL", "POINTWISE_CHAIN"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public ReferenceJobs.Shape shape;

    @SuppressWarnings("NullAway.Init") // set in setup
    private PipelinedRegions regions;

    /** Builds the topology and regions the strategy schedules. */
    @Setup
    public void setUp() {
        regions = PipelinedRegions.build(ExecutionTopology.of(shape.job(parallelism)));
    }

    /** Initialises the strategy. */
    @Benchmark
    public RegionSchedulingStrategy initScheduling() {
        return RegionProcedures.initScheduling(regions, new RegionProcedures.CountingDeployer());
    }
}
