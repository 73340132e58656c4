package io.railyard.benchmarks.procedures;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.railyard.deployment.GroupDescriptors;
import io.railyard.deployment.OffloadOptions;
import io.railyard.groups.ExecutionTopology;
import io.railyard.jobmaster.JobMaster;
import io.railyard.jobmaster.JobScheduler;
import io.railyard.regions.PipelinedRegions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.openjdk.jol.info.GraphLayout;

/**
 * The scale report: every procedure measured on the reference job (source → sink, ALL_TO_ALL,
 * BLOCKING) at one parallelism, beside the figures Flink published for P = 10,000 and, when given,
 * a column measured live from Flink 2.x (in a JVM of its own, {@code FlinkColumnProcess}).
 *
 * <p>Procedures are timed in this process after warm-up (median of samples, see {@link Timing});
 * memory is the retained size of a structure as JOL walks it (every object reachable from it, names
 * and enum constants included). The JSON keys are stable; later issues add sections.
 */
public final class ScaleReport {
    /** Procedures measured by {@link #measure}, in order: the progress bar's length. */
    public static final int STEPS = 12;

    /** Flink's published figures for P = 10,000 (1.12, 1.14), by procedure key. */
    private static final ImmutableMap<String, ImmutableList<String>> PUBLISHED =
            ImmutableMap.of(
                    "initialization", ImmutableList.of("11,431 ms", "627 ms"),
                    "deploy_all", ImmutableList.of("63,118 ms", "17,183 ms"),
                    "tasks_to_restart", ImmutableList.of("37,195 ms", "170 ms"),
                    "time_to_running", ImmutableList.of("> 4 min", "<= 30 s"));

    /**
     * One measured procedure.
     *
     * @param key the JSON name
     * @param label the table label
     * @param millis the median time of one run
     */
    public record Procedure(String key, String label, double millis) {}

    /**
     * Flink 2.x measured live on the same job (in a JVM of its own when the report runs it).
     *
     * @param version Flink's version
     * @param millis median milliseconds by procedure key (the keys Flink has an equivalent for)
     * @param graphBytes retained bytes of Flink's execution graph with its scheduling topology
     */
    public record FlinkColumn(String version, Map<String, Double> millis, long graphBytes) {}

    /**
     * The figures every report has, as {@link #measure} returns them.
     *
     * @param parallelism parallelism of source and sink
     * @param connections task-level connections (P × P)
     * @param numRegions pipelined regions
     * @param restartedTasks tasks restarted when one source fails
     * @param procedures the timed procedures, in table order
     * @param memory retained bytes by structure ({@link ScaleReport#memory()})
     * @param shipped what deployment ships
     * @param shapes the sliced "deploy all" and the worker-set shape
     * @param decodeGroupMillis median time to decode the shared group
     */
    private record Core(
            int parallelism,
            long connections,
            int numRegions,
            int restartedTasks,
            ImmutableList<Procedure> procedures,
            ImmutableMap<String, Long> memory,
            DeployProcedures.Shipped shipped,
            DeployProcedures.Shapes shapes,
            double decodeGroupMillis) {}

    /**
     * The sections measured only on request, each null until its {@code with…} call added it.
     *
     * @param flink the live Flink column
     * @param shuffle the shuffle throughput section
     * @param running the times to RUNNING of the local engine, in the order measured (empty when
     *     not measured)
     */
    private record Sections(
            @Nullable FlinkColumn flink,
            ShuffleThroughput.@Nullable Result shuffle,
            List<TimeToRunning.Result> running) {
        static final Sections NONE = new Sections(null, null, List.of());
    }

    private final Core core;
    private final Sections sections;

    private ScaleReport(Core core, Sections sections) {
        this.core = core;
        this.sections = sections;
    }

    /** Runs every procedure at {@code parallelism}, without progress output. */
    public static ScaleReport measure(int parallelism) {
        return measure(parallelism, step -> {});
    }

