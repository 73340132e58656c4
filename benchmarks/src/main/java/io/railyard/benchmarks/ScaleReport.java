package io.railyard.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.deployment.GroupDescriptors;
import io.railyard.deployment.OffloadOptions;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
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
 * @param buildRegionsMillis median time to build the pipelined regions of that topology
 * @param initSchedulingMillis median time to initialise the region scheduling strategy
 * @param scheduleDownstreamMillis median time to deploy every sink region when the last source task
 *     finishes
 * @param tasksToRestartMillis median time to compute the tasks to restart when one source task
 *     fails, every blocking partition available
 * @param restartedTasks how many tasks that failure restarts (P + 1)
 * @param partitionReleaseMillis median time for partition release to absorb every sink finishing
 * @param deployAllMillis median time to create and encode every task's deployment descriptor, large
 *     groups offloaded
 * @param shipped what that deployment ships: descriptors, blobs, worker tables
 * @param decodeGroupMillis median time for a worker to decode the shared all-to-all group
 * @param topologyBytes retained bytes of the execution topology and its job graph
 * @param regionsBytes retained bytes the regions add to the topology
 * @param numRegions number of pipelined regions
 * @param connections task-level connections the topology stands for
 */
public record ScaleReport(
        int parallelism,
        double buildTopologyMillis,
        double buildRegionsMillis,
        double initSchedulingMillis,
        double scheduleDownstreamMillis,
        double tasksToRestartMillis,
        int restartedTasks,
        double partitionReleaseMillis,
        double deployAllMillis,
        DeployProcedures.Shipped shipped,
        double decodeGroupMillis,
        long topologyBytes,
        long regionsBytes,
        int numRegions,
        long connections) {

    /** Runs every procedure at {@code parallelism} and measures its footprint. */
    public static ScaleReport measure(int parallelism) {
        double buildMillis = Timing.medianMillis(i -> BuildTopology.run(parallelism));
        ExecutionTopology topology = BuildTopology.run(parallelism);
        double regionsMillis = Timing.medianMillis(i -> RegionProcedures.buildRegions(topology));
        PipelinedRegions regions = RegionProcedures.buildRegions(topology);
        double initMillis =
                Timing.medianMillis(
                        i ->
                                RegionProcedures.initScheduling(
                                        regions, new RegionProcedures.CountingDeployer()));
        double downstreamMillis =
                Timing.medianMillis(
                        () -> new RegionProcedures.Downstream(regions),
                        RegionProcedures.Downstream::finishLastSource);
        FailoverProcedures.Restart restart =
                new FailoverProcedures.Restart(regions, FailoverProcedures.Failure.BLOCKING_SOURCE);
        double restartMillis = Timing.medianMillis(i -> restart.tasksToRestart());
        double releaseMillis =
                Timing.medianMillis(
                        () -> new FailoverProcedures.Release(regions),
                        FailoverProcedures.Release::finishSinks);
        double deployMillis =
                Timing.medianMillis(
                        i -> DeployProcedures.deployAll(topology, OffloadOptions.DEFAULT));
        DeployProcedures.Shipped shipped =
                DeployProcedures.measureShipped(topology, OffloadOptions.DEFAULT);
        byte[] sharedGroup = DeployProcedures.encodeSharedGroup(parallelism);
        double decodeMillis = Timing.medianMillis(i -> GroupDescriptors.decode(sharedGroup).size());
        long topologyBytes = retainedBytes(topology);
        long regionsBytes = retainedBytes(regions) - topologyBytes;
        long connections = 0;
        for (int g = 0; g < topology.numGroups(); g++) {
            connections += topology.numConnections(g);
        }
        return new ScaleReport(
                parallelism,
                buildMillis,
                regionsMillis,
                initMillis,
                downstreamMillis,
                restartMillis,
                restart.tasksToRestart(),
                releaseMillis,
                deployMillis,
                shipped,
                decodeMillis,
                topologyBytes,
                regionsBytes,
                regions.numRegions(),
                connections);
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
        job.put("regions", numRegions);
        ObjectNode procedures = root.putObject("procedures");
        procedures.putObject("build_topology").put("ms", buildTopologyMillis);
        procedures.putObject("build_regions").put("ms", buildRegionsMillis);
        procedures.putObject("init_scheduling").put("ms", initSchedulingMillis);
        procedures.putObject("schedule_downstream").put("ms", scheduleDownstreamMillis);
        procedures
                .putObject("tasks_to_restart")
                .put("ms", tasksToRestartMillis)
                .put("tasks", restartedTasks);
        procedures.putObject("partition_release").put("ms", partitionReleaseMillis);
        procedures.putObject("deploy_all").put("ms", deployAllMillis);
        ObjectNode deployment = root.putObject("deployment");
        deployment.put("sink_descriptor_bytes", shipped.sinkDescriptorBytes());
        deployment.put("shared_group_bytes", shipped.sharedGroupBytes());
        deployment.put("shared_group_raw_bytes", shipped.sharedGroupRawBytes());
        deployment.put("shared_group_descriptors", shipped.sharedGroupDescriptors());
        deployment.put("total_shipped_bytes", shipped.totalBytes());
        deployment.put("workers", DeployProcedures.WORKERS);
        deployment.put("decode_group_ms", decodeGroupMillis);
        ObjectNode memory = root.putObject("memory");
        memory.put("topology", topologyBytes);
        memory.put("regions", regionsBytes);
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
                                + " (%,d connections, %,d regions)%n",
                        parallelism,
                        connections,
                        numRegions));
        out.append(
                String.format(
                        Locale.ROOT,
                        "machine: %d cores, %s %s, %s %s%n%n",
                        Runtime.getRuntime().availableProcessors(),
                        System.getProperty("os.name"),
                        System.getProperty("os.arch"),
                        System.getProperty("java.vm.name"),
                        System.getProperty("java.version")));
        row(out, "procedure", "Railyard", "Flink 1.12*", "Flink 1.14*");
        row(out, "build topology + groups", humanMillis(buildTopologyMillis), "-", "-");
        row(out, "build regions", humanMillis(buildRegionsMillis), "-", "-");
        row(out, "init scheduling", humanMillis(initSchedulingMillis), "-", "-");
        row(out, "  (job initialization, published)", "", "11,431 ms", "627 ms");
        row(out, "schedule downstream", humanMillis(scheduleDownstreamMillis), "-", "-");
        row(
                out,
                String.format(Locale.ROOT, "tasks to restart (%,d tasks)", restartedTasks),
                humanMillis(tasksToRestartMillis),
                "37,195 ms",
                "170 ms");
        row(out, "partition release (all sinks)", humanMillis(partitionReleaseMillis), "-", "-");
        deploymentRows(out);
        row(out, "topology memory (retained)", humanBytes(topologyBytes), "> 4 GiB", "~12 MiB");
        row(out, "regions memory (retained)", humanBytes(regionsBytes), "-", "-");
        out.append(
                String.format(
                        Locale.ROOT,
                        "%n* published by Flink for P = 10,000 (Flink blog on scheduler"
                                + " performance); not measured here. Flink's job initialization"
                                + " covers Railyard's first three procedures; its task deployment"
                                + " covers schedule downstream and deploy all. The sink descriptor"
                                + " of Flink 1.14 is its size before offloading.%n"));
        return out.toString();
    }

    private void deploymentRows(StringBuilder out) {
        row(
                out,
                "deploy all (encode descriptors)",
                humanMillis(deployAllMillis),
                "63,118 ms",
                "17,183 ms");
        row(out, "  sink descriptor", shipped.sinkDescriptorBytes() + " B", "-", "~270 KiB");
        row(
                out,
                String.format(
                        Locale.ROOT,
                        "  shared group (%,d descriptors)",
                        shipped.sharedGroupDescriptors()),
                humanBytes(shipped.sharedGroupBytes()),
                "-",
                "-");
        row(out, "  total shipped", humanBytes(shipped.totalBytes()), "-", "-");
        row(out, "  worker decodes the group", humanMillis(decodeGroupMillis), "-", "-");
    }

    private static void row(
            StringBuilder out, String label, String ours, String f112, String f114) {
        out.append(String.format(Locale.ROOT, "%-34s %16s %16s %16s%n", label, ours, f112, f114));
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
