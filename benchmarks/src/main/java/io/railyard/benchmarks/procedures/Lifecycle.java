package io.railyard.benchmarks.procedures;

import static com.google.common.base.Preconditions.checkState;

import io.railyard.failover.FailureHandling;
import io.railyard.jobmaster.JobMaster;
import io.railyard.jobmaster.WorkerGateway;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.util.BitSet;

/**
 * A job's whole scheduler lifecycle once, on its JobManager core ({@link JobMaster}, with a gateway
 * that counts what it is handed and ships nothing): start (deploy what has no gating input, each
 * task's descriptor encoded), finish the first job vertex's tasks (the sources; what they unlock is
 * deployed), fail source task 0 and restart what the region rules restart (cancelled, released,
 * redeployed), then finish every task still unfinished, in id order, so that every partition is
 * released. {@code heap-probe} runs it under a given {@code -Xmx}; {@code scripts/min-heap.sh}
 * bisects for the smallest heap that suffices.
 */
public final class Lifecycle {
    private Lifecycle() {}

    /**
     * What one lifecycle did.
     *
     * @param descriptorBytes bytes of every descriptor deployed, redeployments included
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
     * @throws IllegalStateException if a task is not running (deployed, current) when its turn to
     *     finish comes, or the source failure is not restarted
     */
    public static Result run(JobGraph graph) throws IOException {
        CountingGateway gateway = new CountingGateway();
        JobMaster master = IdleJobMaster.of(graph, gateway);
        master.start();
        BitSet finished = new BitSet(graph.numTasks());
        long finishedTasks = finishAll(master, finished, graph.firstTask(0) + graph.parallelism(0));
        FailureHandling handling =
                master.onTaskFailed(
                        0, master.attempt(0), new IllegalStateException("source#0 fails"));
        checkState(
                handling instanceof FailureHandling.Restart,
                "the source failure was not restarted: %s",
                handling);
        FailureHandling.Restart restart = (FailureHandling.Restart) handling;
        restart.tasks().forEachTask(finished::clear);
        master.restart(restart);
        finishedTasks += finishAll(master, finished, graph.numTasks());
        master.close();
        return new Result(gateway.descriptorBytes, restart.tasks().numTasks(), finishedTasks);
    }

    /** Finishes every unfinished task below {@code end}, in id order; returns how many. */
    private static long finishAll(JobMaster master, BitSet finished, int end) throws IOException {
        long count = 0;
        for (int task = finished.nextClearBit(0); task < end; task = finished.nextClearBit(task)) {
            checkState(
                    master.shuffleMaster().workerOfTask(task) >= 0
                            && master.onTaskFinished(task, master.attempt(task)),
                    "task %s was not running when its turn came",
                    task);
            finished.set(task);
            count++;
        }
        return count;
    }

    /** Counts the descriptor bytes it is handed; ships nothing. */
    private static final class CountingGateway implements WorkerGateway {
        long descriptorBytes;

        @Override
        public void deploy(int worker, byte[] descriptor) {
            descriptorBytes += descriptor.length;
        }

        @Override
        public void cancel(int worker, int task, int attempt) {}

        @Override
        public void releasePartition(int worker, PartitionId partition) {}
    }
}
