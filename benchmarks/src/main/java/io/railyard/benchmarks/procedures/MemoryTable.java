package io.railyard.benchmarks.procedures;

import com.google.common.collect.ImmutableList;
import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.topology.JobGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The JOL memory table: retained bytes of Railyard's initialised JobManager core ({@link
 * IdleJobMaster}) for every shape and parallelism, per task, and — when a measure for Flink is
 * given — of Flink's initialised execution graph for the same job, with the ratio.
 */
public final class MemoryTable {
    /** Parallelisms of the table. */
    public static final ImmutableList<Integer> PARALLELISMS =
            ImmutableList.of(1_000, 4_000, 10_000);

    /**
     * One row.
     *
     * @param shape the job shape
     * @param parallelism its parallelism
     * @param tasks its number of tasks
     * @param railyardBytes Railyard's retained bytes
     * @param flinkBytes Flink's retained bytes, or -1 when not measured
     */
    public record Row(
            Shape shape, int parallelism, int tasks, long railyardBytes, long flinkBytes) {}

    private MemoryTable() {}

    /** Measures every shape at every parallelism; {@code flink} may be null (Railyard only). */
    public static List<Row> measure(
            List<Integer> parallelisms, @Nullable ToLongFunction<JobGraph> flink) {
        List<Row> rows = new ArrayList<>();
        for (Shape shape : Shape.values()) {
            for (int parallelism : parallelisms) {
                JobGraph graph = shape.job(parallelism);
                long railyard = ScaleReport.retainedBytes(IdleJobMaster.of(graph));
                long flinkBytes = flink == null ? -1 : flink.applyAsLong(graph);
                rows.add(new Row(shape, parallelism, graph.numTasks(), railyard, flinkBytes));
            }
        }
        return rows;
    }
}
