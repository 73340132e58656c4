package io.railyard.benchmarks.cli;

import io.railyard.simulation.JobSimulator;
import io.railyard.simulation.ShuffleMode;
import io.railyard.simulation.SimulationConfig;
import io.railyard.simulation.Skew;
import io.railyard.topology.JobGraph;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code simulate}: simulates a job graph file (the format of {@code inspect} and {@code run}) on
 * the real scheduler with {@link JobSimulator} — a simulated clock, slots and seeded work instead
 * of workers — under blocking and hybrid shuffle, and prints one row of metrics per mode (makespan,
 * its change against blocking, slot occupancy, busy time, resource gap, time waiting in slots,
 * restarts and the data written to disk); or, with {@code --parallelism}, the makespan of each mode
 * at each parallelism with every vertex's total work kept. Optionally the results as JSON and a PNG
 * (a Gantt chart per mode, or makespan against parallelism).
 *
 * <p>The model: under blocking a consumer starts after all its producers finished; under hybrid it
 * may start once its producers are scheduled and a slot is free, and progresses only as fast as its
 * producers' data arrives, holding its slot while it waits. Every option and output path is checked
 * before anything is simulated (a usage error, exit code 2); a mode whose job fails (the restart
 * policy gave up) is reported in the table, then in one line on stderr, exit code 1.
 */
@Command(
        name = "simulate",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = {
            "Simulates a job graph file on the real scheduler (a simulated clock, slots and seeded"
                    + " work in place of workers) under blocking and hybrid shuffle and prints per"
                    + " mode: makespan, its change against blocking, slot occupancy, busy time,"
                    + " resource gap (idle slot-time while tasks wait to start), time consumers"
                    + " wait in their slots, restarts and the data written to disk.",
            "Model: under blocking a consumer starts after all its producers finished; under"
                    + " hybrid it may start once its producers are scheduled and a slot is free,"
                    + " and progresses only as fast as its producers' data arrives, holding its"
                    + " slot while it waits. A task of work W alone in its slot with its input at"
                    + " hand takes W time units.",
            "File: as for 'inspect' and 'run' (run's records_per_subtask and skew are ignored)."
        })
final class SimulateCommand implements Callable<Integer> {
    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    private CommandSpec spec;

    @Mixin private OutputOptions output = new OutputOptions();

    @Mixin private JobOptions job = new JobOptions();

