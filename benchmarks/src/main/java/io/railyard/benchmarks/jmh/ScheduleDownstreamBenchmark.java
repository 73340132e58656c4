package io.railyard.benchmarks.jmh;

import io.railyard.benchmarks.procedures.ReferenceJobs;
import io.railyard.benchmarks.procedures.RegionProcedures;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Time to schedule every downstream region of a batch job when its last source task finishes
 * (Flink's {@code SchedulingDownstreamTasksInBatchJobBenchmark}). Each invocation gets a fresh
 * strategy with all other source tasks finished, prepared outside the measurement.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ScheduleDownstreamBenchmark}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@Warmup(iterations = 200, batchSize = 1)
@Measurement(iterations = 40, batchSize = 1)
public class ScheduleDownstreamBenchmark extends ScaleBenchmark {
    /** The job shape. */
    @Param({"BLOCKING", "PIPELINED", "HYBRID_FULL", "POINTWISE_CHAIN"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public ReferenceJobs.Shape shape;

    @SuppressWarnings("NullAway.Init") // set in setup
    private PipelinedRegions regions;

    @SuppressWarnings("NullAway.Init") // set in setup
    private RegionProcedures.Downstream downstream;

    /** Builds the topology and regions once. */
    @Setup(Level.Trial)
    public void setUpTrial() {
        regions = PipelinedRegions.build(ExecutionTopology.of(shape.job(parallelism)));
    }

    /** A fresh strategy just before the last source finishes. */
    @Setup(Level.Iteration)
    public void setUpIteration() {
        downstream = new RegionProcedures.Downstream(regions);
    }

    /** Finishes the last source task, which deploys every downstream region. */
    @Benchmark
    public int scheduleDownstream() {
        return downstream.finishLastSource();
    }
}
