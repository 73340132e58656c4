package io.railyard.benchmarks.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.benchmarks.flink.FlinkColumnMeasurer;
import io.railyard.benchmarks.procedures.MemoryTable;
import java.io.PrintWriter;
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
                        + " job shape, and bytes per task.")
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

    @Override
    public Integer call() throws Exception {
        OptionChecks.parallelisms(spec, "--parallelism", parallelisms);
        OutputFile json = output.check(spec);
        JolOutput.keepOffStdout();
        List<MemoryTable.Row> rows =
                MemoryTable.measure(
                        parallelisms, withFlink ? FlinkColumnMeasurer::retainedGraphBytes : null);
        PrintWriter out = spec.commandLine().getOut();
        out.print(MemoryTableText.render(rows));
        out.flush();
        if (json != null) {
            json.writeJson(document(rows), out);
        }
        return 0;
    }

    private static ObjectNode document(List<MemoryTable.Row> rows) {
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
        ReportJson.machine(root.putObject("machine"));
        return root;
    }
}
