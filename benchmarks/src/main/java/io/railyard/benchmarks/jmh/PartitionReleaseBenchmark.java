package io.railyard.benchmarks.jmh;

import io.railyard.benchmarks.procedures.FailoverProcedures;
import io.railyard.benchmarks.procedures.ReferenceJobs;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Time for partition release to absorb every sink finishing: each sink's region finishes, the
 * groups it reads count down, and the producers' partitions become releasable. Each invocation gets
 * fresh state with every other task finished, prepared outside the measurement.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar PartitionReleaseBenchmark}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@Warmup(iterations = 200, batchSize = 1)
@Measurement(iterations = 40, batchSize = 1)
public class PartitionReleaseBenchmark extends ScaleBenchmark {
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
