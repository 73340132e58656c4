package io.railyard.benchmarks.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.simulation.ShuffleMode;
import io.railyard.simulation.SimulationResult;
import io.railyard.simulation.Skew;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * {@code simulate}'s results as text (the summary line, the table of modes, the table of a sweep)
 * and as JSON. Times are in the job's work units; the JSON's keys are stable.
 */
final class SimulateOutput {
    private static final String[] HEADER = {
        "mode",
        "makespan",
        "vs blocking",
        "slot occupancy",
        "busy",
        "resource gap",
        "waiting in slot",
        "restarts",
        "restart work",
        "to disk",
        "state"
    };

    private SimulateOutput() {}

    /**
     * One simulated mode.
     *
     * @param mode the shuffle mode
     * @param result what the simulation measured
     */
    record Run(ShuffleMode mode, SimulationResult result) {}

    /**
     * The modes simulated at one parallelism of a sweep.
     *
     * @param parallelism every job vertex's parallelism
     * @param runs the modes, in the order simulated
     */
    record SweepPoint(int parallelism, List<Run> runs) {}

    /**
     * The line above the tables: the job (its tasks as in the file, which a sweep changes), slots,
     * work, skew, fail rate and seed.
     */
    static String summary(
            String job, int vertices, long tasks, boolean sweep, SimulateChecks.Settings settings) {
        List<String> skews = new ArrayList<>();
        for (Skew skew : settings.skews()) {
            skews.add(skew.toString());
        }
        return String.format(
                Locale.ROOT,
                "job %s (%,d vertices, %,d tasks%s); %s; work %s; skew %s; task overhead %s; fail rate %s, max"
                        + " restarts %,d; seed %d%n",
                job,
                vertices,
                tasks,
                sweep ? " in the file" : "",
                settings.slots().text(),
                settings.work().text(),
                skews.isEmpty() ? "none" : String.join(", ", skews),
                settings.taskOverhead(),
                settings.failRate(),
                settings.maxRestarts(),
                settings.seed());
    }

