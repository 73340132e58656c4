package io.railyard.benchmarks.jmh;

import io.railyard.benchmarks.procedures.FailoverProcedures;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Time to compute the tasks to restart for one failed task (Flink's blog: 37,195 ms in 1.12, 170 ms
 * in 1.14 at P = 10,000), with every re-consumable partition available. The answer goes into a
 * reused set, so a call allocates nothing ({@code -prof gc} shows it).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar TasksToRestartBenchmark}.
 */
public class TasksToRestartBenchmark extends ScaleBenchmark {
    /** Which task fails in which job. */
    @Param({
        "BLOCKING_SOURCE",
        "BLOCKING_SINK",
        "PIPELINED_ANY",
        "HYBRID_FULL_SOURCE",
        "POINTWISE_CHAIN_SOURCE"
    })
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public FailoverProcedures.Failure failure;

    @SuppressWarnings("NullAway.Init") // set in setup
    private FailoverProcedures.Restart restart;

    /** Builds the job, its regions and the failover once. */
    @Setup
    public void setUp() {
        PipelinedRegions regions =
                PipelinedRegions.build(ExecutionTopology.of(failure.shape().job(parallelism)));
        restart = new FailoverProcedures.Restart(regions, failure);
    }

    /** Computes the restart set; returns its size. */
    @Benchmark
    public int tasksToRestart() {
        return restart.tasksToRestart();
    }
}
