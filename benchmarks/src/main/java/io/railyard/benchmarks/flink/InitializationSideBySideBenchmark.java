package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.IdleJobMaster;
import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
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
 * Job initialization side by side (the report's {@code initialization}): Railyard builds its
 * JobManager core ({@link IdleJobMaster}: topology and groups, regions, scheduling strategy,
 * failover handler with its partition-release counters, shuffle master, deployment descriptor
 * cache); Flink builds and initialises its execution graph, which includes its scheduling topology,
 * regions, partition-release strategy and deployment descriptor factory, and constructs its region
 * scheduling strategy ({@link FlinkProcedures#initialize}). Both start from a built job graph.
 * Flink's blog: 627 ms for job initialization at P = 10,000 in Flink 1.14.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar InitializationSideBySide -gc true}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class InitializationSideBySideBenchmark extends SideBySideBenchmark {
    /** The job shape. */
    @Param({"BLOCKING", "PIPELINED", "HYBRID_FULL", "POINTWISE_CHAIN"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Shape shape;

    @SuppressWarnings("NullAway.Init") // set in setup
    private JobGraph graph;

    @SuppressWarnings("NullAway.Init") // set in setup
    private FlinkJobs.Translation flinkJob;

    /** Builds the job graph (both sides) and its Flink translation. */
    @Setup
    public void setUp() {
        graph = shape.job(parallelism);
        if (!railyard()) {
            flinkJob = FlinkJobs.translate(graph);
        }
    }

    /** Initializes the job; returns the state, which JMH consumes. */
    @Benchmark
    public Object initialize() throws Exception {
        return railyard()
                ? IdleJobMaster.of(graph)
                : FlinkProcedures.initialize(flinkJob, flinkExecutor());
    }
}
