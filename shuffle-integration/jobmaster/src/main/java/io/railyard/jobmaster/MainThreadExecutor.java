package io.railyard.jobmaster;

import java.io.IOException;

/**
 * How a {@link JobMaster} hands work back to its own main thread: the embedding master runs a
 * {@link Step} later, on that thread, after the events already queued there (a heartbeat, a task's
 * end), and treats its {@code IOException} as that of any event (for instance, it fails the job).
 * Used to deploy a large set of tasks in slices ({@link JobMaster.Builder#deployInSlices}).
 */
@FunctionalInterface
public interface MainThreadExecutor {
    /** A piece of JobManager work for the main thread. */
    @FunctionalInterface
    interface Step {
        /**
         * Runs the step.
         *
         * @throws IOException as the JobMaster's event methods do (e.g. a deployment that could not
         *     be handed over)
         */
        void run() throws IOException;
    }

    /** Runs {@code step} on the main thread, after what is already queued there. */
    void execute(Step step);
}
