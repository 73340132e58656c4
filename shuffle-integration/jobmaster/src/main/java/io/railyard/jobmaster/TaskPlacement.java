package io.railyard.jobmaster;

/**
 * Chooses the worker a task runs on, asked once per deployment in the scheduling strategy's order.
 * Called on the JobManager's main thread.
 */
@FunctionalInterface
public interface TaskPlacement {
    /** The worker for task {@code task}, in {@code [0, workers)}. */
    int workerFor(int task);
}
