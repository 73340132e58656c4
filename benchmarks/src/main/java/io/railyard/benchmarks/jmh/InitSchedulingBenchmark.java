package io.railyard.benchmarks.jmh;

import io.railyard.benchmarks.procedures.ReferenceJobs;
import io.railyard.benchmarks.procedures.RegionProcedures;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Time to initialise the region scheduling strategy (classify gating groups, set every counter)
 * over regions built in setup.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar InitSchedulingBenchmark}.
 */
public class InitSchedulingBenchmark extends ScaleBenchmark {
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
