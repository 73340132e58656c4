package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.benchmarks.procedures.RegionProcedures;
import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
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
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class BuildRegionsSideBySideBenchmark extends SideBySideBenchmark {
    /** The job shape. */
    @Param({"BLOCKING", "PIPELINED", "HYBRID_FULL", "POINTWISE_CHAIN"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public Shape shape;

    @SuppressWarnings("NullAway.Init") // set in setup, for Railyard only
    private ExecutionTopology topology;

    @SuppressWarnings("NullAway.Init") // set in setup, for Flink only
    private DefaultExecutionGraph flinkGraph;

    /** Builds the topology (Railyard) or the execution graph (Flink). */
    @Setup
    public void setUp() throws Exception {
        JobGraph graph = shape.job(parallelism);
        if (railyard()) {
            topology = ExecutionTopology.of(graph);
        } else {
            flinkGraph = FlinkJobs.executionGraph(FlinkJobs.translate(graph), flinkExecutor());
        }
    }

    /** Builds the regions; returns them, which JMH consumes. */
    @Benchmark
    public Object buildRegions() {
        return railyard()
                ? RegionProcedures.buildRegions(topology)
                : FlinkProcedures.buildRegions(flinkGraph);
    }
}
