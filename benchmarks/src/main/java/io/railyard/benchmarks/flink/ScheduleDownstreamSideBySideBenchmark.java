package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.benchmarks.procedures.RegionProcedures;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.topology.JobGraph;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Scheduling the downstream regions of a batch job when its last source finishes, side by side
 * (Flink's {@code SchedulingDownstreamTasksInBatchJobBenchmark}): Railyard's {@link
 * RegionProcedures.Downstream}, Flink's {@link FlinkProcedures.Downstream} with its {@code
 * PipelinedRegionSchedulingStrategy}. Each iteration times one call on a fresh state prepared
 * outside the measurement; Flink's fresh state is a fresh execution graph, as the step changes the
 * finished-partition counters it holds.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ScheduleDownstreamSideBySide -gc true}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, batchSize = 1)
@Measurement(iterations = 10, batchSize = 1)
public class ScheduleDownstreamSideBySideBenchmark extends SideBySideBenchmark {
    /** The job shape. */
    @Param({"BLOCKING", "PIPELINED", "HYBRID_FULL", "POINTWISE_CHAIN"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Shape shape;

    @SuppressWarnings("NullAway.Init") // set in setup, for Railyard only
    private PipelinedRegions regions;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private FlinkJobs.Translation flinkJob;

    @SuppressWarnings("NullAway.Init") // set in setup, for Railyard only
    private RegionProcedures.Downstream railyard;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private FlinkProcedures.Downstream flink;

    /** Builds Railyard's regions or Flink's job once. */
    @Setup(Level.Trial)
    public void setUpTrial() {
        JobGraph graph = shape.job(parallelism);
        if (railyard()) {
            regions = RegionProcedures.buildRegions(ExecutionTopology.of(graph));
        } else {
            flinkJob = FlinkJobs.translate(graph);
        }
    }

    /** A fresh state just before the last source finishes. */
    @Setup(Level.Iteration)
    public void setUpIteration() throws Exception {
        if (railyard()) {
            railyard = new RegionProcedures.Downstream(regions);
        } else {
            flink = new FlinkProcedures.Downstream(flinkJob, flinkExecutor());
        }
    }

    /** Finishes the last source task; returns the regions deployed. */
    @Benchmark
    public int scheduleDownstream() {
        return railyard() ? railyard.finishLastSource() : flink.finishLastSource();
    }
}
