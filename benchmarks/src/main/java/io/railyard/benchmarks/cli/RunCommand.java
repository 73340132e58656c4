package io.railyard.benchmarks.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.benchmarks.inspect.JobFile;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.local.ForwardingJob;
import io.railyard.shuffle.local.JobResult;
import io.railyard.shuffle.local.LocalEngine;
import io.railyard.shuffle.local.Tally;
import io.railyard.topology.JobGraph;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code run}: runs a job graph file (the format of {@code inspect}) on the local execution engine
 * — workers with slots and shuffle layers in this process, scheduled by the JobManager core — with
 * the built-in forwarding logic ({@link ForwardingJob}): sources generate records, every task
 * forwards what it reads, sinks count. Prints a summary and, with {@code --json}, a document with
 * {@code records_in} / {@code checksum_in} (what the sinks must receive: every source record once
 * per path to a sink) beside {@code records_out} / {@code checksum_out} (what they committed),
 * equal when delivery was exact, and {@code leaked_pages} / {@code leaked_files}, 0 after every
 * run. A job that ends FAILED exits 1 with its cause in one line; bad options and job files exit 2.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = {
            "Runs a job graph file on the local execution engine (N workers x S slots in this"
                    + " process): sources generate --records records each, every task forwards"
                    + " what it reads (keyed exchanges on all-to-all edges), sinks count; checks"
                    + " that the sinks received every record exactly once and that no page, file"
                    + " or partition is left.",
            "File: as for 'inspect'."
        })
final class RunCommand implements Callable<Integer> {
    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    private CommandSpec spec;

    @Mixin private OutputOptions output = new OutputOptions();

    @Option(
            names = "--job",
            paramLabel = "FILE",
            required = true,
            description = "the job graph, JSON of at most 16 MiB")
    @SuppressWarnings("NullAway.Init") // required: set by picocli before call()
    private Path job;

    @Option(
            names = "--workers",
            paramLabel = "N",
            description = "workers, 1..256 (default ${DEFAULT-VALUE})")
    private int workers = 2;

    @Option(
            names = "--slots",
            paramLabel = "S",
            description = "slots per worker, 1..4096 (default ${DEFAULT-VALUE})")
    private int slots = 8;

    @Option(
            names = "--records",
            paramLabel = "N",
            description = "records per source subtask, 0..1000000000 (default ${DEFAULT-VALUE})")
    private long records = 10_000;

    @Option(
            names = "--record-bytes",
            paramLabel = "BYTES",
            description = "bytes per record, 8..1048576 (default ${DEFAULT-VALUE})")
    private int recordBytes = 64;

    @Option(
            names = "--shuffle",
            paramLabel = "sort|hash",
            description = "how BLOCKING results are written (default ${DEFAULT-VALUE})")
    private String shuffle = "sort";

    @Option(
            names = "--fail-rate",
            paramLabel = "R",
            description =
                    "each task attempt fails with probability R, 0..1, at a random record"
                            + " (default ${DEFAULT-VALUE})")
    private double failRate;

    @Option(
            names = "--max-restarts",
            paramLabel = "N",
            description = "restarts before the job fails, 0..1000000 (default ${DEFAULT-VALUE})")
    private int maxRestarts = 100;

    @Option(
            names = "--seed",
            paramLabel = "X",
            description = "seed of the records and the failures (default ${DEFAULT-VALUE})")
    private long seed = 1;

    @Option(
            names = "--memory-mib",
            paramLabel = "MIB",
            description = "network memory per worker in MiB, 1..65536 (default ${DEFAULT-VALUE})")
    private int memoryMib = 64;

