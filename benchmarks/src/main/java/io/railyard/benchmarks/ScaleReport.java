package io.railyard.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.groups.ExecutionTopology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.openjdk.jol.info.GraphLayout;

/**
 * The scale report: every procedure measured on the reference job (source → sink, ALL_TO_ALL,
 * BLOCKING) at one parallelism, beside the figures Flink published for P = 10,000.
 *
 * <p>Procedures are timed in this process after warm-up (median of samples, see {@link Timing});
 * memory is the retained size of the structure as JOL walks it (every object reachable from it,
 * names and enum constants included). Later issues add procedures and sections; the JSON keys are
 * stable.
 *
 * @param parallelism parallelism of source and sink
 * @param buildTopologyMillis median time to build the job graph and its execution topology
 * @param topologyBytes retained bytes of the execution topology and its job graph
 * @param connections task-level connections the topology stands for
 */
public record ScaleReport(
        int parallelism, double buildTopologyMillis, long topologyBytes, long connections) {

    /** Runs every procedure at {@code parallelism} and measures its footprint. */
    public static ScaleReport measure(int parallelism) {
        double buildMillis = Timing.medianMillis(i -> BuildTopology.run(parallelism));
        ExecutionTopology topology = BuildTopology.run(parallelism);
        long bytes = retainedBytes(topology);
        long connections = 0;
        for (int g = 0; g < topology.numGroups(); g++) {
            connections += topology.numConnections(g);
        }
        return new ScaleReport(parallelism, buildMillis, bytes, connections);
    }

    /** Bytes of every object reachable from {@code root}, as JOL counts them. */
    static long retainedBytes(Object root) {
        return GraphLayout.parseInstance(root).totalSize();
    }

    /** The report as the JSON document of the README's main command. */
    public ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode root = mapper.createObjectNode();
        root.put("parallelism", parallelism);
        ObjectNode job = root.putObject("job");
        job.put("shape", "source -> sink, ALL_TO_ALL, BLOCKING");
        job.put("connections", connections);
        root.putObject("procedures").putObject("build_topology").put("ms", buildTopologyMillis);
        root.putObject("memory").put("topology", topologyBytes);
        ObjectNode machine = root.putObject("machine");
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        machine.put(
                "java",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        machine.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
        return root;
    }

    /** Writes {@link #toJson} to {@code path}, pretty-printed. */
    public void writeJson(Path path) throws IOException {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        mapper.writeValue(path.toFile(), toJson(mapper));
    }

    /** The report as a table for people, with Flink's published figures for P = 10,000. */
    public String toTable() {
        StringBuilder out = new StringBuilder();
        out.append(
                String.format(
                        Locale.ROOT,
                        "Railyard scale report: source -> sink, P = %,d, ALL_TO_ALL BLOCKING"
                                + " (%,d connections)%n",
                        parallelism,
                        connections));
        out.append(
                String.format(
                        Locale.ROOT,
                        "machine: %d cores, %s %s, %s %s%n%n",
                        Runtime.getRuntime().availableProcessors(),
                        System.getProperty("os.name"),
                        System.getProperty("os.arch"),
                        System.getProperty("java.vm.name"),
                        System.getProperty("java.version")));
        String row = "%-34s %16s %16s %16s%n";
        out.append(
                String.format(
                        Locale.ROOT, row, "procedure", "Railyard", "Flink 1.12*", "Flink 1.14*"));
        out.append(
                String.format(
                        Locale.ROOT,
                        row,
                        "build topology + groups",
                        humanMillis(buildTopologyMillis),
                        "-",
                        "-"));
        out.append(
                String.format(
                        Locale.ROOT,
                        row,
                        "  (job initialization, published)",
                        "",
                        "11,431 ms",
                        "627 ms"));
        out.append(
                String.format(
                        Locale.ROOT,
                        row,
                        "topology memory (retained)",
                        humanBytes(topologyBytes),
                        "> 4 GiB",
                        "~12 MiB"));
        out.append(
                String.format(
                        Locale.ROOT,
                        "%n* published by Flink for P = 10,000 (Flink blog on scheduler"
                                + " performance); not measured here. Flink's job initialization"
                                + " also builds pipelined regions, which Railyard adds in a later"
                                + " procedure.%n"));
        return out.toString();
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
