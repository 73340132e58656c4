package io.railyard.benchmarks.jmh;

import io.railyard.benchmarks.procedures.IdleJobMaster;
import io.railyard.benchmarks.procedures.ReferenceJobs;
import io.railyard.jobmaster.JobMaster;
import io.railyard.topology.JobGraph;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The procedure "initialization": everything the JobManager builds for a job before it starts — the
 * JobManager core with topology and groups, regions, scheduling, failover, shuffle master and
 * descriptor cache ({@link IdleJobMaster}) — from the job graph (built in setup). The scale
 * report's first row.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar InitializationBenchmark -p
 * parallelism=1000000}.
 */
public class InitializationBenchmark extends ScaleBenchmark {
    /** The job shape. */
    @Param({"BLOCKING", "PIPELINED", "HYBRID_FULL", "POINTWISE_CHAIN", "FOUR_STAGE"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public ReferenceJobs.Shape shape;

    @SuppressWarnings("NullAway.Init") // set in setup
    private JobGraph graph;

    /** Builds the job graph the benchmark initialises. */
    @Setup
    public void setUp() {
        graph = shape.job(parallelism);
    }

    /** Initialises the job. */
    @Benchmark
    public JobMaster initialize() {
        return IdleJobMaster.of(graph);
    }
}