    @Option(
            names = "--slots",
            paramLabel = "S|WxS",
            description =
                    "slots in all, or W workers x S slots each; 1..16777216 in all (default: the"
                            + " largest parallelism of a job vertex of the file)")
    private @Nullable String slots;

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            description =
                    "blocking, hybrid-full, hybrid-selective, as-declared (the file's edge types)"
                            + " or all = the first three (default ${DEFAULT-VALUE}); PIPELINED"
                            + " edges stay PIPELINED")
    private String mode = "all";

    @Option(
            names = "--work",
            paramLabel = "[VERTEX=]DIST",
            description =
                    "work per task, repeatable: DIST for every vertex, VERTEX=DIST for one; DIST ="
                            + " constant:W, uniform:LOW:HIGH or lognormal:MEAN:SIGMA, numbers in"
                            + " (0, 1e9], SIGMA in [0, 4] (default constant:1)")
    private List<String> work = new ArrayList<>();

    @Option(
            names = "--skew",
            paramLabel = "VERTEX:K:F",
            description =
                    "repeatable: subtasks 0..K-1 of VERTEX get F times the mean work, K in"
                            + " 1..parallelism, F in (0, 1e6], e.g. join:1:34")
    private List<String> skew = new ArrayList<>();

    @Option(
            names = "--task-overhead",
            paramLabel = "W",
            description =
                    "work every task has on top of its sample, 0..1e9: a task's fixed cost"
                            + " (deployment, start-up), not scaled by --parallelism"
                            + " (default ${DEFAULT-VALUE})")
    private double taskOverhead;

    @Option(
            names = "--fail-rate",
            paramLabel = "R",
            description =
                    "each task attempt fails with probability R, 0..1, after a random part of its"
                            + " work (default ${DEFAULT-VALUE})")
    private double failRate;

    @Option(
            names = "--max-restarts",
            paramLabel = "N",
            description = "restarts before the job fails, 1..1000000 (default ${DEFAULT-VALUE})")
    private int maxRestarts = 1000;

    @Option(
            names = "--seed",
            paramLabel = "X",
            description = "seed of the work samples and the failures (default ${DEFAULT-VALUE})")
    private long seed = 1;

    @Option(
            names = "--parallelism",
            paramLabel = "P",
            split = ",",
            description =
                    "a sweep, e.g. 4,8,16 (each 1..1000000): every job vertex at parallelism P,"
                            + " its work per task scaled by (its parallelism in the file) / P so"
                            + " that its total work stays; hot subtasks stay K; the slots stay;"
                            + " prints the makespan of each mode per P")
    private List<Integer> parallelism = new ArrayList<>();

    @Option(
            names = "--chart",
            paramLabel = "PATH",
            description =
                    "also write a PNG (.png is added if missing): a Gantt chart of the slots per"
                            + " mode, or with --parallelism the makespan against P")
    private @Nullable Path chart;

    @Override
    public Integer call() throws Exception {
        OptionChecks.range(spec, "--max-restarts", maxRestarts, 1, 1_000_000);
        if (!(taskOverhead >= 0 && taskOverhead <= 1e9)) {
            throw OptionChecks.usage(
                    spec, "--task-overhead must be in [0, 1e9], was " + taskOverhead);
        }
        if (!(failRate >= 0 && failRate <= 1)) {
            throw OptionChecks.usage(spec, "--fail-rate must be in [0, 1], was " + failRate);
        }
        List<ShuffleMode> modes = SimulateChecks.modes(spec, mode);
        SimulateChecks.sweep(spec, parallelism);
        SimulateChecks.Slots cluster = SimulateChecks.slots(spec, slots);
        SimulateChecks.Work works = SimulateChecks.work(spec, work);
        List<Skew> skews = SimulateChecks.skews(spec, skew);
        OutputFile json = output.check(spec);
        OutputFile png = chart == null ? null : OutputFile.check(spec, "--chart", chart, ".png");
        JobGraph graph = job.read(spec).contents().graph();
        SimulateChecks.checkAgainstJob(spec, graph, works, skews, parallelism);
        SimulateChecks.Settings settings =
                new SimulateChecks.Settings(
                        cluster == null ? SimulateChecks.defaultSlots(graph) : cluster,
                        works,
                        skews,
                        taskOverhead,
                        failRate,
                        maxRestarts,
                        seed);
        List<SimulationConfig> configs = configs(graph, settings);
        List<SimulateOutput.SweepPoint> points = simulate(graph, modes, configs);
        PrintWriter out = spec.commandLine().getOut();
        boolean sweep = !parallelism.isEmpty();
        out.print(
                SimulateOutput.summary(
                        job.path().toString(),
                        graph.numJobVertices(),
                        graph.numTasks(),
                        sweep,
                        settings));
        out.print(
                sweep
                        ? SimulateOutput.sweepTable(points)
                        : SimulateOutput.table(points.get(0).runs()));
        out.flush();
        write(json, png, settings, points);
        String failure = SimulateOutput.failure(points, sweep);
        if (failure != null) {
            throw new CommandFailure(failure);
        }
        return ExitCode.OK;
    }

    /**
     * The configuration of every sweep point (one without a sweep), all built, and so checked,
     * before anything is simulated.
     */
    private List<SimulationConfig> configs(JobGraph graph, SimulateChecks.Settings settings) {
        List<SimulationConfig> configs = new ArrayList<>();
        if (parallelism.isEmpty()) {
            configs.add(SimulateChecks.config(spec, graph, settings, 0));
        }
        for (int p : parallelism) {
            configs.add(SimulateChecks.config(spec, graph, settings, p));
        }
        return configs;
    }

    /** Simulates every mode with every configuration; a sweep point per configuration. */
    private List<SimulateOutput.SweepPoint> simulate(
            JobGraph graph, List<ShuffleMode> modes, List<SimulationConfig> configs) {
        List<SimulateOutput.SweepPoint> points = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) {
            int p = parallelism.isEmpty() ? 0 : parallelism.get(i);
            List<SimulateOutput.Run> runs = new ArrayList<>();
            for (ShuffleMode shuffleMode : modes) {
                JobGraph simulated =
                        p == 0 ? shuffleMode.apply(graph) : shuffleMode.rewrite(graph, v -> p);
                runs.add(
                        new SimulateOutput.Run(
                                shuffleMode, JobSimulator.simulate(simulated, configs.get(i))));
            }
            points.add(new SimulateOutput.SweepPoint(p, runs));
        }
        return points;
    }

    /** Writes the JSON and the chart asked for, and says where they went. */
    private void write(
            @Nullable OutputFile json,
            @Nullable OutputFile png,
            SimulateChecks.Settings settings,
            List<SimulateOutput.SweepPoint> points)
            throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        boolean sweep = !parallelism.isEmpty();
        if (json != null) {
            var document = SimulateOutput.document(job.path().toString(), settings);
            if (sweep) {
                SimulateOutput.putSweep(document, points);
            } else {
                SimulateOutput.putModes(document, points.get(0).runs());
            }
            json.writeJson(document, out);
        }
        if (png != null) {
            if (sweep) {
                png.write(stream -> SimulateChart.sweep(points, stream));
            } else {
                png.write(stream -> SimulateChart.gantt(points.get(0).runs(), stream));
            }
            out.println("chart written to " + png.path());
        }
        out.flush();
    }
}
