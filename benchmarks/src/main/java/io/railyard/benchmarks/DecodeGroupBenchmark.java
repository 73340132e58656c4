package io.railyard.benchmarks;

import io.railyard.deployment.GroupDescriptors;
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
 * Worker-side time to decode one shared group: the P shuffle descriptors of the reference job's
 * all-to-all group, producers placed at random on {@link DeployProcedures#WORKERS} workers,
 * compressed. A worker does this once per offloaded group, however many of its tasks read it.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar DecodeGroupBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DecodeGroupBenchmark {
    /** Parallelism of source and sink: the group holds this many descriptors. */
    @Param({"1000", "10000", "100000"})
    public int parallelism;

    @SuppressWarnings("NullAway.Init") // set in setup
    private byte[] encoded;

    /** Encodes the group once. */
    @Setup
    public void setUp() {
        encoded = DeployProcedures.encodeSharedGroup(parallelism);
    }

    /** Decodes the group; returns its size. */
    @Benchmark
    public int decodeGroup() {
        return GroupDescriptors.decode(encoded).size();
    }
}
