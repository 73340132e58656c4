package io.railyard.benchmarks.cli;

import io.railyard.benchmarks.inspect.JobFile;
import io.railyard.benchmarks.inspect.JobFileException;
import io.railyard.benchmarks.procedures.JobReport;
import io.railyard.deployment.WorkerTable;
import io.railyard.failover.PartitionAvailability;
import io.railyard.topology.JobGraph;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code inspect}: the pipelined regions of a job graph read from a JSON file and, with {@code
 * --fail}, the tasks to restart when one task fails. Prints one line of JSON:
 *
 * <pre>{@code
 * {"regions":[["a#0","b#0"],["a#1","b#1"]],"restart":["a#0","b#0"]}
 * }</pre>
 *
 * <p>A task is {@code name#subtask} (0-based). Tasks within a region, the regions (by their sorted
 * task lists, element by element) and the restart set are sorted in plain {@link String} order, so
 * the output depends only on the job, not on the order of the file. {@code restart} is present only
 * with {@code --fail}.
 *
 * <p>Bad input, in the file ({@link JobFile}) or in an option, is one line on stderr naming the
 * JSON path or the option, and exit code 2. The output is written by {@link InspectOutput}, in O(T
 * log T) for T tasks, at most {@link JobFile#MAX_TASKS}.
 */
@Command(
        name = "inspect",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = {
            "Prints the pipelined regions of a job graph file as JSON and, with --fail, the tasks"
                    + " to restart when a task fails.",
            "File: {\"vertices\":[{\"name\":\"a\",\"parallelism\":2}], \"edges\":[{\"source\":"
                    + "\"a\",\"target\":\"b\",\"pattern\":\"POINTWISE\",\"type\":\"PIPELINED\"}]}"
                    + " with patterns ALL_TO_ALL, POINTWISE and types PIPELINED,"
                    + " PIPELINED_BOUNDED, BLOCKING, HYBRID_FULL, HYBRID_SELECTIVE. A vertex"
                    + " without inputs may also give \"records_per_subtask\" and \"skew\" (for"
                    + " run); they are checked and ignored here."
        })
final class InspectCommand implements Callable<Integer> {
    private static final Pattern TASK = Pattern.compile("(.+)#(0|[1-9][0-9]{0,8})");

    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    private CommandSpec spec;

    @Mixin private JobOptions job = new JobOptions();

    @Option(
            names = "--fail",
            paramLabel = "NAME#I",
            description = "also print the tasks to restart when subtask I (0-based) of NAME fails")
    private @Nullable String fail;

    @Option(
            names = "--available",
            paramLabel = "all|none",
            defaultValue = "all",
            description =
                    "with --fail: every re-consumable partition is available (all) or none is"
                            + " (none); default: ${DEFAULT-VALUE}")
    private String available = "all";

    @Option(
            names = "--report",
            description =
                    "print what the job will cost instead: vertices, edges, consumer groups,"
                            + " regions and the largest restart set (as declared, all blocking,"
                            + " all hybrid), what deployment ships to --workers, and the"
                            + " JobManager heap beside Flink's")
    private boolean report;

    @Option(
            names = "--workers",
            paramLabel = "N",
            description =
                    "with --report: the workers the tasks are deployed to, 1..1048576 (default"
                            + " ${DEFAULT-VALUE})")
    private int workers = JobReport.DEFAULT_WORKERS;

    @Mixin private OutputOptions output = new OutputOptions();

    @Override
    public Integer call() throws JobFileException, IOException {
        PartitionAvailability availability = availability(available);
        @Nullable Matcher failed = fail == null ? null : parseTask(fail);
        if (report) {
            if (fail != null) {
                throw OptionChecks.usage(
                        spec, "--fail and --report are separate questions: give one");
            }
            OptionChecks.range(spec, "--workers", workers, 1, WorkerTable.MAX_WORKERS);
            OutputFile json = output.check(spec);
            JobGraph graph = job.read(spec).contents().graph();
            JobReport costs = JobReport.of(graph, workers);
            PrintWriter out = spec.commandLine().getOut();
            InspectReportOutput.table(costs, out);
            if (json != null) {
                json.writeJson(InspectReportOutput.json(costs), out);
            }
            return ExitCode.OK;
        }
        if (workers != JobReport.DEFAULT_WORKERS || output.isGiven()) {
            throw OptionChecks.usage(spec, "--workers and --json go with --report");
        }
        JobGraph graph = job.read(spec).contents().graph();
        int failedTask = failed == null ? -1 : resolveTask(graph, failed);
        PrintWriter out = spec.commandLine().getOut();
        InspectOutput.write(graph, failedTask, availability, out);
        out.println();
        out.flush();
        return ExitCode.OK;
    }

    private static PartitionAvailability availability(String value) throws JobFileException {
        return switch (value) {
            case "all" -> PartitionAvailability.all();
            case "none" -> PartitionAvailability.none();
            default ->
                    throw new JobFileException(
                            "--available", "must be 'all' or 'none', was '" + value + "'");
        };
    }

    private static Matcher parseTask(String value) throws JobFileException {
        Matcher task = TASK.matcher(value);
        if (!task.matches()) {
            throw new JobFileException(
                    "--fail",
                    "must be NAME#I, a job vertex name and a 0-based subtask index such as"
                            + " 'source#0', was '"
                            + value
                            + "'");
        }
        return task;
    }

    private static int resolveTask(JobGraph graph, Matcher task) throws JobFileException {
        String name = task.group(1);
        int subtask = Integer.parseInt(task.group(2));
        OptionalInt vertex = graph.findVertex(name);
        if (vertex.isEmpty()) {
            List<String> names = new ArrayList<>();
            for (int v = 0; v < graph.numJobVertices(); v++) {
                names.add(graph.vertexName(v));
            }
            throw new JobFileException(
                    "--fail " + task.group(),
                    "unknown job vertex '" + name + "'; known: " + JobFile.sample(names));
        }
        int parallelism = graph.parallelism(vertex.getAsInt());
        if (subtask >= parallelism) {
            throw new JobFileException(
                    "--fail " + task.group(),
                    String.format(
                            "job vertex '%s' has parallelism %d, so the subtask index must be in"
                                    + " [0, %d], was %d",
                            name, parallelism, parallelism - 1, subtask));
        }
        return graph.task(vertex.getAsInt(), subtask);
    }
}