    /**
     * Runs every procedure at {@code parallelism} and measures the footprints; {@code progress}
     * hears the name of each of the {@link #STEPS} procedures as it completes.
     */
    public static ScaleReport measure(int parallelism, Consumer<String> progress) {
        List<Procedure> procedures = new ArrayList<>();
        Measurer m = new Measurer(procedures, progress);
        m.time(
                "initialization",
                "initialization (all of the below)",
                i -> IdleJobMaster.of(parallelism));
        m.time("build_topology", "  build topology + groups", i -> BuildTopology.run(parallelism));
        ExecutionTopology topology = BuildTopology.run(parallelism);
        m.time("build_regions", "  build regions", i -> RegionProcedures.buildRegions(topology));
        PipelinedRegions regions = RegionProcedures.buildRegions(topology);
        m.time(
                "init_scheduling",
                "  init scheduling",
                i ->
                        RegionProcedures.initScheduling(
                                regions, new RegionProcedures.CountingDeployer()));
        m.time(
                "schedule_downstream",
                "schedule downstream",
                () -> new RegionProcedures.Downstream(regions),
                RegionProcedures.Downstream::finishLastSource);
        m.time(
                "deploy_all",
                "deploy all (encode descriptors)",
                i -> DeployProcedures.deployAll(topology, OffloadOptions.DEFAULT));
        FailoverProcedures.Restart restart =
                new FailoverProcedures.Restart(regions, FailoverProcedures.Failure.BLOCKING_SOURCE);
        m.time("tasks_to_restart", "tasks to restart", i -> restart.tasksToRestart());
        m.time(
                "partition_release",
                "partition release (all sinks)",
                () -> new FailoverProcedures.Release(regions),
                FailoverProcedures.Release::finishSinks);
        DeployProcedures.Shipped shipped =
                DeployProcedures.measureShipped(topology, OffloadOptions.DEFAULT);
        progress.accept("deployment bytes");
        DeployProcedures.Shapes shapes =
                DeployProcedures.measureShapes(topology, OffloadOptions.DEFAULT);
        progress.accept("deployment slices and shapes");
        byte[] sharedGroup = DeployProcedures.encodeSharedGroup(parallelism);
        double decodeMillis = Timing.medianMillis(i -> GroupDescriptors.decode(sharedGroup).size());
        progress.accept("decode group");
        Map<String, Long> memory = memory(parallelism, topology, regions);
        progress.accept("memory");
        Core core =
                new Core(
                        parallelism,
                        countConnections(topology),
                        regions.numRegions(),
                        restart.tasksToRestart(),
                        ImmutableList.copyOf(procedures),
                        ImmutableMap.copyOf(memory),
                        shipped,
                        shapes,
                        decodeMillis);
        return new ScaleReport(core, Sections.NONE);
    }

    /** Retained bytes of each structure (see {@link #memory()}). */
    private static Map<String, Long> memory(
            int parallelism, ExecutionTopology topology, PipelinedRegions regions) {
        Map<String, Long> memory = new java.util.LinkedHashMap<>();
        long topologyBytes = retainedBytes(topology);
        memory.put("topology", topologyBytes);
        memory.put("regions", retainedBytes(regions) - topologyBytes);
        JobMaster master = IdleJobMaster.of(parallelism);
        JobScheduler scheduler = master.scheduler();
        long upToRegions = retainedBytes(scheduler.regions());
        long upToScheduling = retainedBytes(scheduler.strategy());
        long upToFailover =
                GraphLayout.parseInstance(scheduler.strategy(), scheduler.failover()).totalSize();
        long all = retainedBytes(master);
        // "initialized" and "job_master" are both the whole JobMaster now (stable JSON keys).
        memory.put("initialized", all);
        memory.put("scheduling", upToScheduling - upToRegions);
        memory.put("failover", upToFailover - upToScheduling);
        memory.put("descriptors", all - upToFailover);
        memory.put("job_master", all);
        return memory;
    }

    /** This report with a live Flink column. */
    public ScaleReport withFlink(FlinkColumn column) {
        return new ScaleReport(core, new Sections(column, sections.shuffle(), sections.running()));
    }

