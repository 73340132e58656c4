package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.topology.JobGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Shuffle descriptors for a job whose tasks are spread over a fixed set of workers, round-robin
 * (task {@code t} on worker {@code t mod workers}) or at random ({@link #randomPlacement}); every
 * connection index is 0, and each producer attempt starts at 0 and moves with {@link
 * #setProducerAttempt(int, int)}. Memory: two ints per task. Not thread-safe.
 *
 * <p>A placement fixture for tests and benchmarks, shipped in this module's test-jar; a real
 * placement comes from the shuffle layer.
 */
public final class StaticShuffleDescriptors implements ShuffleDescriptorSource {
    private final JobGraph graph;
    private final WorkerTable workers;
    private final int[] attempt; // per task
    private final int[] workerOfTask; // per task

    /**
     * {@code numWorkers} workers named {@code worker-N.railyard:6121}, N from 0.
     *
     * @throws IllegalArgumentException if {@code numWorkers} is not in [1, {@link
     *     WorkerTable#MAX_WORKERS}]
     */
    public StaticShuffleDescriptors(JobGraph graph, int numWorkers) {
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
        this.attempt = new int[graph.numTasks()];
        this.workerOfTask = new int[graph.numTasks()];
        for (int task = 0; task < workerOfTask.length; task++) {
            workerOfTask[task] = task % numWorkers;
        }
    }

    /**
     * Tasks placed on {@code numWorkers} workers uniformly at random (seeded): no pattern for the
     * encoding to exploit, the realistic worst case for the worker column.
     */
    public static StaticShuffleDescriptors randomPlacement(
            JobGraph graph, int numWorkers, long seed) {
        StaticShuffleDescriptors descriptors = new StaticShuffleDescriptors(graph, numWorkers);
        SplittableRandom random = new SplittableRandom(seed);
        for (int task = 0; task < descriptors.workerOfTask.length; task++) {
            descriptors.workerOfTask[task] = random.nextInt(numWorkers);
        }
        return descriptors;
    }

    /**
     * Tasks placed mostly (15 in 16) on the first 8 workers at random and otherwise on the last
     * (seeded): small values with rare large ones, which varints store best.
     */
    public static StaticShuffleDescriptors skewedPlacement(
            JobGraph graph, int numWorkers, long seed) {
        StaticShuffleDescriptors descriptors = new StaticShuffleDescriptors(graph, numWorkers);
        SplittableRandom random = new SplittableRandom(seed);
        for (int task = 0; task < descriptors.workerOfTask.length; task++) {
            descriptors.workerOfTask[task] =
                    random.nextInt(16) == 0
                            ? numWorkers - 1
                            : random.nextInt(Math.min(8, numWorkers));
        }
        return descriptors;
    }

    /** The worker of task {@code task}. */
    public int workerOfTask(int task) {
        return workerOfTask[checkElementIndex(task, graph.numTasks(), "task")];
    }

    /** Task {@code task} now runs as attempt {@code attempt} (failover). */
    public void setProducerAttempt(int task, int newAttempt) {
        checkElementIndex(task, graph.numTasks(), "task");
        checkArgument(newAttempt >= 0, "attempt must be >= 0, was %s", newAttempt);
        attempt[task] = newAttempt;
    }

    @Override
    public WorkerTable workers() {
        return workers;
    }

    @Override
    public int worker(int partition) {
        return workerOfTask(graph.producerTask(partition));
    }

    @Override
    public int connectionIndex(int partition) {
        checkElementIndex(partition, graph.numPartitions(), "partition");
        return 0;
    }

    @Override
    public int producerAttempt(int partition) {
        return attempt[graph.producerTask(partition)];
    }
}
