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
 * tasks with the same seed. Memory: {@link #bitsPerTask()} = ceil(log2(workers)) bits per task,
 * packed into longs (10 bits at 1,000 workers: 1.25 MB at 1,000,000 tasks instead of 4 MB as an int
 * per task); the sequence of workers is that of an int per task drawn from the same seed. Immutable
 * after construction.
 */
public final class RandomPlacement implements ShuffleDescriptorSource {
    private final JobGraph graph;
    private final WorkerTable workers;
    private final int numTasks;
    private final int bits; // per task: ceil(log2(numWorkers)), at least 1
    private final long[] packed; // task t's worker at bits [t * bits, (t + 1) * bits)

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
        this.numTasks = graph.numTasks();
        this.bits = Math.max(1, 32 - Integer.numberOfLeadingZeros(numWorkers - 1));
        this.packed = new long[(int) (((long) numTasks * bits + 63) >>> 6)];
        SplittableRandom random = new SplittableRandom(seed);
        for (int task = 0; task < numTasks; task++) {
            set(task, random.nextInt(numWorkers));
        }
    }

    private void set(int task, int worker) {
        long bit = (long) task * bits;
        int word = (int) (bit >>> 6);
        int shift = (int) (bit & 63);
        packed[word] |= (long) worker << shift;
        if (shift + bits > 64) { // the rest spills into the next word
            packed[word + 1] |= (long) worker >>> (64 - shift);
        }
    }

    private int get(int task) {
        long bit = (long) task * bits;
        int word = (int) (bit >>> 6);
        int shift = (int) (bit & 63);
        long value = packed[word] >>> shift;
        if (shift + bits > 64) {
            value |= packed[word + 1] << (64 - shift);
        }
        return (int) (value & ((1L << bits) - 1));
    }

    /** The worker of task {@code task}. O(1), no allocation. */
    public int workerOfTask(int task) {
        return get(checkElementIndex(task, numTasks, "task"));
    }

    /** Bits each task's worker takes: ceil(log2(workers)), at least 1. */
    public int bitsPerTask() {
        return bits;
    }

    @Override
    public WorkerTable workers() {
        return workers;
    }

    @Override
    public int worker(int partition) {
        return get(graph.producerTask(partition));
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
