package io.railyard.benchmarks.cli;

import io.railyard.benchmarks.procedures.MemoryTable;
import java.util.List;
import java.util.Locale;

/** The JOL memory table ({@link MemoryTable}) as text. */
final class MemoryTableText {
    private MemoryTableText() {}

    /** The rows as a text table. */
    static String render(List<MemoryTable.Row> rows) {
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
        for (MemoryTable.Row row : rows) {
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
