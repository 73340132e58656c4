package io.railyard.simulation;

import io.railyard.topology.JobGraph;

/**
 * What one {@link JobSimulator} run measured, times in the job's work units (a task with work
 * {@code W} alone in its slot with its input at hand takes {@code W}). Immutable.
 *
 * @param graph the simulated job graph (with the mode's edge types)
 * @param slots the slots in the cluster
 * @param finished whether every task finished (false: the restart policy gave up)
 * @param failure why the job failed, empty if it finished
 * @param makespan the time of the last task's end (of the failure, if the job failed)
 * @param slotTime the slot-time held by task attempts, from start to end
 * @param busyTime the slot-time spent processing: a finished attempt's work, the part of an
 *     unfinished attempt's work that fits in its time in the slot
 * @param waitingInSlot slot-time finished attempts held while waiting for their producers' data
 * @param resourceGap idle slot-time while tasks were waiting to start: the integral over time of
 *     {@code min(free slots, tasks not started and not finished)}
 * @param restarts restart decisions carried out
 * @param restartWork slot-time held by attempts that did not finish (failed or cancelled)
 * @param dataTotal data carried by the non-pipelined edges, one unit per unit of producer work per
 *     edge, counting each edge's producers once
 * @param dataToDisk data written to disk, all attempts: BLOCKING and HYBRID_FULL edges write all
 *     (for every finished producer attempt), HYBRID_SELECTIVE the part produced before its consumer
 *     started, PIPELINED nothing
 * @param partitionsReleased partitions the scheduler's release tracking released
 * @param trace every task attempt
 */
public record SimulationResult(
        JobGraph graph,
        int slots,
        boolean finished,
        String failure,
        double makespan,
        double slotTime,
        double busyTime,
        double waitingInSlot,
        double resourceGap,
        int restarts,
        double restartWork,
        double dataTotal,
        double dataToDisk,
        long partitionsReleased,
        Trace trace) {
    /** Slot-time held by tasks over the slot-time available until the makespan, in [0, 1]. */
    public double slotOccupancy() {
        return makespan == 0 ? 0 : slotTime / (slots * makespan);
    }

    /** Slot-time spent processing over the slot-time available until the makespan, in [0, 1]. */
    public double busyUtilisation() {
        return makespan == 0 ? 0 : busyTime / (slots * makespan);
    }

    /** The share of the non-pipelined edges' data written to disk (above 1 with restarts). */
    public double diskFraction() {
        return dataTotal == 0 ? 0 : dataToDisk / dataTotal;
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
