package io.railyard.benchmarks.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.benchmarks.flink.FlinkColumnMeasurer;
import io.railyard.benchmarks.procedures.MemoryTable;
import io.railyard.benchmarks.procedures.RunningFootprint;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code memory}: the JOL memory table of the initialised state, every shape and parallelism. */
@Command(
        name = "memory",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description =
                "Prints the retained bytes (JOL) of Railyard's initialised JobManager state for every"
                        + " job shape, and bytes per task; then a worker's heap with the PIPELINED"
                        + " reference job running, per task and per connection.")
final class MemoryCommand implements Callable<Integer> {
    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    private CommandSpec spec;

    @Mixin private OutputOptions output = new OutputOptions();

    @Option(
            names = "--parallelism",
            paramLabel = "P[,P...]",
            split = ",",
            description =
                    "parallelisms to measure, comma-separated, each 1..16777216 (default:"
                            + " 1000,4000,10000)")
    private List<Integer> parallelisms = MemoryTable.PARALLELISMS;

    @Option(
            names = "--with-flink",
            description = "also measure Flink 2.x's initialised execution graph (large heap)")
    private boolean withFlink;

    @Option(
            names = "--running-parallelism",
            paramLabel = "P[,P...]",
            split = ",",
            description =
                    "parallelisms at which to measure a worker's heap with all 2P tasks of the"
                            + " PIPELINED reference job running, each 1.."
                            + MAX_RUNNING_PARALLELISM
                            + ", or 0 alone to skip (default: 1000,10000)")
    private List<Integer> runningParallelism = List.of(1000, 10_000);

    /** Largest --running-parallelism: 2P tasks on one worker, P² connections. */
    static final int MAX_RUNNING_PARALLELISM = 20_000;

    @Override
    public Integer call() throws Exception {
        OptionChecks.parallelisms(spec, "--parallelism", parallelisms);
        boolean running =
                OptionChecks.parallelismsOrSkip(
                        spec, "--running-parallelism", runningParallelism, MAX_RUNNING_PARALLELISM);
        OutputFile json = output.check(spec);
        JolOutput.keepOffStdout();
        List<MemoryTable.Row> rows =
                MemoryTable.measure(
                        parallelisms, withFlink ? FlinkColumnMeasurer::retainedGraphBytes : null);
        PrintWriter out = spec.commandLine().getOut();
        out.print(MemoryTableText.render(rows));
        out.flush();
        List<RunningFootprint.Result> footprints = new ArrayList<>();
        if (running) {
            Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
            for (int p : runningParallelism) {
                footprints.add(JolOutput.offStdout(() -> RunningFootprint.measure(p, tmp)));
            }
            out.print(MemoryTableText.renderRunning(footprints));
            out.flush();
        }
        if (json != null) {
            json.writeJson(document(rows, footprints), out);
        }
        return 0;
    }

    private static ObjectNode document(
            List<MemoryTable.Row> rows, List<RunningFootprint.Result> footprints) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode array = root.putArray("rows");
        for (MemoryTable.Row row : rows) {
            ObjectNode node = array.addObject();
            node.put("shape", row.shape().name());
            node.put("parallelism", row.parallelism());
            node.put("tasks", row.tasks());
            node.put("railyard_bytes", row.railyardBytes());
            if (row.flinkBytes() >= 0) {
                node.put("flink_bytes", row.flinkBytes());
            }
        }
        ArrayNode running = root.putArray("running");
        for (RunningFootprint.Result r : footprints) {
            running.addObject()
                    .put("parallelism", r.parallelism())
                    .put("tasks", r.tasks())
                    .put("connections", r.connections())
                    .put("idle_bytes", r.idleBytes())
                    .put("running_bytes", r.runningBytes())
                    .put("bytes_per_task", r.bytesPerTask())
                    .put("bytes_per_connection", r.bytesPerConnection());
        }
        ReportJson.machine(root.putObject("machine"));
        return root;
    }
}
