package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.FailoverProcedures;
import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.benchmarks.procedures.RegionProcedures;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.topology.JobGraph;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
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
 * Partition release when every sink finishes, side by side (Flink's {@code
 * PartitionReleaseInBatchJobBenchmark}): Railyard's {@link FailoverProcedures.Release}, Flink's
 * {@code RegionPartitionGroupReleaseStrategy} ({@link FlinkProcedures.Release}, called directly:
 * Flink's benchmark reaches it through the execution graph's task-state updates, which this leaves
 * out). Each iteration times one call on fresh state prepared outside the measurement.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar PartitionReleaseSideBySide -gc true}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, batchSize = 1)
@Measurement(iterations = 10, batchSize = 1)
public class PartitionReleaseSideBySideBenchmark extends SideBySideBenchmark {
    /** The job shape. */
    @Param({"BLOCKING", "HYBRID_FULL", "POINTWISE_CHAIN"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Shape shape;

    @SuppressWarnings("NullAway.Init") // set in setup, for Railyard only
    private PipelinedRegions regions;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private FlinkJobs.Translation flinkJob;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private DefaultExecutionGraph flinkGraph;

    @SuppressWarnings("NullAway.Init") // set in setup, for Railyard only
    private FailoverProcedures.Release railyard;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private FlinkProcedures.Release flink;

    /** Builds Railyard's regions or Flink's execution graph once. */
    @Setup(Level.Trial)
    public void setUpTrial() throws Exception {
        JobGraph graph = shape.job(parallelism);
        if (railyard()) {
            regions = RegionProcedures.buildRegions(ExecutionTopology.of(graph));
        } else {
            flinkJob = FlinkJobs.translate(graph);
            flinkGraph = FlinkJobs.executionGraph(flinkJob, flinkExecutor());
        }
    }

    /** Fresh release state with every non-sink task finished. */
    @Setup(Level.Iteration)
    public void setUpIteration() {
        if (railyard()) {
            railyard = new FailoverProcedures.Release(regions);
        } else {
            flink = new FlinkProcedures.Release(flinkJob, flinkGraph);
        }
    }

    /** Finishes every sink; returns the partitions released. */
    @Benchmark
    public int finishSinks() {
        return railyard() ? railyard.finishSinks() : flink.finishSinks();
    }
}
