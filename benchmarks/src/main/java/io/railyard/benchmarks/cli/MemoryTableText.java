package io.railyard.benchmarks.cli;

import io.railyard.benchmarks.procedures.MemoryTable;
import io.railyard.benchmarks.procedures.RunningFootprint;
import java.util.List;
import java.util.Locale;

/** The JOL memory tables ({@link MemoryTable}, {@link RunningFootprint}) as text. */
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

    /** The running footprints ({@link RunningFootprint}) as a text table, after a blank line. */
    static String renderRunning(List<RunningFootprint.Result> results) {
        StringBuilder text = new StringBuilder();
        text.append(
                String.format(
                        Locale.ROOT,
                        "%nA worker with the PIPELINED reference job running (one worker, 2P tasks,"
                                + " no record sent yet; JOL, network pages are direct and not"
                                + " counted)%n%8s %8s %14s %12s %12s %10s %12s%n",
                        "P",
                        "tasks",
                        "connections",
                        "idle",
                        "running",
                        "B/task",
                        "B/connection"));
        for (RunningFootprint.Result r : results) {
            text.append(
                    String.format(
                            Locale.ROOT,
                            "%,8d %,8d %,14d %12s %12s %10.1f %12.4f%n",
                            r.parallelism(),
                            r.tasks(),
                            r.connections(),
                            ReportTable.humanBytes(r.idleBytes()),
                            ReportTable.humanBytes(r.runningBytes()),
                            r.bytesPerTask(),
                            r.bytesPerConnection()));
        }
        return text.toString();
    }
}
