package io.railyard.benchmarks;

import io.railyard.benchmarks.ReferenceJobs.Shape;
import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Building pipelined regions side by side: Railyard's {@link RegionProcedures#buildRegions} over an
 * execution topology built in setup; Flink's {@link FlinkProcedures#buildRegions} over an execution
 * graph built in setup. Flink's step also builds the adapter objects of its scheduling topology
 * (one per task and per partition), without which it cannot compute regions; Railyard's topology is
 * ready before the step.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar BuildRegionsSideBySide -gc true}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = SideBySide.MAX_HEAP)
public class BuildRegionsSideBySideBenchmark {
    /** Parallelism of the shape's vertices. */
    @Param({"1000", "4000", "10000"})
    public int parallelism;

    /** The job shape. */
    @Param({"BLOCKING", "PIPELINED", "HYBRID_FULL", "POINTWISE_CHAIN"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Shape shape;

    /** Railyard or Flink. */
    @Param({"RAILYARD", "FLINK"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public SideBySide system;

    @SuppressWarnings("NullAway.Init") // set in setup, for Railyard only
    private ExecutionTopology topology;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private DefaultExecutionGraph flinkGraph;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private ScheduledExecutorService executor;

    /** Builds the topology (Railyard) or the execution graph (Flink). */
    @Setup
    public void setUp() throws Exception {
        JobGraph graph = shape.job(parallelism);
        if (system == SideBySide.RAILYARD) {
            topology = ExecutionTopology.of(graph);
        } else {
            executor = Executors.newSingleThreadScheduledExecutor();
            flinkGraph = FlinkJobs.executionGraph(FlinkJobs.translate(graph), executor);
        }
    }

    /** Stops Flink's executor. */
    @TearDown
    public void tearDown() {
        if (system == SideBySide.FLINK) {
            executor.shutdownNow();
        }
    }

    /** Builds the regions; returns them, which JMH consumes. */
    @Benchmark
    public Object buildRegions() {
        return system == SideBySide.RAILYARD
                ? RegionProcedures.buildRegions(topology)
                : FlinkProcedures.buildRegions(flinkGraph);
    }
}