    @Option(
            names = "--timeout-s",
            paramLabel = "SECONDS",
            description = "give up after this long, 1..86400 (default ${DEFAULT-VALUE})")
    private int timeoutSeconds = 600;

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "an existing directory for the files (default: java.io.tmpdir)")
    private Path directory = Path.of(System.getProperty("java.io.tmpdir"));

    @Override
    public Integer call() throws Exception {
        OptionChecks.range(spec, "--workers", workers, 1, 256);
        OptionChecks.range(spec, "--slots", slots, 1, 4096);
        OptionChecks.range(spec, "--records", records, 0, 1_000_000_000);
        OptionChecks.range(spec, "--record-bytes", recordBytes, 8, 1 << 20);
        OptionChecks.range(spec, "--max-restarts", maxRestarts, 0, 1_000_000);
        OptionChecks.range(spec, "--memory-mib", memoryMib, 1, 65_536);
        OptionChecks.range(spec, "--timeout-s", timeoutSeconds, 1, 86_400);
        if (!(failRate >= 0 && failRate <= 1)) {
            throw OptionChecks.usage(spec, "--fail-rate must be in [0, 1], was " + failRate);
        }
        LocalEngine.BlockingShuffle blocking = blocking(shuffle);
        ShuffleChecks.checkDirectory(spec, "--dir", directory);
        OutputFile json = output.check(spec);
        JobGraph graph = JobFile.read(job);
        try {
            LocalEngine.checkRunnable(graph);
        } catch (IllegalArgumentException e) {
            throw OptionChecks.usage(spec, "--job " + job + ": " + e.getMessage());
        }
        ForwardingJob logic = ForwardingJob.of(graph, records, recordBytes, seed);
        if (failRate > 0) {
            logic = logic.failingAtRate(failRate);
        }
        ShuffleOptions options =
                ShuffleOptions.builder().totalMemoryBytes((long) memoryMib << 20).build();
        JobResult result;
        try (LocalEngine engine = new LocalEngine(directory, workers, slots, options, blocking)) {
            result =
                    engine.run(
                            graph,
                            logic,
                            maxRestarts == 0
                                    ? RestartBackoffPolicy.noRestart()
                                    : RestartBackoffPolicy.fixedDelay(maxRestarts, Duration.ZERO),
                            Duration.ofSeconds(timeoutSeconds));
        }
        Tally expected = expectedAtSinks(graph, logic);
        PrintWriter out = spec.commandLine().getOut();
        printSummary(out, result, expected);
        if (json != null) {
            json.writeJson(document(result, expected), out);
        }
        Throwable cause = result.cause();
        if (result.state() == JobResult.State.FAILED) {
            String line = "the job failed: " + OneLine.of(String.valueOf(cause));
            throw cause == null ? new CommandFailure(line) : new CommandFailure(line, cause);
        }
        return ExitCode.OK;
    }

    private LocalEngine.BlockingShuffle blocking(String value) {
        return switch (value) {
            case "sort" -> LocalEngine.BlockingShuffle.SORT;
            case "hash" -> LocalEngine.BlockingShuffle.HASH;
            default ->
                    throw OptionChecks.usage(
                            spec, "--shuffle must be 'sort' or 'hash', was '" + value + "'");
        };
    }

    /** What the sink vertices must receive together. */
    private static Tally expectedAtSinks(JobGraph graph, ForwardingJob logic) {
        Tally[] received = logic.expectedReceived();
        Tally total = Tally.ZERO;
        for (int v = 0; v < graph.numJobVertices(); v++) {
            if (graph.numProducedDataSets(v) == 0) {
                total = total.plus(received[v]);
            }
        }
        return total;
    }

    private static void printSummary(PrintWriter out, JobResult result, Tally expected) {
        double seconds = result.wallNanos() / 1e9;
        Tally got = result.committedTotal();
        out.printf(
                Locale.ROOT,
                "%s in %.0f ms: %,d of %,d records at the sinks (%s), %,.0f records/s;"
                        + " %d restarts, %,d task attempts deployed; left behind: %d pages,"
                        + " %d files%n",
                result.state(),
                result.wallNanos() / 1e6,
                got.records(),
                expected.records(),
                got.equals(expected) ? "exact" : "NOT exact",
                seconds > 0 ? got.records() / seconds : 0.0,
                result.restarts(),
                result.tasksDeployed(),
                result.leakedPages(),
                result.leakedFiles());
        out.flush();
    }

    private static ObjectNode document(JobResult result, Tally expected) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        Tally got = result.committedTotal();
        root.put("state", result.state().name());
        if (result.cause() != null) {
            root.put("cause", OneLine.of(String.valueOf(result.cause())));
        }
        root.put("records_in", expected.records());
        root.put("records_out", got.records());
        root.put("checksum_in", Long.toHexString(expected.checksum()));
        root.put("checksum_out", Long.toHexString(got.checksum()));
        root.put("restarts", result.restarts());
        root.put("tasks_deployed", result.tasksDeployed());
        root.put("wall_ms", result.wallNanos() / 1e6);
        root.put("leaked_pages", result.leakedPages());
        root.put("leaked_files", result.leakedFiles());
        root.put("partitions_left", result.partitionsLeft());
        return root;
    }
}
