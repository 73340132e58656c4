package io.railyard.benchmarks.procedures;

import io.railyard.deployment.InMemoryBlobStore;
import io.railyard.deployment.JobId;
import io.railyard.deployment.OffloadOptions;
import io.railyard.deployment.WorkerTable;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.jobmaster.JobMaster;
import io.railyard.jobmaster.TaskPlacement;
import io.railyard.jobmaster.WorkerGateway;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The JobManager core ({@link JobMaster}) of a job, built and not started, on {@link
 * DeployProcedures#WORKERS} workers with round-robin placement and a gateway that ships nothing:
 * what the report's {@code memory.job_master} weighs with JOL — the whole facade an embedding
 * master holds (everything {@link Initialized} holds, plus the shuffle master's worker per task,
 * the worker table and the facade's own per-region counters). Its parts are named classes, not
 * lambdas, so that JOL can walk them.
 */
public final class IdleJobMaster {
    private IdleJobMaster() {}

    /**
     * The JobMaster of {@code graph}. O(tasks + groups + workers); call on the thread that owns it.
     */
    public static JobMaster of(JobGraph graph) {
        List<String> workers = new ArrayList<>(DeployProcedures.WORKERS);
        for (int w = 0; w < DeployProcedures.WORKERS; w++) {
            workers.add("worker-" + w + ":6121");
        }
        return new JobMaster(
                new JobId(0, graph.numTasks()),
                graph,
                new WorkerTable(workers),
                new RoundRobin(DeployProcedures.WORKERS),
                new NoGateway(),
                RestartBackoffPolicy.fixedDelay(3, Duration.ofSeconds(1)),
                new InMemoryBlobStore(),
                OffloadOptions.DEFAULT);
    }

    /** Places tasks on workers in turn. */
    private static final class RoundRobin implements TaskPlacement {
        private final int workers;
        private int next;

        RoundRobin(int workers) {
            this.workers = workers;
        }

        @Override
        public int workerFor(int task) {
            int worker = next;
            next = (next + 1) % workers;
            return worker;
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
