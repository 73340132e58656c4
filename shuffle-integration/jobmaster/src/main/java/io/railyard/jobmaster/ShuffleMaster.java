package io.railyard.jobmaster;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.deployment.ShuffleDescriptorSource;
import io.railyard.deployment.WorkerTable;
import io.railyard.failover.FailoverHandler;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedInts;
import io.railyard.topology.PartitionId;

/**
 * The master side of the shuffle seam: where each task runs, hence where the partitions it produces
 * live, and which attempt writes them — the facts the shuffle descriptors in deployment descriptors
 * carry ({@link ShuffleDescriptorSource}). Fed by placement events ({@link #place}, {@link
 * #unplace}); the attempt of a partition is its producer's current attempt, read from the {@link
 * FailoverHandler} that bumps it (one source of truth).
 *
 * <p>A partition of an unplaced producer has no worker: encoding a group that holds one fails
 * loudly ({@code IllegalStateException} from the encoder), since a consumer must never be told a
 * location that does not exist. Every partition of a worker is served at connection index 0 (one
 * shuffle endpoint per worker).
 *
 * <p>Not thread-safe: the JobManager's main thread. One int per task; every query O(1) (the attempt
 * as {@link FailoverHandler#attempt}) and allocation-free, except {@link #partitionId}.
 */
public final class ShuffleMaster implements ShuffleDescriptorSource {
    private final JobGraph graph;
    private final WorkerTable workers;
    private final FailoverHandler attempts;
    private final PackedInts placed; // per task: its worker + 1, or 0 when not placed

    /** A master for {@code graph}'s tasks on {@code workers}; no task is placed yet. O(tasks). */
    public ShuffleMaster(JobGraph graph, WorkerTable workers, FailoverHandler attempts) {
        this.graph = graph;
        this.workers = workers;
        this.attempts = attempts;
        this.placed = PackedInts.zeros(graph.numTasks());
    }

    /**
     * Task {@code task} runs (will run) on worker {@code worker}; its partitions live there.
     *
     * @throws IndexOutOfBoundsException if either is out of range, naming which
     */
    public void place(int task, int worker) {
        checkElementIndex(task, placed.size(), "task");
        checkElementIndex(worker, workers.size(), "worker");
        placed.set(task, worker + 1);
    }

    /**
     * Tasks {@code [fromTask, toTask)} are no longer placed (restarted): their partitions have no
     * worker until they are placed again. O(toTask - fromTask).
     *
     * @throws IllegalArgumentException if the range is not within the tasks
     */
    public void unplace(int fromTask, int toTask) {
        checkArgument(
                0 <= fromTask && fromTask <= toTask && toTask <= placed.size(),
                "task range [%s, %s) is not within [0, %s)",
                fromTask,
                toTask,
                placed.size());
        placed.fill(fromTask, toTask, 0);
    }

    /** The worker of task {@code task}, or -1 if it is not placed. */
    public int workerOfTask(int task) {
        checkElementIndex(task, placed.size(), "task");
        return placed.get(task) - 1;
    }

    /** Partition {@code partition} as its current producer attempt writes it. */
    public PartitionId partitionId(int partition) {
        return new PartitionId(partition, producerAttempt(partition));
    }

    @Override
    public WorkerTable workers() {
        return workers;
    }

    /** The producer's worker, or -1 if it is not placed (encoding then fails). */
    @Override
    public int worker(int partition) {
        return placed.get(graph.producerTask(partition)) - 1;
    }

    @Override
    public int connectionIndex(int partition) {
        return 0;
    }

    @Override
    public int producerAttempt(int partition) {
        return attempts.attempt(graph.producerTask(partition));
    }
}
