package io.railyard.benchmarks.jmh;

import io.railyard.benchmarks.procedures.DeployProcedures;
import io.railyard.benchmarks.procedures.ReferenceJobs;
import io.railyard.deployment.OffloadOptions;
import io.railyard.groups.ExecutionTopology;
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
 * Time to create and encode the deployment descriptors of every task (Flink's blog: task deployment
 * 63,118 ms in 1.12, 17,183 ms in 1.14 at P = 10,000, which also ships them), with a fresh
 * per-group cache each time, so the one encoding of each group is included.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar DeployAllTasksBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DeployAllTasksBenchmark {
    /** Parallelism of source and sink. */
    @Param({"1000", "10000", "100000", "1000000"})
    public int parallelism;

    /** BLOCKING or PIPELINED (the two-vertex ALL_TO_ALL shapes). */
    @Param({"BLOCKING", "PIPELINED"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public ReferenceJobs.Shape shape;

    /** Whether large groups go to the blob store. */
    @Param({"true", "false"})
    public boolean offload;

    @SuppressWarnings("NullAway.Init") // set in setup
    private ExecutionTopology topology;

    /** Builds the topology once. */
    @Setup
    public void setUp() {
        topology = ExecutionTopology.of(shape.job(parallelism));
    }

    /** Encodes every task's descriptor; returns their total bytes. */
    @Benchmark
    public long deployAll() {
        return DeployProcedures.deployAll(
                topology, offload ? OffloadOptions.DEFAULT : OffloadOptions.NEVER);
    }
}
