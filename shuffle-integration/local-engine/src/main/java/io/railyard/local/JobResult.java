package io.railyard.local;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import io.railyard.worker.Tally;
import java.util.List;

/**
 * How a job run on the {@link LocalEngine} ended: its outcome, what its sinks committed, what the
 * run took, what it left behind and the bytes its shuffle moved. Immutable.
 *
 * @param outcome {@link Finished}, or {@link Failed} with the cause when the restart policy gave up
 * @param committed per job vertex without outputs (a sink), what its finished tasks committed
 * @param stats restarts, task attempts deployed, wall time and the most slots busy at once
 * @param leaks pages, files, partitions and blobs the job left behind (none unless a bug)
 * @param shuffle what the workers' shuffle layers moved during the job, every attempt's included
 */
public record JobResult(
        Outcome outcome,
        ImmutableMap<Integer, Tally> committed,
        Stats stats,
        Leaks leaks,
        ShuffleBytes shuffle) {

    /** The outcome of a job whose every task finished. */
    public static final Finished FINISHED = new Finished();

    /** Checks that every part is given. */
    public JobResult {
        requireNonNull(outcome, "outcome");
        requireNonNull(committed, "committed");
        requireNonNull(stats, "stats");
        requireNonNull(leaks, "leaks");
        requireNonNull(shuffle, "shuffle");
    }

    /**
     * How a job ended: {@link Finished} (every task finished) or {@link Failed} (with the failure
     * that ended it). Callers branch with {@code instanceof}; {@code toString()} is the word the
     * {@code run} command prints, {@code FINISHED} or {@code FAILED}, the failure after it.
     */
    public sealed interface Outcome permits Finished, Failed {}

    /** Every task finished. All instances are equal; {@link #FINISHED} is one. */
    public record Finished() implements Outcome {
        /** {@code FINISHED}. */
        @Override
        public String toString() {
            return "FINISHED";
        }
    }

    /**
     * The restart policy gave up, or the JobManager core failed.
     *
     * @param cause the failure that ended the job, its cause chain intact
     */
    public record Failed(Throwable cause) implements Outcome {
        /** Checks that the cause is given. */
        public Failed {
            requireNonNull(cause, "cause");
        }

        /** {@code FAILED: } and the cause. */
        @Override
        public String toString() {
            return "FAILED: " + cause;
        }
    }

    /**
     * What a job's run took.
     *
     * @param restarts restart decisions taken
     * @param tasksDeployed task attempts deployed
     * @param wallNanos from start to the end
     * @param maxSlotsBusy the most slots, over all workers, that ran a task attempt at one time: in
     *     {@code [1, workers × slots]} for a job that deployed a task
     */
    public record Stats(int restarts, long tasksDeployed, long wallNanos, int maxSlotsBusy) {
        /** Checks that no figure is negative. */
        public Stats {
            checkArgument(restarts >= 0, "restarts must be >= 0, was %s", restarts);
            checkArgument(tasksDeployed >= 0, "tasksDeployed must be >= 0, was %s", tasksDeployed);
            checkArgument(wallNanos >= 0, "wallNanos must be >= 0, was %s", wallNanos);
            checkArgument(maxSlotsBusy >= 0, "maxSlotsBusy must be >= 0, was %s", maxSlotsBusy);
        }
    }

    /**
     * What a job left behind, counted when it ended: 0 each unless a bug.
     *
     * @param pages network-buffer pages still in use after the job
     * @param files partition files left in the workers' directories after the job
     * @param partitions partitions nobody released by the end (released then)
     * @param blobs blobs in the job's blob store (offloaded descriptors) when the job ended, before
     *     the JobMaster closed: every partition released drops the descriptors naming it (closing
     *     drops the rest)
     * @param tasksNotStopped task attempts whose code ignored their cancellation for the engine's
     *     grace (30 s) once the job ended, each with what it was doing: their threads still run in
     *     their slots (a JVM cannot stop them); their partitions were released under them
     */
    public record Leaks(
            long pages, long files, int partitions, int blobs, List<String> tasksNotStopped) {
        /** Copies the list. */
        public Leaks {
            tasksNotStopped = List.copyOf(tasksNotStopped);
        }

        /** Nothing left behind and every attempt stopped. */
        public Leaks(long pages, long files, int partitions, int blobs) {
            this(pages, files, partitions, blobs, List.of());
        }

        /**
         * Whether nothing was left behind: no page, file, partition or blob, and no attempt still
         * running.
         */
        public boolean isClean() {
            return pages == 0
                    && files == 0
                    && partitions == 0
                    && blobs == 0
                    && tasksNotStopped.isEmpty();
        }
    }

    /**
     * Bytes the shuffle layers of all workers moved during one job, summed over the workers and
     * over every task attempt (a restarted attempt's writes and reads count too). Bytes of frames
     * as the partitions store them, headers included.
     *
     * @param writtenToDisk written to partition files: sort and hash partitions' data, hybrid
     *     partitions' data files (write-through or memory short) and their spill files
     * @param readFromDisk read back from partition files: by the IO threads for blocking
     *     partitions, and by the readers of hybrid partitions from their data or spill files
     * @param readFromMemory delivered to readers of hybrid (and pipelined) partitions straight from
     *     the producer's resident pages, never touching a file
     */
    public record ShuffleBytes(long writtenToDisk, long readFromDisk, long readFromMemory) {
        /** Nothing moved. */
        public static final ShuffleBytes NONE = new ShuffleBytes(0, 0, 0);
    }

    /** Everything every sink committed, summed. */
    public Tally committedTotal() {
        Tally total = Tally.ZERO;
        for (Tally tally : committed.values()) {
            total = total.plus(tally);
        }
        return total;
    }

    /**
     * Records the sinks committed per second of wall time: {@code committedTotal().records()} over
     * {@link Stats#wallNanos}; 0 if no time passed.
     */
    public double recordsPerSecond() {
        long wallNanos = stats.wallNanos();
        return wallNanos > 0 ? committedTotal().records() * 1e9 / wallNanos : 0;
    }
}
