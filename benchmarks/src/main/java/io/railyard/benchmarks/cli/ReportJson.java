package io.railyard.benchmarks.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.benchmarks.procedures.DeployProcedures;
import io.railyard.benchmarks.procedures.ScaleReport;
import io.railyard.benchmarks.procedures.ShuffleThroughput;
import io.railyard.benchmarks.procedures.TimeToRunning;
import io.railyard.deployment.SliceBudget;
import java.util.List;
import java.util.Map;

/**
 * The scale report as the JSON document of the README's main command ({@code report --json}). The
 * keys are stable; sections are added, never renamed.
 */
final class ReportJson {
    private ReportJson() {}

    /** The document of {@code report}; shuffle failures name the options in {@code names}. */
    static ObjectNode of(ScaleReport report, ShuffleChecks.Names names) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.put("parallelism", report.parallelism());
        ObjectNode job = root.putObject("job");
        job.put("shape", "source -> sink, ALL_TO_ALL, BLOCKING");
        job.put("connections", report.connections());
        job.put("regions", report.numRegions());
        ObjectNode procedures = root.putObject("procedures");
        for (ScaleReport.Procedure procedure : report.procedures()) {
            ObjectNode node = procedures.putObject(procedure.key()).put("ms", procedure.millis());
            if (procedure.key().equals("tasks_to_restart")) {
                node.put("tasks", report.restartedTasks());
            }
        }
        List<TimeToRunning.Result> runs = report.timeToRunning();
        if (!runs.isEmpty()) {
            // The last (largest asked) at the top; every parallelism measured under "runs".
            TimeToRunning.Result last = runs.get(runs.size() - 1);
            ObjectNode running =
                    procedures
                            .putObject("time_to_running")
                            .put("ms", last.millis())
                            .put("parallelism", last.parallelism())
                            .put("shape", "source -> sink, ALL_TO_ALL, PIPELINED, no-op tasks");
            ArrayNode all = running.putArray("runs");
            for (TimeToRunning.Result run : runs) {
                all.addObject().put("parallelism", run.parallelism()).put("ms", run.millis());
            }
        }
        deployment(root.putObject("deployment"), report);
        ObjectNode memory = root.putObject("memory");
        report.memory().forEach(memory::put);
        long initialized = report.memory().getOrDefault("initialized", 0L);
        memory.put("initialized_bytes_per_task", initialized / (2.0 * report.parallelism()));
        ObjectNode perTask = memory.putObject("bytes_per_task");
        report.memory()
                .forEach((key, bytes) -> perTask.put(key, bytes / (2.0 * report.parallelism())));
        ScaleReport.FlinkColumn flink = report.flink();
        if (flink != null) {
            ObjectNode flinkNode = root.putObject("flink");
            flinkNode.put("version", flink.version());
            ObjectNode flinkProcedures = flinkNode.putObject("procedures");
            for (Map.Entry<String, Double> entry : flink.millis().entrySet()) {
                flinkProcedures.putObject(entry.getKey()).put("ms", entry.getValue());
            }
            flinkNode.putObject("memory").put("graph", flink.graphBytes());
        }
        ShuffleThroughput.Result shuffle = report.shuffle();
        if (shuffle != null) {
            ShuffleTable.putJson(root.putObject("shuffle"), shuffle, names);
        }
        machine(root.putObject("machine"));
        return root;
    }

    private static void deployment(ObjectNode node, ScaleReport report) {
        DeployProcedures.Shipped shipped = report.shipped();
        node.put("sink_descriptor_bytes", shipped.sinkDescriptorBytes());
        node.put("shared_group_bytes", shipped.sharedGroupBytes());
        node.put("shared_group_raw_bytes", shipped.sharedGroupRawBytes());
        node.put("shared_group_descriptors", shipped.sharedGroupDescriptors());
        node.put("total_shipped_bytes", shipped.totalBytes());
        node.put("workers", DeployProcedures.WORKERS);
        node.put("decode_group_ms", report.decodeGroupMillis());
        shapes(node, report);
    }

    /** Issue 18: the sliced "deploy all", bytes per worker, and the worker-set shape beside. */
    private static void shapes(ObjectNode node, ScaleReport report) {
        DeployProcedures.Shipped shipped = report.shipped();
        node.put("mean_worker_bytes", shipped.meanWorkerBytes());
        node.put("max_worker_bytes", shipped.maxWorkerBytes());
        DeployProcedures.Shapes shapes = report.shapes();
        DeployProcedures.Sliced sliced = shapes.sliced();
        node.put("deploy_all_longest_slice_ms", sliced.longestSliceNanos() / 1e6);
        node.put(
                "deploy_all_longest_slice_without_group_ms",
                sliced.longestSliceWithoutGroupNanos() / 1e6);
        node.put("deploy_all_slices", sliced.slices());
        node.put("deploy_all_slice_budget_tasks", SliceBudget.DEFAULT.maxTasks());
        node.put("deploy_all_slice_budget_ms", SliceBudget.DEFAULT.maxNanos() / 1e6);
        DeployProcedures.Shipped workerSet = shapes.workerSet();
        ObjectNode set = node.putObject("worker_set_shape");
        set.put("group_bytes", workerSet.sharedGroupBytes());
        set.put("group_workers", workerSet.sharedGroupDescriptors());
        set.put("sink_descriptor_bytes", workerSet.sinkDescriptorBytes());
        set.put("total_shipped_bytes", workerSet.totalBytes());
        set.put("mean_worker_bytes", workerSet.meanWorkerBytes());
        set.put("max_worker_bytes", workerSet.maxWorkerBytes());
    }

    /** The machine the numbers were measured on. */
    static void machine(ObjectNode node) {
        node.put("cores", Runtime.getRuntime().availableProcessors());
        node.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        node.put(
                "java",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        node.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
    }
}
