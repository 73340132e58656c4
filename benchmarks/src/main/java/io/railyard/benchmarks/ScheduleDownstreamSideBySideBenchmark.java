package io.railyard.benchmarks;

import io.railyard.benchmarks.ReferenceJobs.Shape;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.topology.JobGraph;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
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
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, batchSize = 1)
@Measurement(iterations = 10, batchSize = 1)
@Fork(value = 1, jvmArgsAppend = SideBySide.MAX_HEAP)
public class ScheduleDownstreamSideBySideBenchmark {
    /** Parallelism of the shape's vertices. */
    @Param({"1000", "4000", "10000"})
    public int parallelism;

    /** The job shape. */
    @Param({"BLOCKING", "PIPELINED", "HYBRID_FULL", "POINTWISE_CHAIN"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Shape shape;

    /** Railyard or Flink. */
    @Param({"RAILYARD", "FLINK"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public SideBySide system;

    @SuppressWarnings("NullAway.Init") // set in setup, for Railyard only
    private PipelinedRegions regions;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private FlinkJobs.Translation flinkJob;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private ScheduledExecutorService executor;

    @SuppressWarnings("NullAway.Init") // set in setup, for Railyard only
    private RegionProcedures.Downstream railyard;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private FlinkProcedures.Downstream flink;

    /** Builds Railyard's regions or Flink's job once. */
    @Setup(Level.Trial)
    public void setUpTrial() {
        JobGraph graph = shape.job(parallelism);
        if (system == SideBySide.RAILYARD) {
            regions = RegionProcedures.buildRegions(ExecutionTopology.of(graph));
        } else {
            flinkJob = FlinkJobs.translate(graph);
            executor = Executors.newSingleThreadScheduledExecutor();
        }
    }

    /** A fresh state just before the last source finishes. */
    @Setup(Level.Iteration)
    public void setUpIteration() throws Exception {
        if (system == SideBySide.RAILYARD) {
            railyard = new RegionProcedures.Downstream(regions);
        } else {
            flink = new FlinkProcedures.Downstream(flinkJob, executor);
        }
    }

    /** Stops Flink's executor. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (system == SideBySide.FLINK) {
            executor.shutdownNow();
        }
    }

    /** Finishes the last source task; returns the regions deployed. */
    @Benchmark
    public int scheduleDownstream() {
        return system == SideBySide.RAILYARD
                ? railyard.finishLastSource()
                : flink.finishLastSource();
    }
}
