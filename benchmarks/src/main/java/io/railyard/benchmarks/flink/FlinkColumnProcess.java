package io.railyard.benchmarks.flink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.benchmarks.procedures.ScaleReport;
import io.railyard.benchmarks.procedures.Timing;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The live Flink column of {@code report --with-flink}, measured in a JVM of its own: this process
 * starts {@code java} with its own JVM options, class path and report warm-up ({@link
 * Timing#WARMUP_PROPERTY}) on the hidden {@code flink-column} command, which runs {@link
 * FlinkColumnMeasurer} and prints one line per step ({@value #STEP} name) and the column as one
 * JSON line ({@value #COLUMN} json). Neither side's procedures are compiled in a JVM where the
 * other side's ran, so neither pays for the other's JIT profile; the child's stderr goes to this
 * process's stderr.
 *
 * <p>Stateless; {@link #measure} blocks until the child ends. The wire format is this class's alone
 * ({@link #print} writes it, {@link #parse} reads it).
 */
public final class FlinkColumnProcess {
    /** The hidden command the child runs. */
    public static final String COMMAND = "flink-column";

    static final String STEP = "step ";
    static final String COLUMN = "column ";
    private static final ObjectMapper JSON = new ObjectMapper();

    private FlinkColumnProcess() {}

    /**
     * Measures Flink's column at {@code parallelism} in a child JVM; {@code progress} hears each of
     * its {@link FlinkColumnMeasurer#STEPS} steps.
     *
     * @throws IOException if the child cannot be started or read
     * @throws IllegalStateException if the child failed or printed no column (its stderr says why)
     */
    public static ScaleReport.FlinkColumn measure(int parallelism, Consumer<String> progress)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        String warmup = System.getProperty(Timing.WARMUP_PROPERTY); // may be set after start
        if (warmup != null) {
            command.add("-D" + Timing.WARMUP_PROPERTY + "=" + warmup);
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("io.railyard.benchmarks.cli.Main");
        command.add(COMMAND);
        command.add("--parallelism");
        command.add(Integer.toString(parallelism));
        Process child =
                new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        ScaleReport.FlinkColumn column = null;
        try (BufferedReader lines =
                new BufferedReader(
                        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.startsWith(STEP)) {
                    progress.accept(line.substring(STEP.length()));
                } else if (line.startsWith(COLUMN)) {
                    column = parse(line.substring(COLUMN.length()));
                }
            }
        } finally {
            if (child.isAlive()) {
                child.destroyForcibly(); // reading failed: leave no JVM behind
            }
        }
        int exit = child.waitFor();
        if (exit != 0 || column == null) {
            throw new IllegalStateException(
                    "measuring Flink in its own JVM failed (exit code "
                            + exit
                            + (column == null ? ", no column printed" : "")
                            + "; its errors are above)");
        }
        return column;
    }

    /** Runs {@link FlinkColumnMeasurer} here and prints its steps and column to {@code out}. */
    public static void print(int parallelism, java.io.PrintWriter out) throws Exception {
        ScaleReport.FlinkColumn column =
                FlinkColumnMeasurer.measure(
                        parallelism,
                        step -> {
                            out.println(STEP + step);
                            out.flush();
                        });
        ObjectNode node = JSON.createObjectNode();
        node.put("version", column.version());
        ObjectNode millis = node.putObject("millis");
        column.millis().forEach(millis::put);
        node.put("graph_bytes", column.graphBytes());
        out.println(COLUMN + JSON.writeValueAsString(node));
        out.flush();
    }

    /** The column {@link #print} wrote as {@code json}. */
    static ScaleReport.FlinkColumn parse(String json) throws IOException {
        JsonNode node = JSON.readTree(json);
        Map<String, Double> millis = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : node.get("millis").properties()) {
            millis.put(entry.getKey(), entry.getValue().asDouble());
        }
        return new ScaleReport.FlinkColumn(
                node.get("version").asText(), millis, node.get("graph_bytes").asLong());
    }

    private static String javaExecutable() {
        @Nullable String running = ProcessHandle.current().info().command().orElse(null);
        return running != null
                ? running
                : Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
