package io.railyard.benchmarks.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.benchmarks.procedures.JobReport;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * {@code inspect --report}'s output: {@link JobReport} as text tables for a person and as a JSON
 * document for a program. O(vertices + edges).
 */
final class InspectReportOutput {
    private InspectReportOutput() {}

    /** Writes the report's tables to {@code out}. */
    static void table(JobReport report, PrintWriter out) {
        shape(report, out);
        regions(report, out);
        costs(report, out);
        out.flush();
    }

    /** The vertices, the edges and the consumer groups. */
    private static void shape(JobReport report, PrintWriter out) {
        out.println("vertices");
        out.printf(
                Locale.ROOT,
                "  %-48s %12s %7s %12s%n",
                "name",
                "parallelism",
                "inputs",
                "in regions");
        for (JobReport.Vertex v : report.vertices()) {
            out.printf(
                    Locale.ROOT,
                    "  %-48s %,12d %7d %,12d%n",
                    v.name(),
                    v.parallelism(),
                    v.inputs(),
                    v.regions());
        }
        out.println("edges");
        out.printf(
                Locale.ROOT,
                "  %-56s %-10s %-17s %8s %16s%n",
                "producer -> consumer",
                "pattern",
                "type",
                "groups",
                "connections");
        for (JobReport.Edge e : report.edges()) {
            out.printf(
                    Locale.ROOT,
                    "  %-56s %-10s %-17s %,8d %,16d%n",
                    e.producer() + " -> " + e.consumer(),
                    e.pattern(),
                    e.type(),
                    e.groups(),
                    e.connections());
        }
        out.printf(Locale.ROOT, "consumer groups: %,d%n", report.consumerGroups());
    }

    /** Regions and the largest restart set, per exchange mode. */
    private static void regions(JobReport report, PrintWriter out) {
        out.println("regions and restarts (every partition that can be read again available)");
        out.printf(
                Locale.ROOT,
                "  %-12s %9s %15s %22s  %s%n",
                "exchanges",
                "regions",
                "largest region",
                "largest restart set",
                "when this task fails");
        for (JobReport.Failover f : report.failover()) {
            out.printf(
                    Locale.ROOT,
                    "  %-12s %,9d %,9d tasks %,16d tasks  %s%n",
                    f.mode().key(),
                    f.regions(),
                    f.largestRegionTasks(),
                    f.largestRestartTasks(),
                    f.largestRestartWhenFails());
        }
    }

    /** What deployment ships, and the heap. */
    private static void costs(JobReport report, PrintWriter out) {
        JobReport.Deployment d = report.deployment();
        out.printf(
                Locale.ROOT,
                "deployment to %,d workers (tasks placed at random, seeded)%n",
                d.workers());
        out.printf(
                Locale.ROOT,
                "  task descriptors: %s in all, %s per task on average, the largest %s%n",
                ReportTable.humanBytes(d.descriptorBytes()),
                ReportTable.humanBytes(d.descriptorBytes() / Math.max(1, taskCount(report))),
                ReportTable.humanBytes(d.largestDescriptorBytes()));
        out.printf(
                Locale.ROOT,
                "  offloaded to the blob store: %d groups, %s; fetched by the workers: %s%n",
                d.offloadedGroups(),
                ReportTable.humanBytes(d.offloadedBytes()),
                ReportTable.humanBytes(d.fetchedBytes()));
        out.printf(
                Locale.ROOT,
                "  per worker (%,d run a task): %s on average, %s at most%n",
                d.workersReached(),
                ReportTable.humanBytes((long) d.meanWorkerBytes()),
                ReportTable.humanBytes(d.maxWorkerBytes()));
        out.printf(
                Locale.ROOT,
                "JobManager heap for scheduling, estimated: Railyard %s (%s + %.2f B per task),"
                        + " Flink 2.1 %s (%,.0f B per task); per task as measured on the"
                        + " BLOCKING reference job, more with more inputs per task%n",
                ReportTable.humanBytes(report.heap().railyardBytes()),
                ReportTable.humanBytes(JobReport.RAILYARD_FIXED_BYTES),
                JobReport.RAILYARD_BYTES_PER_TASK,
                ReportTable.humanBytes(report.heap().flinkBytes()),
                JobReport.FLINK_BYTES_PER_TASK);
    }

    /** The report as a JSON document; bytes as numbers of bytes. */
    static ObjectNode json(JobReport report) {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        ObjectNode root = nodes.objectNode();
        ArrayNode vertices = root.putArray("vertices");
        for (JobReport.Vertex v : report.vertices()) {
            vertices.addObject()
                    .put("name", v.name())
                    .put("parallelism", v.parallelism())
                    .put("inputs", v.inputs())
                    .put("regions", v.regions());
        }
        ArrayNode edges = root.putArray("edges");
        for (JobReport.Edge e : report.edges()) {
            edges.addObject()
                    .put("producer", e.producer())
                    .put("consumer", e.consumer())
                    .put("pattern", e.pattern().name())
                    .put("type", e.type().name())
                    .put("consumer_groups", e.groups())
                    .put("connections", e.connections());
        }
        root.put("consumer_groups", report.consumerGroups());
        ArrayNode failover = root.putArray("regions");
        for (JobReport.Failover f : report.failover()) {
            failover.addObject()
                    .put("exchanges", f.mode().key())
                    .put("regions", f.regions())
                    .put("largest_region_tasks", f.largestRegionTasks())
                    .put("largest_region_has", f.largestRegion())
                    .put("largest_restart_tasks", f.largestRestartTasks())
                    .put("largest_restart_when_fails", f.largestRestartWhenFails());
        }
        JobReport.Deployment d = report.deployment();
        root.putObject("deployment")
                .put("workers", d.workers())
                .put("descriptor_bytes", d.descriptorBytes())
                .put("largest_descriptor_bytes", d.largestDescriptorBytes())
                .put("offloaded_groups", d.offloadedGroups())
                .put("offloaded_bytes", d.offloadedBytes())
                .put("fetched_bytes", d.fetchedBytes())
                .put("workers_reached", d.workersReached())
                .put("mean_worker_bytes", Math.round(d.meanWorkerBytes()))
                .put("max_worker_bytes", d.maxWorkerBytes());
        root.putObject("jobmanager_heap_estimate")
                .put("railyard_bytes", report.heap().railyardBytes())
                .put("flink_bytes", report.heap().flinkBytes())
                .put("railyard_bytes_per_task", JobReport.RAILYARD_BYTES_PER_TASK)
                .put("flink_bytes_per_task", JobReport.FLINK_BYTES_PER_TASK);
        return root;
    }

    private static long taskCount(JobReport report) {
        long tasks = 0;
        for (JobReport.Vertex v : report.vertices()) {
            tasks += v.parallelism();
        }
        return tasks;
    }
}
