package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.benchmarks.procedures.RegionProcedures;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.topology.JobGraph;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.scheduler.strategy.SchedulingTopology;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Initialising the region scheduling strategy side by side (Flink's {@code
 * InitSchedulingStrategyBenchmark}): Railyard's {@link RegionProcedures#initScheduling} over
 * regions built in setup; Flink's {@code PipelinedRegionSchedulingStrategy} constructor ({@link
 * FlinkProcedures#initScheduling}) over the scheduling topology of an execution graph built in
 * setup. Neither deploys anything. (Flink 2.x schedules batch jobs with its adaptive batch
 * scheduler and {@code VertexwiseSchedulingStrategy} by default; the region strategy is the one
 * that does Railyard's work, and the one Flink's benchmark initialises.)
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar InitSchedulingSideBySide -gc true}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class InitSchedulingSideBySideBenchmark extends SideBySideBenchmark {
    /** The job shape. */
    @Param({"BLOCKING", "PIPELINED", "HYBRID_FULL", "POINTWISE_CHAIN"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Shape shape;

    @SuppressWarnings("NullAway.Init") // set in setup, for Railyard only
    private PipelinedRegions regions;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private SchedulingTopology flinkTopology;

    /** Builds the regions (Railyard) or the execution graph (Flink). */
    @Setup
    public void setUp() throws Exception {
        JobGraph graph = shape.job(parallelism);
        if (railyard()) {
            regions = RegionProcedures.buildRegions(ExecutionTopology.of(graph));
        } else {
            flinkTopology =
                    FlinkJobs.executionGraph(FlinkJobs.translate(graph), flinkExecutor())
                            .getSchedulingTopology();
        }
    }

    /** Initialises the strategy; returns it, which JMH consumes. */
    @Benchmark
    public Object initScheduling() {
        return railyard()
                ? RegionProcedures.initScheduling(regions, new RegionProcedures.CountingDeployer())
                : FlinkProcedures.initScheduling(
                        flinkTopology, new FlinkProcedures.CountingOperations());
    }
}
