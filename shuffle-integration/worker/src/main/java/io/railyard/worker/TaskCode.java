package io.railyard.worker;

/**
 * What one task attempt does: reads its inputs, emits to its outputs, and returns what it commits.
 * The result counts only if the attempt finishes and is still current then: a restarted attempt's
 * partial output never counts.
 */
@FunctionalInterface
public interface TaskCode {
    /**
     * Runs the task to its end.
     *
     * @return what the task commits (for a sink, the records it received)
     * @throws Exception any failure: the task fails and failover decides what restarts
     */
    Tally run(TaskContext context) throws Exception;

    /** Chooses the code of each task attempt. */
    @FunctionalInterface
    interface Factory {
        /**
         * The code of attempt {@code attempt} of subtask {@code subtask} of vertex {@code vertex}.
         */
        TaskCode create(int vertex, int subtask, int attempt);
    }
}
