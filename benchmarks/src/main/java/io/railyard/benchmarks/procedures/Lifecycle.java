package io.railyard.benchmarks.procedures;

import static com.google.common.base.Preconditions.checkState;

import io.railyard.deployment.DeploymentDescriptors;
import io.railyard.failover.FailoverHandler;
import io.railyard.failover.FailureHandling;
import io.railyard.topology.JobGraph;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.BitSet;

/**
 * A job's whole scheduler lifecycle once: initialise, schedule what has no gating input, finish the
 * first job vertex's tasks (the sources; what they unlock is scheduled), create and encode every
 * task's deployment descriptor, fail source task 0 and restart what the region rules restart, then
 * finish every task still unfinished, in id order, so that every scheduler-released partition is
 * released. {@code heap-probe} runs it under a given {@code -Xmx}; {@code scripts/min-heap.sh}
 * bisects for the smallest heap that suffices.
 */
public final class Lifecycle {
    private Lifecycle() {}

    /**
     * What one lifecycle did.
     *
     * @param descriptorBytes bytes of every descriptor encoded
     * @param restartedTasks tasks the source failure restarted
     * @param finishedTasks task finish events delivered, restarted tasks counted again
     */
    public record Result(long descriptorBytes, int restartedTasks, long finishedTasks) {
        /** All three summed: printed so that nothing is elided. */
        public long checksum() {
            return descriptorBytes + restartedTasks + finishedTasks;
        }
    }

    /** {@link #run(JobGraph)} on the reference job at {@code parallelism}. */
    public static Result run(int parallelism) throws IOException {
        return run(ReferenceJobs.reference(parallelism));
    }

    /**
     * Runs the lifecycle of {@code graph}, whose job vertices must be numbered in topological order
     * (as {@link JobGraph#builder()} numbers them when producers are added first). O(tasks +
     * groups).
     *
     * @throws IllegalStateException if a task's region is not scheduled when its turn comes
     */
    public static Result run(JobGraph graph) throws IOException {
        Initialized job = Initialized.of(graph);
        FailoverHandler failover = job.failover();
        job.strategy().startScheduling();
        BitSet finished = new BitSet(graph.numTasks());
        long finishedTasks =
                finishAll(failover, finished, graph.firstTask(0) + graph.parallelism(0));
        DeploymentDescriptors descriptors = job.descriptors();
        long bytes = 0;
        for (int task = 0; task < graph.numTasks(); task++) {
            bytes += descriptors.create(task, failover.attempt(task)).encode().length;
        }
        FailureHandling handling =
                failover.onTaskFailed(0, 0, new IllegalStateException("source#0 fails"), -1);
        handling.restartSet()
                .forEachTask(
                        task -> {
                            finished.clear(task);
                            invalidateOutputs(graph, descriptors, task);
                        });
        failover.restart(handling);
        finishedTasks += finishAll(failover, finished, graph.numTasks());
        return new Result(bytes, handling.restartSet().numTasks(), finishedTasks);
    }

    /** Finishes every unfinished task below {@code end}, in id order; returns how many. */
    private static long finishAll(FailoverHandler failover, BitSet finished, int end) {
        long count = 0;
        for (int task = finished.nextClearBit(0); task < end; task = finished.nextClearBit(task)) {
            checkState(
                    failover.onTaskFinished(task, failover.attempt(task)),
                    "task %s was not running when its turn came",
                    task);
            finished.set(task);
            count++;
        }
        return count;
    }

    /** A restarted task's partitions get a new producer attempt: drop their cached groups. */
    private static void invalidateOutputs(
            JobGraph graph, DeploymentDescriptors descriptors, int task) {
        int v = graph.vertexOfTask(task);
        for (int k = 0; k < graph.numProducedDataSets(v); k++) {
            int partition =
                    graph.firstPartition(graph.producedDataSet(v, k)) + graph.subtaskIndex(task);
            try {
                descriptors.invalidatePartition(partition);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
