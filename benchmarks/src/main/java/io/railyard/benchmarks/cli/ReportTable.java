package io.railyard.benchmarks.cli;

import com.google.common.collect.ImmutableList;
import io.railyard.benchmarks.procedures.DeployProcedures;
import io.railyard.benchmarks.procedures.ScaleReport;
import io.railyard.benchmarks.procedures.ShuffleThroughput;
import io.railyard.benchmarks.procedures.TimeToRunning;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The scale report as a text table: Railyard, Flink live (if measured), ratio, Flink published. */
final class ReportTable {
    /** The initialised state beyond the regions, by JSON key and table label. */
    private static final String[][] INITIALIZED_PARTS = {
        {"scheduling", "  of which scheduling (group kinds, input counts, counters)"},
        {"failover", "  of which failover (release, availability, attempts, marks)"},
        {"descriptors", "  of which descriptor cache, shuffle master, workers, core"},
    };

    private ReportTable() {}

    /** The whole report as text; shuffle failures name the options in {@code names}. */
    static String render(ScaleReport report, ShuffleChecks.Names names) {
        StringBuilder out = new StringBuilder();
        ScaleReport.FlinkColumn flink = report.flink();
        header(out, report);
        String live = flink == null ? "" : "Flink " + flink.version();
        row(
                out,
                "procedure",
                "Railyard",
                live,
                flink == null ? "" : "ratio",
                "Flink 1.12*",
                "Flink 1.14*");
        for (ScaleReport.Procedure procedure : report.procedures()) {
            Double flinkMillis = flink == null ? null : flink.millis().get(procedure.key());
            ImmutableList<String> published = ScaleReport.published(procedure.key());
            String label =
                    procedure.key().equals("tasks_to_restart")
                            ? String.format(
                                    Locale.ROOT,
                                    "tasks to restart (%,d tasks)",
                                    report.restartedTasks())
                            : procedure.label();
            row(
                    out,
                    label,
                    humanMillis(procedure.millis()),
                    flinkMillis == null ? (flink == null ? "" : "-") : humanMillis(flinkMillis),
                    ratio(flinkMillis, procedure.millis()),
                    published == null ? "-" : published.get(0),
                    published == null ? "-" : published.get(1));
        }
        timeToRunningRow(out, report);
        deploymentRows(out, report);
        memoryRows(out, report.memory(), flink);
        ShuffleThroughput.Result shuffle = report.shuffle();
        if (shuffle != null) {
            out.append(ShuffleTable.section(shuffle, names));
        }
        out.append(
                String.format(
                        Locale.ROOT,
                        "%n* published by Flink for P = 10,000 (Flink blog on scheduler"
                                + " performance); not measured here. Flink's job initialization"
                                + " covers Railyard's initialization; its task deployment covers"
                                + " schedule downstream and deploy all; its time to RUNNING is the"
                                + " PIPELINED job at P = 10,000 on a cluster, Railyard's the same"
                                + " job at the P shown on the local engine (4 workers in this"
                                + " process, their tasks cooperative on a thread per core); its"
                                + " sink descriptor is the"
                                + " size before offloading; 2 GiB and 30 GiB are JobManager heaps."
                                + "%n"));
        return out.toString();
    }

    private static void header(StringBuilder out, ScaleReport report) {
        out.append(
                String.format(
                        Locale.ROOT,
                        "Railyard scale report: source -> sink, P = %,d, ALL_TO_ALL BLOCKING"
                                + " (%,d connections, %,d regions)%n",
                        report.parallelism(),
                        report.connections(),
                        report.numRegions()));
        out.append(
                String.format(
                        Locale.ROOT,
                        "machine: %d cores, %s %s, %s %s%n%n",
                        Runtime.getRuntime().availableProcessors(),
                        System.getProperty("os.name"),
                        System.getProperty("os.arch"),
                        System.getProperty("java.vm.name"),
                        System.getProperty("java.version")));
    }

    private static void timeToRunningRow(StringBuilder out, ScaleReport report) {
        ImmutableList<String> published = ScaleReport.published("time_to_running");
        for (TimeToRunning.Result running : report.timeToRunning()) {
            row(
                    out,
                    String.format(
                            Locale.ROOT,
                            "time to RUNNING (PIPELINED, P = %,d)",
                            running.parallelism()),
                    humanMillis(running.millis()),
                    report.flink() == null ? "" : "-",
                    "",
                    published == null ? "-" : published.get(0),
                    published == null ? "-" : published.get(1));
        }
    }

