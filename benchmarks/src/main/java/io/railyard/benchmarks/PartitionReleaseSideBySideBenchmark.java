package io.railyard.benchmarks;

import io.railyard.benchmarks.ReferenceJobs.Shape;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.topology.JobGraph;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
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
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, batchSize = 1)
@Measurement(iterations = 10, batchSize = 1)
@Fork(value = 1, jvmArgsAppend = SideBySide.MAX_HEAP)
public class PartitionReleaseSideBySideBenchmark {
    /** Parallelism of the shape's vertices. */
    @Param({"1000", "4000", "10000"})
    public int parallelism;

    /** The job shape. */
    @Param({"BLOCKING", "HYBRID_FULL", "POINTWISE_CHAIN"})
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
    private DefaultExecutionGraph flinkGraph;

    @SuppressWarnings("NullAway.Init") // set in setup, for Railyard only
    private FailoverProcedures.Release railyard;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private FlinkProcedures.Release flink;

    /** Builds Railyard's regions or Flink's execution graph once. */
    @Setup(Level.Trial)
    public void setUpTrial() throws Exception {
        JobGraph graph = shape.job(parallelism);
        if (system == SideBySide.RAILYARD) {
            regions = RegionProcedures.buildRegions(ExecutionTopology.of(graph));
        } else {
            flinkJob = FlinkJobs.translate(graph);
            // The release strategy needs the graph only; the executor is not used after the build.
            ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
            try {
                flinkGraph = FlinkJobs.executionGraph(flinkJob, executor);
            } finally {
                executor.shutdownNow();
            }
        }
    }

    /** Fresh release state with every non-sink task finished. */
    @Setup(Level.Iteration)
    public void setUpIteration() {
        if (system == SideBySide.RAILYARD) {
            railyard = new FailoverProcedures.Release(regions);
        } else {
            flink = new FlinkProcedures.Release(flinkJob, flinkGraph);
        }
    }

    /** Finishes every sink; returns the partitions released. */
    @Benchmark
    public int finishSinks() {
        return system == SideBySide.RAILYARD ? railyard.finishSinks() : flink.finishSinks();
    }
}
