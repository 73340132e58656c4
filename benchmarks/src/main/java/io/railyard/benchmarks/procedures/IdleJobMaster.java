package io.railyard.benchmarks.procedures;

import io.railyard.deployment.JobId;
import io.railyard.deployment.WorkerTable;
import io.railyard.failover.FailureHandling;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.jobmaster.DeployFailureListener;
import io.railyard.jobmaster.JobMaster;
import io.railyard.jobmaster.WorkerGateway;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The JobManager core ({@link JobMaster}) of a job, built and not started, on {@link
 * DeployProcedures#WORKERS} workers with round-robin placement (the default) and, unless one is
 * given, a gateway that ships nothing: what the report's "initialization" procedure builds and what
 * its memory rows weigh with JOL — the whole state an embedding master holds for the job (job
 * graph, topology and groups, regions, the scheduling strategy's counters, failover with partition
 * availability, release counters and attempts, the shuffle master's placement, the worker table and
 * the descriptor cache). Flink's counterpart is its initialised execution graph. Its parts are
 * named classes, not lambdas, so that JOL can walk them.
 */
public final class IdleJobMaster {
    /**
     * The workers, built once: like the job graph, the table is the embedder's input (its resource
     * manager's view), not part of initialising a job, so it is not in the timed procedure.
     */
    private static final WorkerTable WORKER_TABLE = workerTable();

    private IdleJobMaster() {}

    private static WorkerTable workerTable() {
        List<String> workers = new ArrayList<>(DeployProcedures.WORKERS);
        for (int w = 0; w < DeployProcedures.WORKERS; w++) {
            workers.add("worker-" + w + ":6121");
        }
        return new WorkerTable(workers);
    }

    /** The JobMaster of the reference job at {@code parallelism}. O(tasks + groups + workers). */
    public static JobMaster of(int parallelism) {
        return of(ReferenceJobs.reference(parallelism));
    }

    /**
     * The JobMaster of {@code graph} with a gateway that ships nothing. O(tasks + groups +
     * workers); the calling thread owns it.
     */
    public static JobMaster of(JobGraph graph) {
        return of(graph, new NoGateway());
    }

    /**
     * The JobMaster of {@code graph} reaching workers through {@code gateway}. O(tasks + groups +
     * workers); the calling thread owns it.
     */
    public static JobMaster of(JobGraph graph, WorkerGateway gateway) {
        return JobMaster.builder(graph, WORKER_TABLE, gateway, new NoDeployFailures())
                .jobId(new JobId(0, graph.numTasks()))
                .restartPolicy(RestartBackoffPolicy.fixedDelay(3, Duration.ofSeconds(1)))
                .build();
    }

    /** A benchmark's deploys do not fail: one that does ends the benchmark with its cause. */
    private static final class NoDeployFailures implements DeployFailureListener {
        @Override
        public void deployFailed(int task, int attempt, FailureHandling handling) {
            throw new IllegalStateException(
                    "task " + task + " attempt " + attempt + " could not be deployed",
                    handling.cause());
        }
    }

    /** Ships nothing. */
    private static final class NoGateway implements WorkerGateway {
        @Override
        public void deploy(int worker, byte[] descriptor) {}

        @Override
        public void cancel(int worker, int task, int attempt) {}

        @Override
        public void releasePartition(int worker, PartitionId partition) {}
    }
}
