package io.railyard.benchmarks.jmh;

import io.railyard.benchmarks.procedures.DeployProcedures;
import io.railyard.deployment.GroupDescriptors;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * Worker-side time to decode one shared group: the P shuffle descriptors of the reference job's
 * all-to-all group, producers placed at random on {@link DeployProcedures#WORKERS} workers,
 * compressed. A worker does this once per offloaded group, however many of its tasks read it.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar DecodeGroupBenchmark}.
 */
public class DecodeGroupBenchmark extends ScaleBenchmark {
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