    private static void deploymentRows(StringBuilder out, ScaleReport report) {
        DeployProcedures.Shipped shipped = report.shipped();
        row(out, "sink descriptor", shipped.sinkDescriptorBytes() + " B", "", "", "-", "~270 KiB");
        row(
                out,
                String.format(
                        Locale.ROOT,
                        "shared group (%,d descriptors)",
                        shipped.sharedGroupDescriptors()),
                humanBytes(shipped.sharedGroupBytes()),
                "",
                "",
                "-",
                "-");
        row(out, "total shipped", humanBytes(shipped.totalBytes()), "", "", "-", "-");
        row(
                out,
                "worker decodes the group",
                humanMillis(report.decodeGroupMillis()),
                "",
                "",
                "-",
                "-");
        shapeRows(out, report);
    }

    /** Issue 18: the sliced "deploy all", bytes per worker, and the worker-set shape beside. */
    private static void shapeRows(StringBuilder out, ScaleReport report) {
        DeployProcedures.Shipped shipped = report.shipped();
        row(
                out,
                "bytes per worker (mean / max)",
                humanBytes((long) shipped.meanWorkerBytes())
                        + " / "
                        + humanBytes(shipped.maxWorkerBytes()),
                "",
                "",
                "-",
                "-");
        DeployProcedures.Shapes shapes = report.shapes();
        DeployProcedures.Sliced sliced = shapes.sliced();
        String slices = String.format(Locale.ROOT, "%,d slices", sliced.slices());
        row(
                out,
                "deploy all: longest slice",
                humanMillis(sliced.longestSliceNanos() / 1e6),
                slices,
                "",
                "-",
                "-");
        row(
                out,
                "  longest slice encoding no group",
                humanMillis(sliced.longestSliceWithoutGroupNanos() / 1e6),
                "",
                "",
                "-",
                "-");
        DeployProcedures.Shipped set = shapes.workerSet();
        row(
                out,
                String.format(
                        Locale.ROOT,
                        "worker-set group (%,d workers)",
                        set.sharedGroupDescriptors()),
                humanBytes(set.sharedGroupBytes()),
                "",
                "",
                "-",
                "-");
        row(out, "worker-set: total shipped", humanBytes(set.totalBytes()), "", "", "-", "-");
        row(
                out,
                "worker-set: per worker (mean / max)",
                humanBytes((long) set.meanWorkerBytes()) + " / " + humanBytes(set.maxWorkerBytes()),
                "",
                "",
                "-",
                "-");
    }

    private static void memoryRows(
            StringBuilder out, Map<String, Long> memory, ScaleReport.@Nullable FlinkColumn flink) {
        long initialized = memory.getOrDefault("initialized", 0L);
        row(
                out,
                "memory: JobMaster, initialised",
                humanBytes(initialized),
                flink == null ? "" : humanBytes(flink.graphBytes()),
                flink == null ? "" : ratio((double) flink.graphBytes(), (double) initialized),
                "30 GiB heap",
                "2 GiB heap");
        row(
                out,
                "  of which topology",
                humanBytes(memory.getOrDefault("topology", 0L)),
                "",
                "",
                "",
                "");
        row(
                out,
                "  of which regions",
                humanBytes(memory.getOrDefault("regions", 0L)),
                "",
                "",
                "",
                "");
        for (String[] part : INITIALIZED_PARTS) {
            row(out, part[1], humanBytes(memory.getOrDefault(part[0], 0L)), "", "", "", "");
        }
    }

    private static String ratio(@Nullable Double flink, double railyard) {
        if (flink == null || railyard <= 0) {
            return "";
        }
        return String.format(Locale.ROOT, "%,.0fx", flink / railyard);
    }

    private static void row(
            StringBuilder out,
            String label,
            String ours,
            String live,
            String ratio,
            String f112,
            String f114) {
        out.append(
                String.format(
                        Locale.ROOT,
                        "%-36s %12s %12s %8s %12s %12s%n",
                        label,
                        ours,
                        live,
                        ratio,
                        f112,
                        f114));
    }

    static String humanMillis(double millis) {
        return millis < 1
                ? String.format(Locale.ROOT, "%.2f us", millis * 1000)
                : String.format(Locale.ROOT, "%,.1f ms", millis);
    }

    static String humanBytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        if (bytes < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
        }
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }
}
