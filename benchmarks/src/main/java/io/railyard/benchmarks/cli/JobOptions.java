package io.railyard.benchmarks.cli;

import io.railyard.benchmarks.inspect.JobDocument;
import io.railyard.benchmarks.inspect.JobFileException;
import io.railyard.topology.JobGraph;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The job a command reads (a picocli mixin of {@code inspect}, {@code simulate} and {@code run}):
 * {@code --job FILE}, a Railyard job file or a plan Flink publishes ({@link JobDocument}); {@code
 * --format} to say which instead of telling by content; {@code --vertex-parallelism NAME=P} for a
 * plan's vertices. What reading a plan had to assume goes to stderr, one {@code warning:} line
 * each.
 */
final class JobOptions {
    @Option(
            names = "--job",
            paramLabel = "FILE",
            required = true,
            description =
                    "the job: a Railyard job file, or a plan Flink publishes (the output of curl"
                            + " …/jobs/<id>/plan, …/jobs/<id> or …/jars/<id>/plan); JSON of at"
                            + " most 16 MiB")
    @SuppressWarnings("NullAway.Init") // required: set by picocli before call()
    private Path job;

    @Option(
            names = "--format",
            paramLabel = "auto|railyard|flink-plan",
            description =
                    "what --job is; auto (default) tells by content: a document with a top-level"
                            + " \"plan\" or \"nodes\" is a Flink plan")
    private String format = "auto";

    @Option(
            names = "--vertex-parallelism",
            paramLabel = "NAME=P",
            description =
                    "a Flink plan's vertex NAME (its name as printed, or its Flink id) at"
                            + " parallelism P, 1..16777216; repeatable. Needed for a vertex whose"
                            + " plan says -1 (decided at run time) unless the document gives its"
                            + " maxParallelism")
    private Map<String, String> vertexParallelism = new LinkedHashMap<>();

    /** The job file's path, as given. */
    Path path() {
        return job;
    }

    /**
     * Reads the job: checks {@code --format} and {@code --vertex-parallelism} first (usage errors),
     * then the document; prints the plan's warnings to the command's stderr.
     *
     * @throws JobFileException if the document is bad (the JSON path, the value, what is allowed)
     */
    JobDocument.Read read(CommandSpec spec) throws JobFileException {
        JobDocument.Format kind = format(spec);
        Map<String, Integer> parallelism = new LinkedHashMap<>();
        for (Map.Entry<String, String> entry : vertexParallelism.entrySet()) {
            parallelism.put(entry.getKey(), parallelism(spec, entry.getKey(), entry.getValue()));
        }
        JobDocument.Read read = JobDocument.read(job, kind, parallelism);
        PrintWriter err = spec.commandLine().getErr();
        for (String warning : read.warnings()) {
            err.println("warning: " + warning);
        }
        err.flush();
        return read;
    }

    private JobDocument.Format format(CommandSpec spec) {
        for (JobDocument.Format kind : JobDocument.Format.values()) {
            if (kind.optionValue().equals(format)) {
                return kind;
            }
        }
        throw OptionChecks.usage(
                spec, "--format must be auto, railyard or flink-plan, was '" + format + "'");
    }

    private static int parallelism(CommandSpec spec, String name, String value) {
        String allowed = "an integer in [1, " + JobGraph.MAX_PARALLELISM + "]";
        int parsed;
        try {
            parsed = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw OptionChecks.usage(
                    spec, "--vertex-parallelism " + name + "=" + value + ": P must be " + allowed);
        }
        if (parsed < 1 || parsed > JobGraph.MAX_PARALLELISM) {
            throw OptionChecks.usage(
                    spec,
                    "--vertex-parallelism "
                            + name
                            + "="
                            + value
                            + ": P must be "
                            + allowed
                            + ", was "
                            + parsed);
        }
        return parsed;
    }
}
