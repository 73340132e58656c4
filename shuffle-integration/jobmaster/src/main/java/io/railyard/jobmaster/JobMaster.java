package io.railyard.jobmaster;

import static java.util.Objects.requireNonNull;

import io.railyard.deployment.BlobKey;
import io.railyard.deployment.BlobNotFoundException;
import io.railyard.deployment.BlobStore;
import io.railyard.deployment.CorruptBlobException;
import io.railyard.deployment.DeploymentDescriptors;
import io.railyard.deployment.InMemoryBlobStore;
import io.railyard.deployment.JobId;
import io.railyard.deployment.JobSecret;
import io.railyard.deployment.OffloadOptions;
import io.railyard.deployment.SliceBudget;
import io.railyard.deployment.WorkerTable;
import io.railyard.failover.FailureHandling;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.failover.RestartSet;
import io.railyard.regions.TaskRangeCursor;
import io.railyard.topology.Failures;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import it.unimi.dsi.fastutil.ints.IntList;
import java.io.IOException;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * The JobManager core of one job: its {@link JobScheduler} (topology, pipelined regions, region
 * scheduling strategy, failover with restart back-off, partition release), shuffle master and
 * deployment-descriptor cache behind one facade that an embedding master drives with task events
 * and that reaches workers through a {@link WorkerGateway}.
 *
 * <ul>
 *   <li>Deploying: when the scheduler deploys regions, every task of them is placed first ({@link
 *       TaskPlacement}, so producers and consumers deployed together know each other's workers),
 *       then each gets its descriptor, encoded once per consumed group and cached, and is deployed
 *       — within the event, or in slices between which the main thread serves other events ({@link
 *       Builder#deployInSlices}; a restart decided between two slices drops the restarted regions'
 *       tasks not deployed yet).
 *   <li>A deploy that fails — the gateway's {@link WorkerGateway#deploy} or the creation of the
 *       task's descriptor (offloading a group to the blob store) throws an {@link IOException} — is
 *       that attempt's failure: once the event's scheduler call has returned, the failover decides
 *       about it as about a reported failure and the {@link DeployFailureListener} hears the
 *       decision, which the embedding master runs as it runs {@link #onTaskFailed}'s. The tasks
 *       queued after the failed one are still deployed unless the decision restarts them; a region
 *       is never left half deployed while the scheduler counts it as running.
 *   <li>A failure ({@link #onTaskFailed}) may name the lost partition with its attempt: a report
 *       about an older attempt's partition does not mark the current one lost. On a restart
 *       decision the restart set's running tasks are cancelled, their partitions released on their
 *       workers and dropped from the descriptor cache (with their blob references), and the tasks
 *       unplaced; the embedding master calls {@link #restart} after the decision's delay. When the
 *       back-off policy gives up, every placed task is cancelled and every partition released.
 *   <li>A failure caused by a group's blob that a worker found missing or corrupt drops the groups
 *       cached under that key: the restart encodes and offloads them again.
 *   <li>Release: partitions nobody needs any more (see {@link JobScheduler}) are released on their
 *       workers and dropped from the cache.
 * </ul>
 *
 * <p>Threading: one main thread, the one that constructs it (as Flink's {@code SchedulerNG}); every
 * entry point checks it and fails with {@link IllegalStateException} naming both threads. The
 * gateway is called on that thread and must not call back. Costs: building is what its parts cost
 * (O(regions + groups + tasks)); an event costs what the scheduler costs, plus per deployed task
 * its descriptor and per released partition one gateway call.
 */
public final class JobMaster implements AutoCloseable {
    /** One slice of unbounded size: everything within the event. */
    private static final SliceBudget ONE_SLICE =
            new SliceBudget(Integer.MAX_VALUE, Long.MAX_VALUE, System::nanoTime);

    private final JobGraph graph;
    private final JobScheduler scheduler;
    private final ShuffleMaster shuffle;
    private final DeploymentDescriptors descriptors;
    private final WorkerGateway gateway;
    private final TaskPlacement placement;
    private final TaskRangeCursor cursor;
    private final DeploymentQueue deployments;
    private final @Nullable MainThreadExecutor mainThread; // null: deploy within the event
    private final DeployFailureListener deployFailures;
    private boolean slicePosted; // a slice step is queued on the main thread
    // Tasks whose deploy failed in the current event or slice, handled once the scheduler returned.
    private final ArrayDeque<DeploymentQueue.FailedDeploy> failedDeploys = new ArrayDeque<>();
    // The first I/O failure of the current event's actions (the rest suppressed in it), thrown
    // once the scheduler has returned.
    private @Nullable IOException eventFailure;

    private JobMaster(Builder builder) {
        this.graph = builder.graph;
        this.scheduler = new JobScheduler(graph, builder.policy, new GatewayActions());
        this.shuffle = new ShuffleMaster(graph, builder.workers, scheduler.failover());
        this.descriptors =
                new DeploymentDescriptors(
                        builder.jobId,
                        builder.secret,
                        scheduler.topology(),
                        shuffle,
                        builder.blobs,
                        builder.offload);
        this.gateway = builder.gateway;
        this.placement = builder.placement;
        this.cursor = scheduler.regions().newTaskRangeCursor();
        this.deployments =
                new DeploymentQueue(
                        descriptors,
                        scheduler.regions(),
                        scheduler.failover()::attempt,
                        builder.budget);
        this.mainThread = builder.mainThread;
        this.deployFailures = builder.deployFailures;
    }

    /**
     * A builder of the JobManager core of {@code graph}, whose tasks run on {@code workers} and are
     * reached through {@code gateway}; {@code deployFailures} hears the decisions about tasks that
     * could not be deployed. See {@link Builder} for the settings and their defaults.
     */
    public static Builder builder(
            JobGraph graph,
            WorkerTable workers,
            WorkerGateway gateway,
            DeployFailureListener deployFailures) {
        return new Builder(graph, workers, gateway, deployFailures);
    }

    /**
     * Deploys the regions that have no inputs to wait for. Call once. A task that cannot be
     * deployed goes to the {@link DeployFailureListener}.
     *
     * @throws IOException if dropping a partition's blob failed
     */
    public void start() throws IOException {
        scheduler.start();
        afterEvent();
    }

    /**
     * Attempt {@code attempt} of task {@code task} finished: its partitions become available,
     * consumers that can now run are deployed, and partitions nobody needs any more are released.
     * False (nothing done) for a stale attempt or after the job failed.
     *
     * @throws IOException if dropping a released partition's blob failed
     */
    public boolean onTaskFinished(int task, int attempt) throws IOException {
        boolean current = scheduler.onTaskFinished(task, attempt);
        afterEvent();
        return current;
    }

    /**
     * Attempt {@code attempt} of task {@code task} failed with {@code cause}, which is not a lost
     * partition. Returns the decision, whose {@link FailureHandling.Restart} the caller runs with
     * {@link #restart} after its delay; a {@link FailureHandling.FailJob} carries the job's
     * failure, caused by {@code cause}. A cause naming a group's blob that was missing or corrupt
     * ({@link BlobNotFoundException}, {@link CorruptBlobException}) drops the groups cached under
     * it, so that the restart offloads them again.
     *
     * @throws IndexOutOfBoundsException if the task is out of range
     * @throws IOException if dropping a restarted partition's blob failed (the decision stands)
     */
    public FailureHandling onTaskFailed(int task, int attempt, Throwable cause) throws IOException {
        FailureHandling handling = scheduler.onTaskFailed(task, attempt, cause);
        forgetBadBlob(cause);
        afterEvent();
        return handling;
    }

    /**
     * Attempt {@code attempt} of task {@code task} failed with {@code cause} because reading
     * partition {@code lost} failed: as {@link #onTaskFailed(int, int, Throwable)}, and the
     * partition is marked lost unless {@code lost} names an older attempt of it than the current.
     *
     * @throws IndexOutOfBoundsException if the task or the lost partition is out of range
     * @throws IOException if dropping a restarted partition's blob failed (the decision stands)
     */
    public FailureHandling onTaskFailed(int task, int attempt, Throwable cause, PartitionId lost)
            throws IOException {
        FailureHandling handling = scheduler.onTaskFailed(task, attempt, cause, lost);
        forgetBadBlob(cause);
        afterEvent();
        return handling;
    }

    /**
     * Partition {@code partition} was found lost outside a task failure (its worker was lost): the
     * next failure that needs it restarts its producer. Ignored for an older attempt's partition.
     */
    public void onPartitionLost(PartitionId partition) {
        scheduler.onPartitionLost(partition);
    }

    /**
     * Runs a RESTART decision after its delay: the regions are redeployed as soon as their inputs
     * are consumable. A region that a later decision also restarts is left to that decision (its
     * producers may still be waiting for that later restart, unplaced), as Flink restarts only the
     * vertices not modified since the decision.
     *
     * @throws IllegalStateException if the job has failed
     * @throws IOException if dropping a partition's blob failed
     */
    public void restart(FailureHandling.Restart handling) throws IOException {
        scheduler.restart(handling);
        afterEvent();
    }

    /** Whether the back-off policy gave up: the job failed. */
    public boolean isJobFailed() {
        return scheduler.isJobFailed();
    }

    /** The current attempt of task {@code task}. */
    public int attempt(int task) {
        return scheduler.attempt(task);
    }

    /** The job's scheduler (topology, regions, strategy, failover). */
    public JobScheduler scheduler() {
        scheduler.checkMainThread();
        return scheduler;
    }

    /** The shuffle master (placement and partition attempts). */
    public ShuffleMaster shuffleMaster() {
        scheduler.checkMainThread();
        return shuffle;
    }

    /** The deployment-descriptor cache. */
    public DeploymentDescriptors descriptors() {
        scheduler.checkMainThread();
        return descriptors;
    }

    /** Drops every cached descriptor and blob reference. */
    @Override
    public void close() throws IOException {
        scheduler.enter();
        deployments.clear();
        failedDeploys.clear();
        descriptors.close();
    }

    /**
     * Whether scheduled tasks wait for a deployment slice (only with {@link
     * Builder#deployInSlices}).
     */
    public boolean hasPendingDeployments() {
        scheduler.checkMainThread();
        return deployments.hasMore();
    }

    /**
     * What follows every event once the scheduler has returned: the failover decides about the
     * tasks whose deploy failed, one after the other, the listener hears each decision, and what is
     * still queued is deployed (which may fail again: each failure restarts its task or fails the
     * job, so this ends); then the event's first I/O failure is thrown.
     */
    private void afterEvent() throws IOException {
        DeploymentQueue.FailedDeploy failed;
        while ((failed = failedDeploys.poll()) != null) {
            FailureHandling handling =
                    scheduler.onTaskFailed(failed.task, failed.attempt, failed.failure);
            if (handling instanceof FailureHandling.Ignored ignored) {
                // The task was queued at its current attempt, so this cannot be stale; deploying
                // it again would fail the same way for ever.
                throw new IllegalStateException(
                        "the failed deploy of task "
                                + failed.task
                                + " attempt "
                                + failed.attempt
                                + " was ignored: "
                                + ignored.reason(),
                        failed.failure);
            }
            deployFailures.deployFailed(failed.task, failed.attempt, handling);
            deployQueued();
        }
        throwEventFailure();
    }

    /**
     * A task that could not read an offloaded group — its blob missing, or corrupt and deleted by
     * the store ({@link BlobNotFoundException} or {@link CorruptBlobException} in {@code cause}'s
     * chain) — must not make every restart fail the same way: the groups cached under that key are
     * dropped, so their next descriptor encodes and offloads them again.
     */
    private void forgetBadBlob(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            BlobKey key =
                    t instanceof BlobNotFoundException missing
                            ? missing.key()
                            : t instanceof CorruptBlobException corrupt ? corrupt.key() : null;
            if (key != null) {
                try {
                    descriptors.invalidateBlob(key);
                } catch (IOException e) {
                    failed(e);
                }
                return;
            }
        }
    }

    private void throwEventFailure() throws IOException {
        IOException failure = eventFailure;
        eventFailure = null;
        if (failure != null) {
            throw failure;
        }
    }

    private void failed(IOException e) {
        eventFailure = Failures.add(eventFailure, e);
    }

    /** Releases partition {@code p} of attempt {@code attempt} on its worker and in the cache. */
    private void release(int p, int attempt) {
        int worker = shuffle.worker(p);
        if (worker >= 0) {
            gateway.releasePartition(worker, new PartitionId(p, attempt));
        }
        try {
            descriptors.invalidatePartition(p);
        } catch (IOException e) {
            failed(e);
        }
    }

    /** Cancels {@code task}'s {@code attempt} if it was placed, releases its partitions. */
    private void stop(int task, int vertex, int attempt) {
        int worker = shuffle.workerOfTask(task);
        if (worker < 0) {
            return; // never deployed
        }
        gateway.cancel(worker, task, attempt);
        int subtask = task - graph.firstTask(vertex);
        for (int k = 0; k < graph.numProducedDataSets(vertex); k++) {
            release(graph.firstPartition(graph.producedDataSet(vertex, k)) + subtask, attempt);
        }
    }

    /**
     * Deploys queued tasks: all of them now, or — deploying in slices — one slice now and the rest
     * in steps on the main thread, one slice a step. Stops at a task whose deploy failed, which
     * {@link #afterEvent} handles.
     */
    private void deployQueued() {
        if (mainThread == null) {
            while (runSlice()) {
                // one slice after another, within the event
            }
        } else if (!slicePosted && runSlice()) {
            postSlice(mainThread);
        }
    }

    /** One slice; whether tasks remain that the next slice deploys (false after a failure). */
    private boolean runSlice() {
        try {
            return deployments.runSlice(this::ship);
        } catch (DeploymentQueue.FailedDeploy failed) {
            failedDeploys.add(failed);
            return false;
        }
    }

    private void postSlice(MainThreadExecutor executor) {
        slicePosted = true;
        executor.execute(this::deployNextSlice);
    }

    /** One deployment slice, as a main-thread step; queues the next while tasks remain. */
    private void deployNextSlice() throws IOException {
        scheduler.enter();
        slicePosted = false;
        MainThreadExecutor executor = mainThread;
        if (executor != null && runSlice()) {
            postSlice(executor);
        }
        afterEvent();
    }

    private void ship(int task, int attempt, byte[] descriptor) throws IOException {
        gateway.deploy(shuffle.workerOfTask(task), descriptor);
    }

    /** What the scheduler's decisions do here: place and deploy, cancel, release. */
    private final class GatewayActions implements JobScheduler.Actions {
        @Override
        public void deploy(IntList regions) {
            for (int i = 0; i < regions.size(); i++) {
                int region = regions.getInt(i);
                cursor.reset(region);
                int attempt = -1; // the region's, read at its first task
                while (cursor.next()) {
                    if (attempt < 0) {
                        attempt = scheduler.failover().attempt(cursor.start());
                    }
                    for (int task = cursor.start(); task < cursor.end(); task++) {
                        shuffle.place(task, placement.workerFor(task));
                    }
                }
                deployments.add(region, attempt);
            }
            deployQueued();
        }

        @Override
        public void release(int from, int to) {
            for (int p = from; p < to; p++) {
                JobMaster.this.release(p, shuffle.producerAttempt(p));
            }
        }

        @Override
        public void stop(RestartSet tasks) {
            deployments.invalidate();
            for (int i = 0; i < tasks.numRanges(); i++) {
                int v = tasks.rangeVertex(i);
                for (int task = tasks.rangeStart(i); task < tasks.rangeEnd(i); task++) {
                    JobMaster.this.stop(task, v, scheduler.attempt(task) - 1);
                }
                shuffle.unplace(tasks.rangeStart(i), tasks.rangeEnd(i));
            }
        }

        @Override
        public void stopAll() {
            deployments.clear();
            for (int task = 0; task < graph.numTasks(); task++) {
                int worker = shuffle.workerOfTask(task);
                if (worker >= 0) {
                    gateway.cancel(worker, task, scheduler.attempt(task));
                }
            }
        }
    }

    /**
     * The settings of a {@link JobMaster}; every one but the graph, the workers, the gateway and
     * the deploy-failure listener has a default. Not thread-safe; {@link #build} on the thread that
     * will own the JobMaster.
     */
    public static final class Builder {
        private final JobGraph graph;
        private final WorkerTable workers;
        private final WorkerGateway gateway;
        private final DeployFailureListener deployFailures;
        private JobId jobId;
        private JobSecret secret = JobSecret.random();
        private TaskPlacement placement;
        private RestartBackoffPolicy policy = RestartBackoffPolicy.noRestart();
        private BlobStore blobs = new InMemoryBlobStore();
        private OffloadOptions offload = OffloadOptions.DEFAULT;
        private SliceBudget budget = ONE_SLICE;
        private @Nullable MainThreadExecutor mainThread;

        private Builder(
                JobGraph graph,
                WorkerTable workers,
                WorkerGateway gateway,
                DeployFailureListener deployFailures) {
            this.graph = requireNonNull(graph, "graph");
            this.workers = requireNonNull(workers, "workers");
            this.gateway = requireNonNull(gateway, "gateway");
            this.deployFailures = requireNonNull(deployFailures, "deployFailures");
            this.jobId = new JobId(System.nanoTime(), graph.numTasks());
            this.placement = new RoundRobin(workers.size());
        }

        /** The job's id, named in descriptors (default: made from the clock and the task count). */
        public Builder jobId(JobId id) {
            this.jobId = requireNonNull(id, "id");
            return this;
        }

        /**
         * The job's secret, which its descriptors carry to the workers (default: a fresh random one
         * per job; an embedder that already has one for the job gives it here).
         */
        public Builder secret(JobSecret secret) {
            this.secret = requireNonNull(secret, "secret");
            return this;
        }

        /** Where each task runs (default: round-robin over the workers in deployment order). */
        public Builder placement(TaskPlacement placement) {
            this.placement = requireNonNull(placement, "placement");
            return this;
        }

        /** When to restart after a failure and when to give up (default: never restart). */
        public Builder restartPolicy(RestartBackoffPolicy policy) {
            this.policy = requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Where large descriptor groups are offloaded, and which are (default: an in-memory store,
         * {@link OffloadOptions#DEFAULT}).
         */
        public Builder blobs(BlobStore blobs, OffloadOptions offload) {
            this.blobs = requireNonNull(blobs, "blobs");
            this.offload = requireNonNull(offload, "offload");
            return this;
        }

        /**
         * Deploys scheduled tasks in slices of {@code budget} (e.g. {@link SliceBudget#DEFAULT}:
         * 10,000 descriptors or 5 ms): the first slice within the event that scheduled them, each
         * further one as a step {@code mainThread} runs later, so that other events are served in
         * between. Default: every scheduled task is deployed within its event.
         */
        public Builder deployInSlices(SliceBudget budget, MainThreadExecutor mainThread) {
            this.budget = requireNonNull(budget, "budget");
            this.mainThread = requireNonNull(mainThread, "mainThread");
            return this;
        }

        /**
         * The JobMaster; the calling thread becomes its main thread. O(tasks + groups + regions).
         */
        public JobMaster build() {
            return new JobMaster(this);
        }
    }

    /** Places tasks on workers in turn, in deployment order. */
    private static final class RoundRobin implements TaskPlacement {
        private final int workers;
        private int next;

        RoundRobin(int workers) {
            this.workers = workers;
        }

        @Override
        public int workerFor(int task) {
            int worker = next;
            next = next + 1 == workers ? 0 : next + 1;
            return worker;
        }
    }
}
