package io.railyard.benchmarks;

import com.google.common.collect.ImmutableList;
import io.railyard.benchmarks.ReferenceJobs.Shape;
import io.railyard.topology.JobGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The JOL memory table: retained bytes of Railyard's initialised state ({@link Initialized}) for
 * every shape and parallelism, per task, and — when a measure for Flink is given — of Flink's
 * initialised execution graph for the same job, with the ratio.
 */
final class MemoryTable {
    /** Parallelisms of the table. */
    static final ImmutableList<Integer> PARALLELISMS = ImmutableList.of(1_000, 4_000, 10_000);

    /**
     * One row.
     *
     * @param shape the job shape
     * @param parallelism its parallelism
     * @param tasks its number of tasks
     * @param railyardBytes Railyard's retained bytes
     * @param flinkBytes Flink's retained bytes, or -1 when not measured
     */
    record Row(Shape shape, int parallelism, int tasks, long railyardBytes, long flinkBytes) {}

    private MemoryTable() {}

    /** Measures every shape at every parallelism; {@code flink} may be null (Railyard only). */
    static List<Row> measure(List<Integer> parallelisms, @Nullable ToLongFunction<JobGraph> flink) {
        List<Row> rows = new ArrayList<>();
        for (Shape shape : Shape.values()) {
            for (int parallelism : parallelisms) {
                JobGraph graph = shape.job(parallelism);
                long railyard = ScaleReport.retainedBytes(Initialized.of(graph));
                long flinkBytes = flink == null ? -1 : flink.applyAsLong(graph);
                rows.add(new Row(shape, parallelism, graph.numTasks(), railyard, flinkBytes));
            }
        }
        return rows;
    }

    /** The rows as a text table. */
    static String render(List<Row> rows) {
        StringBuilder out = new StringBuilder();
        out.append(
                String.format(
                        Locale.ROOT,
                        "%-16s %8s %8s %12s %10s %14s %10s %8s%n",
                        "shape",
                        "P",
                        "tasks",
                        "Railyard",
                        "B/task",
                        "Flink",
                        "B/task",
                        "ratio"));
        for (Row row : rows) {
            boolean flink = row.flinkBytes() >= 0;
            out.append(
                    String.format(
                            Locale.ROOT,
                            "%-16s %,8d %,8d %12s %10.1f %14s %10s %8s%n",
                            row.shape(),
                            row.parallelism(),
                            row.tasks(),
                            ReportTable.humanBytes(row.railyardBytes()),
                            row.railyardBytes() / (double) row.tasks(),
                            flink ? ReportTable.humanBytes(row.flinkBytes()) : "-",
                            flink
                                    ? String.format(
                                            Locale.ROOT,
                                            "%.1f",
                                            row.flinkBytes() / (double) row.tasks())
                                    : "-",
                            flink
                                    ? String.format(
                                            Locale.ROOT,
                                            "%,.0fx",
                                            row.flinkBytes() / (double) row.railyardBytes())
                                    : "-"));
        }
        return out.toString();
    }
}
