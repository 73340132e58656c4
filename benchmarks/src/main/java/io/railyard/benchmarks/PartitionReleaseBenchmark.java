package io.railyard.benchmarks;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
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
 * Time for partition release to absorb every sink finishing: each sink's region finishes, the
 * groups it reads count down, and the producers' partitions become releasable. Each invocation gets
 * fresh state with every other task finished, prepared outside the measurement.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar PartitionReleaseBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 200, batchSize = 1)
@Measurement(iterations = 40, batchSize = 1)
@Fork(1)
public class PartitionReleaseBenchmark {
    /** Parallelism of the shape's vertices. */
    @Param({"1000", "10000", "100000"})
    public int parallelism;

    /** The job shape. */
    @Param({"BLOCKING", "HYBRID_FULL", "POINTWISE_CHAIN"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public ReferenceJobs.Shape shape;

    @SuppressWarnings("NullAway.Init") // set in setup
    private PipelinedRegions regions;

    @SuppressWarnings("NullAway.Init") // set in setup
    private FailoverProcedures.Release release;

    /** Builds the topology and regions once. */
    @Setup(Level.Trial)
    public void setUpTrial() {
        regions = PipelinedRegions.build(ExecutionTopology.of(shape.job(parallelism)));
    }

    /** Fresh release state with every non-sink task finished. */
    @Setup(Level.Iteration)
    public void setUpIteration() {
        release = new FailoverProcedures.Release(regions);
    }

    /** Finishes every sink; returns the partitions released. */
    @Benchmark
    public int finishSinks() {
        return release.finishSinks();
    }
}
