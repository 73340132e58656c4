package io.railyard.shuffle.local;

import com.google.common.collect.ImmutableMap;
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
        int partitionsLeft) {
    /** How the job ended. */
    public enum State {
        /** Every task finished. */
        FINISHED,
        /** The restart policy gave up (or the JobManager core failed): see the cause. */
        FAILED
    }

    /** Everything every sink committed, summed. */
    public Tally committedTotal() {
        Tally total = Tally.ZERO;
        for (Tally tally : committed.values()) {
            total = total.plus(tally);
        }
        return total;
    }
}
