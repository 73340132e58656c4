package io.railyard.benchmarks;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Time to compute the tasks to restart for one failed task (Flink's blog: 37,195 ms in 1.12, 170 ms
 * in 1.14 at P = 10,000), with every re-consumable partition available. The answer goes into a
 * reused set, so a call allocates nothing ({@code -prof gc} shows it).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar TasksToRestartBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TasksToRestartBenchmark {
    /** Parallelism of the shape's vertices. */
    @Param({"1000", "10000", "100000"})
    public int parallelism;

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
