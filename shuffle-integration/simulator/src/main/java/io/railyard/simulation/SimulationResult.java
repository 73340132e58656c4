package io.railyard.simulation;

import static java.util.Objects.requireNonNull;

import io.railyard.topology.JobGraph;

/**
 * What one {@link JobSimulator} run measured, times in the job's work units (a task with work
 * {@code W} alone in its slot with its input at hand takes {@code W}): the outcome, the makespan,
 * where the slot-time went, the data the edges carried, what the scheduler decided, and every
 * attempt. Immutable.
 *
 * @param graph the simulated job graph (with the mode's edge types)
 * @param slots the slots in the cluster
 * @param outcome {@link Finished}, or {@link Failed} with the reason when the restart policy gave
 *     up
 * @param makespan the time of the last task's end (of the failure, if the job failed)
 * @param slotTime where the slot-time went: held, processing, waiting, idle, restarted
 * @param data what the non-pipelined edges carried and what of it went to disk
 * @param decisions restarts carried out and partitions released
 * @param trace every task attempt
 */
public record SimulationResult(
        JobGraph graph,
        int slots,
        Outcome outcome,
        double makespan,
        SlotTime slotTime,
        Data data,
        Decisions decisions,
        Trace trace) {

    /** The outcome of a run whose every task finished. */
    public static final Finished FINISHED = new Finished();

    /** Checks that every part is given. */
    public SimulationResult {
        requireNonNull(graph, "graph");
        requireNonNull(outcome, "outcome");
        requireNonNull(slotTime, "slotTime");
        requireNonNull(data, "data");
        requireNonNull(decisions, "decisions");
        requireNonNull(trace, "trace");
    }

    /**
     * How a simulated job ended: {@link Finished} (every task finished) or {@link Failed} (the
     * restart policy gave up, with its reason). Callers branch with {@code instanceof}.
     */
    public sealed interface Outcome permits Finished, Failed {}

    /** Every task finished. All instances are equal; {@link #FINISHED} is one. */
    public record Finished() implements Outcome {}

    /**
     * The restart policy gave up.
     *
     * @param reason why, in the job failure's words
     */
    public record Failed(String reason) implements Outcome {
        /** Checks that the reason is given. */
        public Failed {
            requireNonNull(reason, "reason");
        }
    }

    /**
     * Where the slot-time of a run went, in work units × slots.
     *
     * @param held the slot-time held by task attempts, from start to end
     * @param busy the slot-time spent processing: a finished attempt's work, the part of an
     *     unfinished attempt's work that fits in its time in the slot
     * @param waitingInSlot slot-time finished attempts held while waiting for their producers' data
     * @param resourceGap idle slot-time while tasks were waiting to start: the integral over time
     *     of {@code min(free slots, tasks not started and not finished)}
     * @param restartWork slot-time held by attempts that did not finish (failed or cancelled)
     */
    public record SlotTime(
            double held,
            double busy,
            double waitingInSlot,
            double resourceGap,
            double restartWork) {}

    /**
     * The data a run's non-pipelined edges carried, in units of producer work.
     *
     * @param total one unit per unit of producer work per edge, counting each edge's producers once
     * @param toDisk written to disk, all attempts: BLOCKING and HYBRID_FULL edges write all (for
     *     every finished producer attempt), HYBRID_SELECTIVE the part produced before its consumer
     *     started, PIPELINED nothing
     */
    public record Data(double total, double toDisk) {}

    /**
     * What the scheduling core decided during a run.
     *
     * @param restarts restart decisions carried out
     * @param partitionsReleased partitions the scheduler's release tracking released
     */
    public record Decisions(int restarts, long partitionsReleased) {}

    /** Whether every task finished: the outcome is {@link Finished}. */
    public boolean isFinished() {
        return outcome instanceof Finished;
    }

    /** Slot-time held by tasks over the slot-time available until the makespan, in [0, 1]. */
    public double slotOccupancy() {
        return makespan == 0 ? 0 : slotTime.held() / (slots * makespan);
    }

    /** Slot-time spent processing over the slot-time available until the makespan, in [0, 1]. */
    public double busyUtilisation() {
        return makespan == 0 ? 0 : slotTime.busy() / (slots * makespan);
    }

    /** The share of the non-pipelined edges' data written to disk (above 1 with restarts). */
    public double diskFraction() {
        return data.total() == 0 ? 0 : data.toDisk() / data.total();
    }

    /**
     * Every task attempt, in the order they ended: task id, slot, start, end, work processed and
     * whether it finished. O(1) per query; immutable.
     */
    public static final class Trace {
        private final int[] task;
        private final int[] slot;
        private final double[] start;
        private final double[] end;
        private final double[] busy;
        private final boolean[] finished;

        Trace(int[] task, int[] slot, double[] start, double[] end, double[] busy, boolean[] done) {
            this.task = task;
            this.slot = slot;
            this.start = start;
            this.end = end;
            this.busy = busy;
            this.finished = done;
        }

        /** The number of attempts. */
        public int size() {
            return task.length;
        }

        /** Attempt {@code i}'s task id. */
        public int task(int i) {
            return task[i];
        }

        /** The slot attempt {@code i} held, in {@code [0, slots)}. */
        public int slot(int i) {
            return slot[i];
        }

        /** When attempt {@code i} started. */
        public double start(int i) {
            return start[i];
        }

        /** When attempt {@code i} finished, failed or was cancelled. */
        public double end(int i) {
            return end[i];
        }

        /** The work attempt {@code i} processed (its task's work if it finished). */
        public double busy(int i) {
            return busy[i];
        }

        /** Whether attempt {@code i} finished (else it failed or was cancelled). */
        public boolean finished(int i) {
            return finished[i];
        }
    }
}