    /** This report with a shuffle throughput section. */
    public ScaleReport withShuffle(ShuffleThroughput.Result result) {
        return new ScaleReport(core, new Sections(sections.flink(), result, sections.running()));
    }

    /** This report with one more time to RUNNING of the local engine. */
    public ScaleReport withTimeToRunning(TimeToRunning.Result result) {
        List<TimeToRunning.Result> running = new ArrayList<>(sections.running());
        running.add(result);
        return new ScaleReport(
                core, new Sections(sections.flink(), sections.shuffle(), List.copyOf(running)));
    }

    /** The sliced "deploy all" and the worker-set shape. */
    public DeployProcedures.Shapes shapes() {
        return core.shapes();
    }

    /** The times to RUNNING on the local engine, in the order measured; empty if not measured. */
    public List<TimeToRunning.Result> timeToRunning() {
        return sections.running();
    }

    /** The shuffle section, if measured. */
    public ShuffleThroughput.@Nullable Result shuffle() {
        return sections.shuffle();
    }

    /** The measured procedures, in table order. */
    public ImmutableList<Procedure> procedures() {
        return core.procedures();
    }

    /** The live Flink column, if measured. */
    public @Nullable FlinkColumn flink() {
        return sections.flink();
    }

    private static long countConnections(ExecutionTopology topology) {
        long connections = 0;
        for (int g = 0; g < topology.numGroups(); g++) {
            connections += topology.numConnections(g);
        }
        return connections;
    }

    /** Bytes of every object reachable from {@code root}, as JOL counts them. */
    public static long retainedBytes(Object root) {
        return GraphLayout.parseInstance(root).totalSize();
    }

    /** Parallelism of source and sink. */
    public int parallelism() {
        return core.parallelism();
    }

    /** Task-level connections of the job (P × P). */
    public long connections() {
        return core.connections();
    }

    /** Pipelined regions of the job. */
    public int numRegions() {
        return core.numRegions();
    }

    /** Tasks restarted when one source fails. */
    public int restartedTasks() {
        return core.restartedTasks();
    }

    /**
     * Retained bytes by structure: {@code topology}, {@code regions} (beyond the topology), {@code
     * initialized} (the whole JobManager core, a {@link JobMaster} built and not started), its
     * parts beyond the regions — {@code scheduling} (the group kinds and input counts, the
     * strategy's counters and bits), {@code failover} (beyond scheduling: release counters,
     * partition availability, attempts, the restart computation's marks) and {@code descriptors}
     * (the rest: the descriptor cache, the shuffle master's placement, the worker table and the
     * scheduler core's own counters) — and {@code job_master}, the same as {@code initialized}
     * (kept as a JSON key).
     */
    public ImmutableMap<String, Long> memory() {
        return core.memory();
    }

    /** What deployment ships, in bytes. */
    public DeployProcedures.Shipped shipped() {
        return core.shipped();
    }

    /** Median time a worker takes to decode the shared group, in milliseconds. */
    public double decodeGroupMillis() {
        return core.decodeGroupMillis();
    }

    /** Flink's published figures (1.12, 1.14) for procedure {@code key}, or null. */
    public static @Nullable ImmutableList<String> published(String key) {
        return PUBLISHED.get(key);
    }

    /** Times procedures into a list and reports progress. */
    private static final class Measurer {
        private final List<Procedure> procedures;
        private final Consumer<String> progress;

        Measurer(List<Procedure> procedures, Consumer<String> progress) {
            this.procedures = procedures;
            this.progress = progress;
        }

        void time(String key, String label, java.util.function.IntFunction<?> operation) {
            procedures.add(new Procedure(key, label, Timing.medianMillis(operation)));
            progress.accept(key);
        }

        <S> void time(
                String key,
                String label,
                java.util.function.Supplier<S> setup,
                java.util.function.Function<S, ?> operation) {
            procedures.add(new Procedure(key, label, Timing.medianMillis(setup, operation)));
            progress.accept(key);
        }
    }
}
