package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.FailoverProcedures;
import io.railyard.benchmarks.procedures.FailoverProcedures.Failure;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.topology.JobGraph;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The tasks to restart for one failed task, side by side (Flink's {@code
 * RegionToRestartInBatchJobBenchmark} and {@code RegionToRestartInStreamingJobBenchmark}; Flink's
 * blog: 37,195 ms in 1.12, 170 ms in 1.14 at P = 10,000): Railyard's {@link
 * FailoverProcedures.Restart}, which answers into a reused set, and Flink's {@code
 * RestartPipelinedRegionFailoverStrategy} ({@link FlinkProcedures.Restart}), which answers with a
 * new hash set of execution vertex ids. Every re-consumable partition is available on both sides.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar TasksToRestartSideBySide -gc true}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class TasksToRestartSideBySideBenchmark extends SideBySideBenchmark {
    /** Which task fails in which job. */
    @Param({
        "BLOCKING_SOURCE",
        "BLOCKING_SINK",
        "PIPELINED_ANY",
        "HYBRID_FULL_SOURCE",
        "POINTWISE_CHAIN_SOURCE"
    })
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Failure failure;

    @SuppressWarnings("NullAway.Init") // set in setup, for Railyard only
    private FailoverProcedures.Restart railyard;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private FlinkProcedures.Restart flink;

    /** Builds the job and the failover once. */
    @Setup
    public void setUp() throws Exception {
        JobGraph graph = failure.shape().job(parallelism);
        if (railyard()) {
            PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));
            railyard = new FailoverProcedures.Restart(regions, failure);
        } else {
            flink =
                    new FlinkProcedures.Restart(
                            FlinkJobs.translate(graph), flinkExecutor(), failure);
        }
    }

    /** Computes the restart set; returns its size. */
    @Benchmark
    public int tasksToRestart() {
        return railyard() ? railyard.tasksToRestart() : flink.tasksToRestart();
    }
}
