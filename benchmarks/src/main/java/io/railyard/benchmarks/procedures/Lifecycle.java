package io.railyard.benchmarks.procedures;

import io.railyard.deployment.DeploymentDescriptors;
import io.railyard.failover.FailoverHandler;
import io.railyard.failover.FailureHandling;
import io.railyard.topology.JobGraph;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The reference job's whole scheduler lifecycle once: initialise, schedule the sources, finish them
 * (which schedules the sinks), create and encode every task's deployment descriptor, fail one
 * source task and restart it. {@code heap-probe} runs it under a given {@code -Xmx}; {@code
 * scripts/min-heap.sh} bisects for the smallest heap that suffices.
 */
public final class Lifecycle {
    private Lifecycle() {}

    /**
     * Runs the lifecycle at {@code parallelism}; returns the bytes of the descriptors encoded plus
     * the tasks restarted (so that nothing is elided). O(tasks).
     */
    public static long run(int parallelism) throws IOException {
        Initialized job = Initialized.of(parallelism);
        JobGraph graph = job.strategy().regions().topology().jobGraph();
        FailoverHandler failover = job.failover();
        job.strategy().startScheduling();
        for (int source = 0; source < parallelism; source++) {
            failover.onTaskFinished(source, 0);
        }
        DeploymentDescriptors descriptors = job.descriptors();
        long bytes = 0;
        for (int task = 0; task < graph.numTasks(); task++) {
            bytes += descriptors.create(task, failover.attempt(task)).encode().length;
        }
        FailureHandling handling =
                failover.onTaskFailed(0, 0, new IllegalStateException("source#0 fails"), -1);
        handling.restartSet().forEachTask(task -> invalidateOutputs(graph, descriptors, task));
        failover.restart(handling);
        return bytes + handling.restartSet().numTasks();
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