    /** The table of modes: one row per run, then a line on the units. */
    static String table(List<Run> runs) {
        SimulationResult blocking = null;
        for (Run run : runs) {
            if (run.mode() == ShuffleMode.BLOCKING) {
                blocking = run.result();
            }
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        for (Run run : runs) {
            rows.add(row(run, blocking));
        }
        return align(rows, true)
                + "times in work units (a task of work W alone in its slot takes W); vs blocking:"
                + " the change of the makespan; busy: slot-time processing / slot-time available"
                + System.lineSeparator();
    }

    private static String[] row(Run run, @Nullable SimulationResult blocking) {
        SimulationResult r = run.result();
        return new String[] {
            run.mode().key(),
            time(r.makespan()),
            run.mode() == ShuffleMode.BLOCKING ? "base" : versus(r, blocking),
            percent(r.slotOccupancy()),
            percent(r.busyUtilisation()),
            time(r.slotTime().resourceGap()),
            time(r.slotTime().waitingInSlot()),
            String.format(Locale.ROOT, "%,d", r.decisions().restarts()),
            time(r.slotTime().restartWork()),
            percent(r.diskFraction()),
            r.isFinished() ? "finished" : "FAILED"
        };
    }

    private static String versus(SimulationResult result, @Nullable SimulationResult blocking) {
        if (blocking == null
                || !blocking.isFinished()
                || !result.isFinished()
                || !(blocking.makespan() > 0)) {
            return "-";
        }
        double change = (result.makespan() - blocking.makespan()) / blocking.makespan();
        return String.format(Locale.ROOT, "%+.1f %%", 100 * change);
    }

    /**
     * The table of a sweep: one row per parallelism, the makespan of each mode; a {@code *} marks
     * each mode's shortest makespan (of the runs that finished).
     */
    static String sweepTable(List<SweepPoint> points) {
        List<ShuffleMode> modes = new ArrayList<>();
        for (Run run : points.get(0).runs()) {
            modes.add(run.mode());
        }
        List<String[]> rows = new ArrayList<>();
        String[] header = new String[modes.size() + 1];
        header[0] = "parallelism";
        for (int m = 0; m < modes.size(); m++) {
            header[m + 1] = modes.get(m).key() + " ";
        }
        rows.add(header);
        int[] best = best(points, modes.size());
        for (int i = 0; i < points.size(); i++) {
            SweepPoint point = points.get(i);
            String[] row = new String[modes.size() + 1];
            row[0] = String.format(Locale.ROOT, "%,d", point.parallelism());
            for (int m = 0; m < modes.size(); m++) {
                SimulationResult r = point.runs().get(m).result();
                row[m + 1] =
                        (r.isFinished() ? time(r.makespan()) : "FAILED")
                                + (best[m] == i ? "*" : " ");
            }
            rows.add(row);
        }
        return align(rows, false)
                + "makespan in work units; * the shortest of each mode; every vertex's total work"
                + " as in the file"
                + System.lineSeparator();
    }

    /** Per mode, the index of the point with the shortest finished makespan, or -1. */
    private static int[] best(List<SweepPoint> points, int modes) {
        int[] best = new int[modes];
        for (int m = 0; m < modes; m++) {
            best[m] = -1;
            for (int i = 0; i < points.size(); i++) {
                SimulationResult r = points.get(i).runs().get(m).result();
                if (r.isFinished()
                        && (best[m] < 0
                                || r.makespan()
                                        < points.get(best[m]).runs().get(m).result().makespan())) {
                    best[m] = i;
                }
            }
        }
        return best;
    }

    /** Rows as columns two spaces apart, right-aligned except the first if {@code firstLeft}. */
    private static String align(List<String[]> rows, boolean firstLeft) {
        int[] widths = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        StringBuilder text = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < row.length; c++) {
                String pad = " ".repeat(widths[c] - row[c].length());
                line.append(c == 0 ? "" : "  ")
                        .append(c == 0 && firstLeft ? row[c] + pad : pad + row[c]);
            }
            text.append(line.toString().stripTrailing()).append(System.lineSeparator());
        }
        return text.toString();
    }

    /** A time in work units, e.g. {@code 1,234.5}. */
    static String time(double value) {
        return String.format(Locale.ROOT, "%,.1f", value);
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f %%", 100 * fraction);
    }

    /** The document's head: the job, the slots, the seed and the other settings. */
    static ObjectNode document(String job, SimulateChecks.Settings settings) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.put("job", job);
        root.put("slots", settings.slots().total());
        if (settings.slots().perWorker() > 0) {
            root.put("workers", settings.slots().total() / settings.slots().perWorker());
            root.put("slots_per_worker", settings.slots().perWorker());
        }
        root.put("seed", settings.seed());
        root.put("task_overhead", settings.taskOverhead());
        root.put("fail_rate", settings.failRate());
        root.put("max_restarts", settings.maxRestarts());
        ObjectNode work = root.putObject("work");
        work.put("default", settings.work().defaultWork().toString());
        settings.work().byVertex().forEach((vertex, dist) -> work.put(vertex, dist.toString()));
        ArrayNode skews = root.putArray("skew");
        for (Skew skew : settings.skews()) {
            skews.add(skew.toString());
        }
        return root;
    }

    /** Adds {@code "modes": {mode: {...}}} of {@code runs} to {@code node}. */
    static void putModes(ObjectNode node, List<Run> runs) {
        ObjectNode modes = node.putObject("modes");
        for (Run run : runs) {
            SimulationResult r = run.result();
            ObjectNode mode = modes.putObject(run.mode().key());
            mode.put("makespan", r.makespan());
            mode.put("slot_occupancy", r.slotOccupancy());
            mode.put("busy_utilisation", r.busyUtilisation());
            mode.put("resource_gap", r.slotTime().resourceGap());
            mode.put("waiting_in_slot", r.slotTime().waitingInSlot());
            mode.put("restarts", r.decisions().restarts());
            mode.put("restart_work", r.slotTime().restartWork());
            mode.put("data_total", r.data().total());
            mode.put("data_to_disk", r.data().toDisk());
            mode.put("disk_fraction", r.diskFraction());
            mode.put("partitions_released", r.decisions().partitionsReleased());
            mode.put("state", r.isFinished() ? "FINISHED" : "FAILED");
            if (r.outcome() instanceof SimulationResult.Failed failed) {
                mode.put("cause", failed.reason());
            }
        }
    }

    /** Adds {@code "sweep": [{"parallelism": p, "modes": {...}}, ...]} to {@code node}. */
    static void putSweep(ObjectNode node, List<SweepPoint> points) {
        ArrayNode sweep = node.putArray("sweep");
        for (SweepPoint point : points) {
            ObjectNode element = sweep.addObject();
            element.put("parallelism", point.parallelism());
            putModes(element, point.runs());
        }
    }

    /**
     * The failure line of the first failed run, or null if every run finished: the mode (and the
     * parallelism in a sweep), how many runs failed, and the simulator's reason.
     */
    static @Nullable String failure(List<SweepPoint> points, boolean sweep) {
        int failed = 0;
        String first = null;
        for (SweepPoint point : points) {
            for (Run run : point.runs()) {
                if (run.result().outcome() instanceof SimulationResult.Failed result) {
                    failed++;
                    if (first == null) {
                        first =
                                run.mode().key()
                                        + (sweep ? " at parallelism " + point.parallelism() : "")
                                        + ": "
                                        + result.reason();
                    }
                }
            }
        }
        if (first == null) {
            return null;
        }
        return failed == 1
                ? "the job failed under " + first
                : "the job failed in " + failed + " runs; the first under " + first;
    }
}
