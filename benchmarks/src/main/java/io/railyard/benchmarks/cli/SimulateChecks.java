package io.railyard.benchmarks.cli;

import io.railyard.simulation.ShuffleMode;
import io.railyard.simulation.SimulationConfig;
import io.railyard.simulation.Skew;
import io.railyard.simulation.WorkDistribution;
import io.railyard.topology.JobGraph;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The option checks of {@code simulate}: the text forms ({@code --slots S|WxS}, {@code --mode},
 * {@code --work [VERTEX=]DIST}, {@code --skew VERTEX:K:F}) parsed before the job file is read, then
 * checked against the job (vertex names, hot subtasks against the parallelism, the work scaled for
 * a sweep) before anything is simulated. Every failure is a usage error naming the option and the
 * value ({@link OptionChecks#usage}).
 */
final class SimulateChecks {
    /** The most slots, as the simulator takes ({@link SimulationConfig#MAX_SLOTS}). */
    static final int MAX_SLOTS = SimulationConfig.MAX_SLOTS;

    /** The largest parallelism of a sweep. */
    static final int MAX_SWEEP_PARALLELISM = 1_000_000;

    /** The most tasks of one sweep point (parallelism times job vertices). */
    static final long MAX_SWEEP_TASKS = 1L << 24;

    /** The modes of {@code --mode all}, in the order they are simulated and printed. */
    static final List<ShuffleMode> ALL_MODES =
            List.of(ShuffleMode.BLOCKING, ShuffleMode.HYBRID_FULL, ShuffleMode.HYBRID_SELECTIVE);

    private static final int VERTICES_NAMED = 20;

    private SimulateChecks() {}

    /**
     * The cluster: {@code total} slots, {@code perWorker} of them per worker when given as {@code
     * WxS} (0 when given as a total).
     *
     * @param total the slots in all, in [1, {@link #MAX_SLOTS}]
     * @param perWorker slots per worker, 0 if not given
     */
    record Slots(int total, int perWorker) {
        /** The slots for people: {@code 6 slots} or {@code 6 slots (2 workers x 3)}. */
        String text() {
            return perWorker == 0
                    ? String.format(Locale.ROOT, "%,d slots", total)
                    : String.format(
                            Locale.ROOT,
                            "%,d slots (%,d workers x %,d)",
                            total,
                            total / perWorker,
                            perWorker);
        }
    }

    /**
     * The work distributions: the default and those of single vertices, in the order given.
     *
     * @param defaultWork the distribution of every vertex not in {@code byVertex}
     * @param byVertex distributions by job vertex name
     */
    record Work(WorkDistribution defaultWork, Map<String, WorkDistribution> byVertex) {
        /** The distribution of {@code vertex}. */
        WorkDistribution of(String vertex) {
            return byVertex.getOrDefault(vertex, defaultWork);
        }

        /** The distributions for people: {@code constant:1.0, join=uniform:1.0:3.0}. */
        String text() {
            StringBuilder text = new StringBuilder(defaultWork.toString());
            byVertex.forEach(
                    (vertex, work) -> text.append(", ").append(vertex).append('=').append(work));
            return text.toString();
        }
    }

    /**
     * {@code --slots}: {@code S} slots in all or {@code WxS}, W workers of S slots; null if not
     * given (the default depends on the job).
     */
    static @Nullable Slots slots(CommandSpec spec, @Nullable String text) {
        if (text == null) {
            return null;
        }
        String value = text.trim().toLowerCase(Locale.ROOT);
        int x = value.indexOf('x');
        if (x < 0) {
            int total = (int) number(spec, text, value, "slots");
            return new Slots(total, 0);
        }
        long workers = number(spec, text, value.substring(0, x), "workers");
        long perWorker = number(spec, text, value.substring(x + 1), "slots per worker");
        if (workers * perWorker > MAX_SLOTS) {
            throw OptionChecks.usage(
                    spec,
                    String.format(
                            Locale.ROOT,
                            "--slots %s is %,d slots in all; at most %d",
                            text,
                            workers * perWorker,
                            MAX_SLOTS));
        }
        return new Slots((int) (workers * perWorker), (int) perWorker);
    }

    /** A count of {@code --slots} in [1, {@link #MAX_SLOTS}]. */
    private static long number(CommandSpec spec, String text, String digits, String what) {
        long value;
        try {
            value = Long.parseLong(digits.trim());
        } catch (NumberFormatException e) {
            throw OptionChecks.usage(
                    spec,
                    "--slots must be S (slots in all) or WxS (W workers x S slots each), whole"
                            + " numbers in [1, "
                            + MAX_SLOTS
                            + "], was '"
                            + text
                            + "'");
        }
        if (value < 1 || value > MAX_SLOTS) {
            throw OptionChecks.usage(
                    spec,
                    String.format(
                            Locale.ROOT,
                            "--slots %s: %s must be in [1, %d], was %d",
                            text,
                            what,
                            MAX_SLOTS,
                            value));
        }
        return value;
    }

    /** The default slots: the largest parallelism of a job vertex of {@code graph}. */
    static Slots defaultSlots(JobGraph graph) {
        int most = 1;
        for (int v = 0; v < graph.numJobVertices(); v++) {
            most = Math.max(most, graph.parallelism(v));
        }
        return new Slots(Math.min(most, MAX_SLOTS), 0);
    }

    /** {@code --mode}: one mode's key or {@code all}. */
    static List<ShuffleMode> modes(CommandSpec spec, String text) {
        if (text.trim().equalsIgnoreCase("all")) {
            return ALL_MODES;
        }
        try {
            return List.of(ShuffleMode.ofKey(text));
        } catch (IllegalArgumentException e) {
            throw OptionChecks.usage(
                    spec,
                    "--mode must be one of blocking, hybrid-full, hybrid-selective, as-declared,"
                            + " all, was '"
                            + text
                            + "'");
        }
    }

    /** {@code --work}, repeatable: {@code DIST} (the default, once) or {@code VERTEX=DIST}. */
    static Work work(CommandSpec spec, List<String> values) {
        WorkDistribution defaultWork = null;
        Map<String, WorkDistribution> byVertex = new LinkedHashMap<>();
        for (String value : values) {
            int equals = value.lastIndexOf('=');
            if (equals < 0) {
                if (defaultWork != null) {
                    throw OptionChecks.usage(
                            spec,
                            "--work "
                                    + value
                                    + ": the default distribution is given twice (once without"
                                    + " VERTEX= is allowed)");
                }
                defaultWork = distribution(spec, "--work", value);
                continue;
            }
            String vertex = value.substring(0, equals);
            if (vertex.isEmpty()) {
                throw OptionChecks.usage(
                        spec, "--work " + value + ": the vertex name before '=' is empty");
            }
            WorkDistribution work =
                    distribution(spec, "--work " + vertex + "=", value.substring(equals + 1));
            if (byVertex.put(vertex, work) != null) {
                throw OptionChecks.usage(
                        spec, "--work " + value + ": vertex '" + vertex + "' is given twice");
            }
        }
        return new Work(
                defaultWork == null ? new WorkDistribution.Constant(1) : defaultWork, byVertex);
    }

    private static WorkDistribution distribution(CommandSpec spec, String option, String text) {
        try {
            return WorkDistribution.parse(text);
        } catch (IllegalArgumentException e) {
            throw OptionChecks.usage(spec, option + ": " + e.getMessage());
        }
    }

    /** {@code --skew}, repeatable: {@code VERTEX:K:F}, at most one per vertex. */
    static List<Skew> skews(CommandSpec spec, List<String> values) {
        List<Skew> skews = new ArrayList<>(values.size());
        for (String value : values) {
            Skew skew;
            try {
                skew = Skew.parse(value);
            } catch (IllegalArgumentException e) {
                throw OptionChecks.usage(spec, "--skew: " + e.getMessage());
            }
            for (Skew earlier : skews) {
                if (earlier.vertex().equals(skew.vertex())) {
                    throw OptionChecks.usage(
                            spec,
                            "--skew "
                                    + value
                                    + ": vertex '"
                                    + skew.vertex()
                                    + "' is skewed twice (once per vertex is allowed)");
                }
            }
            skews.add(skew);
        }
        return skews;
    }

    /**
     * Checks that {@code --work} and {@code --skew} name vertices of {@code graph} and that every
     * skewed vertex has at least its hot subtasks, at its parallelism in the file or, in a sweep,
     * at every parallelism of {@code sweep}.
     */
    static void checkAgainstJob(
            CommandSpec spec, JobGraph graph, Work work, List<Skew> skews, List<Integer> sweep) {
        for (String vertex : work.byVertex().keySet()) {
            vertex(spec, graph, "--work " + vertex + "=...", vertex);
        }
        for (Skew skew : skews) {
            int v = vertex(spec, graph, "--skew " + skew, skew.vertex());
            if (sweep.isEmpty() && skew.hotSubtasks() > graph.parallelism(v)) {
                throw OptionChecks.usage(
                        spec,
                        String.format(
                                Locale.ROOT,
                                "--skew %s: %d hot subtasks, but vertex '%s' has parallelism %d;"
                                        + " allowed: 1..%d",
                                skew,
                                skew.hotSubtasks(),
                                skew.vertex(),
                                graph.parallelism(v),
                                graph.parallelism(v)));
            }
            for (int p : sweep) {
                if (skew.hotSubtasks() > p) {
                    throw OptionChecks.usage(
                            spec,
                            String.format(
                                    Locale.ROOT,
                                    "--skew %s: %d hot subtasks, more than --parallelism %d gives"
                                            + " vertex '%s'",
                                    skew,
                                    skew.hotSubtasks(),
                                    p,
                                    skew.vertex()));
                }
            }
        }
    }

    private static int vertex(CommandSpec spec, JobGraph graph, String option, String name) {
        OptionalInt v = graph.findVertex(name);
        if (v.isEmpty()) {
            throw OptionChecks.usage(
                    spec,
                    option
                            + ": vertex '"
                            + name
                            + "' is not in the job; its vertices: "
                            + vertexNames(graph));
        }
        return v.getAsInt();
    }

    /** The first {@value #VERTICES_NAMED} vertex names of {@code graph}, comma-separated. */
    private static String vertexNames(JobGraph graph) {
        StringBuilder names = new StringBuilder();
        for (int v = 0; v < graph.numJobVertices() && v < VERTICES_NAMED; v++) {
            names.append(v == 0 ? "" : ", ").append(graph.vertexName(v));
        }
        return graph.numJobVertices() > VERTICES_NAMED ? names + ", ..." : names.toString();
    }

    /** {@code --parallelism}: each in [1, {@link #MAX_SWEEP_PARALLELISM}], none repeated. */
    static void sweep(CommandSpec spec, List<Integer> values) {
        for (int i = 0; i < values.size(); i++) {
            OptionChecks.range(spec, "--parallelism", values.get(i), 1, MAX_SWEEP_PARALLELISM);
            if (values.subList(0, i).contains(values.get(i))) {
                throw OptionChecks.usage(
                        spec, "--parallelism gives " + values.get(i) + " twice; each once");
            }
        }
    }

    /**
     * The configuration of {@code slots}, {@code work} and so on; in a sweep at parallelism {@code
     * p} (0: the file's parallelism), every vertex's work scaled by its parallelism in the file
     * over {@code p}, so that its total work stays the same.
     *
     * @throws picocli.CommandLine.ParameterException if the scaled work leaves the allowed range or
     *     the sweep point has too many tasks
     */
    static SimulationConfig config(
            CommandSpec spec, JobGraph graph, Settings settings, int parallelism) {
        SimulationConfig.Builder builder =
                SimulationConfig.builder(settings.slots().total())
                        .work(settings.work().defaultWork())
                        .taskOverhead(settings.taskOverhead())
                        .failRate(settings.failRate())
                        .maxRestarts(settings.maxRestarts())
                        .seed(settings.seed());
        if (settings.slots().perWorker() > 0) {
            builder.slotsPerWorker(settings.slots().perWorker());
        }
        if (parallelism == 0) {
            settings.work().byVertex().forEach(builder::work);
        } else {
            scaledWork(spec, graph, settings.work(), parallelism, builder);
        }
        settings.skews().forEach(builder::skew);
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw OptionChecks.usage(spec, String.valueOf(e.getMessage()));
        }
    }

    private static void scaledWork(
            CommandSpec spec, JobGraph graph, Work work, int p, SimulationConfig.Builder builder) {
        long tasks = (long) p * graph.numJobVertices();
        if (tasks > MAX_SWEEP_TASKS) {
            throw OptionChecks.usage(
                    spec,
                    String.format(
                            Locale.ROOT,
                            "--parallelism %d gives %,d tasks (%,d vertices); at most %,d",
                            p,
                            tasks,
                            graph.numJobVertices(),
                            MAX_SWEEP_TASKS));
        }
        for (int v = 0; v < graph.numJobVertices(); v++) {
            String name = graph.vertexName(v);
            double factor = graph.parallelism(v) / (double) p;
            try {
                builder.work(name, work.of(name).scaled(factor));
            } catch (IllegalArgumentException e) {
                throw OptionChecks.usage(
                        spec,
                        String.format(
                                Locale.ROOT,
                                "--parallelism %d: the work of vertex '%s', %s, scaled by"
                                        + " %d/%d (its parallelism in the file / P) is out of"
                                        + " range: %s",
                                p,
                                name,
                                work.of(name),
                                graph.parallelism(v),
                                p,
                                e.getMessage()));
            }
        }
    }

    /**
     * What every simulation of one command shares.
     *
     * @param slots the cluster
     * @param work the work distributions
     * @param skews the hot subtasks
     * @param taskOverhead work every task has on top of its sample (not scaled by a sweep)
     * @param failRate the probability that a task attempt fails
     * @param maxRestarts restarts before the job fails
     * @param seed the seed of the work samples and failures
     */
    record Settings(
            Slots slots,
            Work work,
            List<Skew> skews,
            double taskOverhead,
            double failRate,
            int maxRestarts,
            long seed) {}
}
