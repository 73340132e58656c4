package io.railyard.benchmarks.jmh;

import io.railyard.benchmarks.procedures.SimulatedJobs;
import io.railyard.simulation.JobSimulator;
import io.railyard.simulation.ShuffleMode;
import io.railyard.simulation.SimulationConfig;
import io.railyard.topology.JobGraph;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Wall time of one whole {@code simulate} run (issue 15): building the simulator (topology,
 * regions, scheduler, failover, work samples) and simulating the job to its end on the real
 * scheduler, for the reference job and a skewed 4-stage job ({@link SimulatedJobs}) in each shuffle
 * mode. The job graph is built once per trial.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar SimulateBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SimulateBenchmark {
    /** Parallelism of every job vertex (and the number of slots). */
    @Param({"1000", "10000", "100000"})
    public int parallelism;

    /** The job shape. */
    @Param({"REFERENCE", "FOUR_STAGE"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public SimulatedJobs.Shape shape;

    /** The edge type of every edge. */
    @Param({"BLOCKING", "HYBRID_FULL", "HYBRID_SELECTIVE"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public ShuffleMode mode;

    @SuppressWarnings("NullAway.Init") // set in setup
    private JobGraph graph;

    @SuppressWarnings("NullAway.Init") // set in setup
    private SimulationConfig config;

    /** Builds the job graph and the settings. */
    @Setup(Level.Trial)
    public void setUp() {
        graph = shape.job(parallelism, mode);
        config = shape.config(parallelism);
    }

    /** Simulates the job; returns its makespan. */
    @Benchmark
    public double simulate() {
        return JobSimulator.simulate(graph, config).makespan();
    }
}
