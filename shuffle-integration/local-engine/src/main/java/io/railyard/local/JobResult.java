package io.railyard.local;

import com.google.common.collect.ImmutableMap;
import io.railyard.worker.Tally;
import org.jspecify.annotations.Nullable;

/**
 * How a job run on the {@link LocalEngine} ended.
 *
 * @param state FINISHED, or FAILED when the restart policy gave up
 * @param cause the failure that ended a FAILED job (its cause chain intact), null when FINISHED
 * @param committed per job vertex without outputs (a sink), what its finished tasks committed
 * @param restarts restart decisions taken
 * @param tasksDeployed task attempts deployed
 * @param wallNanos from start to the end
 * @param leakedPages network-buffer pages still in use after the job (0 unless a bug)
 * @param leakedFiles partition files left in the workers' directories after the job
 * @param partitionsLeft partitions nobody released by the end (released then; 0 unless a bug)
 * @param blobsLeft blobs in the job's blob store (offloaded descriptors) when the job ended, before
 *     the JobMaster closed: every partition released drops the descriptors naming it, so 0 unless a
 *     bug (closing drops the rest)
 * @param shuffle what the workers' shuffle layers moved during the job, every attempt's included
 * @param maxSlotsBusy the most slots, over all workers, that ran a task attempt at one time: in
 *     {@code [1, workers × slots]} for a job that deployed a task
 */
public record JobResult(
        State state,
        @Nullable Throwable cause,
        ImmutableMap<Integer, Tally> committed,
        int restarts,
        long tasksDeployed,
        long wallNanos,
        long leakedPages,
        long leakedFiles,
        int partitionsLeft,
        int blobsLeft,
        ShuffleBytes shuffle,
        int maxSlotsBusy) {
    /** How the job ended. */
    public enum State {
        /** Every task finished. */
        FINISHED,
        /** The restart policy gave up (or the JobManager core failed): see the cause. */
        FAILED
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
     * {@link #wallNanos}; 0 if no time passed.
     */
    public double recordsPerSecond() {
        return wallNanos > 0 ? committedTotal().records() * 1e9 / wallNanos : 0;
    }
}
