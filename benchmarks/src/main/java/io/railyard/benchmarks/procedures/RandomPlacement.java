package io.railyard.benchmarks.procedures;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.deployment.ShuffleDescriptorSource;
import io.railyard.deployment.WorkerTable;
import io.railyard.topology.JobGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The placement every deployment measurement uses: each task on one of {@code numWorkers} workers
 * (named {@code worker-N.railyard:6121}) chosen uniformly at random with a fixed seed — no pattern
 * for the descriptor encoding to exploit, the realistic worst case for its worker column — every
 * connection index 0 and every producer at attempt 0. Flink's side of the comparison places its
 * tasks with the same seed. Memory: one int per task. Immutable after construction.
 */
public final class RandomPlacement implements ShuffleDescriptorSource {
    private final JobGraph graph;
    private final WorkerTable workers;
    private final int[] workerOfTask;

    /**
     * Places every task of {@code graph} on {@code numWorkers} workers, seeded by {@code seed}.
     * O(tasks).
     *
     * @throws IllegalArgumentException if {@code numWorkers} is not in [1, {@link
     *     WorkerTable#MAX_WORKERS}]
     */
    public RandomPlacement(JobGraph graph, int numWorkers, long seed) {
        checkArgument(
                numWorkers >= 1 && numWorkers <= WorkerTable.MAX_WORKERS,
                "numWorkers must be in [1, %s], was %s",
                WorkerTable.MAX_WORKERS,
                numWorkers);
        List<String> locations = new ArrayList<>(numWorkers);
        for (int i = 0; i < numWorkers; i++) {
            locations.add("worker-" + i + ".railyard:6121");
        }
        this.graph = graph;
        this.workers = new WorkerTable(locations);
        this.workerOfTask = new int[graph.numTasks()];
        SplittableRandom random = new SplittableRandom(seed);
        for (int task = 0; task < workerOfTask.length; task++) {
            workerOfTask[task] = random.nextInt(numWorkers);
        }
    }

    /** The worker of task {@code task}. O(1). */
    public int workerOfTask(int task) {
        return workerOfTask[checkElementIndex(task, workerOfTask.length, "task")];
    }

    @Override
    public WorkerTable workers() {
        return workers;
    }

    @Override
    public int worker(int partition) {
        return workerOfTask[graph.producerTask(partition)];
    }

    @Override
    public int connectionIndex(int partition) {
        checkElementIndex(partition, graph.numPartitions(), "partition");
        return 0;
    }

    @Override
    public int producerAttempt(int partition) {
        checkElementIndex(partition, graph.numPartitions(), "partition");
        return 0;
    }
}
