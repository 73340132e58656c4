package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.DeployProcedures;
import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.deployment.OffloadOptions;
import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * "Deploy all" side by side: Railyard's {@link DeployProcedures#deployAll} creates and encodes
 * every task's deployment descriptor with a fresh per-group cache; Flink's {@link
 * FlinkDeployment#deployAll} deploys every execution ({@code Execution.deploy()}, as Flink's {@code
 * DeployingTasksBenchmarkBase} benchmarks do) and serializes each descriptor it creates, with its
 * per-group shuffle-descriptor cache fresh too. Flink's step also moves each task to DEPLOYING;
 * Railyard's procedure keeps no task state. Offloading: Railyard's default options against Flink's
 * default threshold (2048 × 2048 descriptors × consumers), or never. Each iteration times one call;
 * Flink needs a fresh execution graph for it, built outside the measurement.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar DeployAllSideBySide -gc true}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, batchSize = 1)
@Measurement(iterations = 5, batchSize = 1)
public class DeployAllSideBySideBenchmark extends SideBySideBenchmark {
    /** BLOCKING or PIPELINED (the two-vertex ALL_TO_ALL shapes). */
    @Param({"BLOCKING", "PIPELINED"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Shape shape;

    /** Whether large groups go to the blob store. */
    @Param({"true", "false"})
    public boolean offload;

    @SuppressWarnings("NullAway.Init") // set in setup
    private JobGraph graph;

    @SuppressWarnings("NullAway.Init") // set in setup, for Railyard only
    private ExecutionTopology topology;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private FlinkJobs.Translation flinkJob;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private FlinkDeployment flink;

    /** Builds Railyard's topology or Flink's job once. */
    @Setup(Level.Trial)
    public void setUpTrial() {
        graph = shape.job(parallelism);
        if (railyard()) {
            topology = ExecutionTopology.of(graph);
        } else {
            flinkJob = FlinkJobs.translate(graph);
        }
    }

    /** Flink: a fresh execution graph with every task placed and ready to deploy. */
    @Setup(Level.Iteration)
    public void setUpIteration() throws Exception {
        if (!railyard()) {
            flink = new FlinkDeployment(flinkJob, options());
        }
    }

    /** Flink: releases the iteration's deployment. */
    @TearDown(Level.Iteration)
    public void tearDownIteration() {
        if (!railyard()) {
            flink.close();
        }
    }

    /** Creates every task's descriptor as bytes; returns their total size. */
    @Benchmark
    public long deployAll() throws Exception {
        return railyard() ? DeployProcedures.deployAll(topology, options()) : flink.deployAll();
    }

    private OffloadOptions options() {
        return offload ? OffloadOptions.DEFAULT : OffloadOptions.NEVER;
    }
}
