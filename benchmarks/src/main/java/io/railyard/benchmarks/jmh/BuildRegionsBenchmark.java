package io.railyard.benchmarks.jmh;

import io.railyard.benchmarks.procedures.ReferenceJobs;
import io.railyard.benchmarks.procedures.RegionProcedures;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Time to build the pipelined regions of each shape's execution topology (built in setup).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar BuildRegionsBenchmark}.
 */
public class BuildRegionsBenchmark extends ScaleBenchmark {
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
