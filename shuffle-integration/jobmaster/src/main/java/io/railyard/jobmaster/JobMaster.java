package io.railyard.jobmaster;

import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.deployment.BlobStore;
import io.railyard.deployment.DeploymentDescriptors;
import io.railyard.deployment.JobId;
import io.railyard.deployment.OffloadOptions;
import io.railyard.deployment.WorkerTable;
import io.railyard.failover.FailoverHandler;
import io.railyard.failover.FailureHandling;
import io.railyard.failover.PendingRestarts;
import io.railyard.failover.ReleaseListener;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.failover.RestartSet;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.TaskRangeCursor;
import io.railyard.regions.scheduling.QueueingDeployer;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import io.railyard.topology.Failures;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedInts;
import io.railyard.topology.PartitionId;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * The JobManager core of one job: its topology, pipelined regions, region scheduling strategy,
 * failover with restart back-off, partition release, shuffle master and deployment-descriptor cache
 * behind one facade that an embedding master drives with task events and that reaches workers
 * through a {@link WorkerGateway}.
 *
 * <ul>
 *   <li>Deploying: when the strategy schedules a region, every task of it is placed first ({@link
 *       TaskPlacement}, so producers and consumers deployed together know each other's workers),
 *       then each gets its descriptor, encoded once per consumed group and cached, and is deployed.
 *   <li>A failure ({@link #onTaskFailed}) names the lost partition with its attempt: a report about
 *       an older attempt's partition does not mark the current one lost. On a restart decision the
 *       restart set's running tasks are cancelled, their partitions released on their workers and
 *       dropped from the descriptor cache (with their blob references), and the tasks unplaced; the
 *       embedding master calls {@link #restart} after the decision's delay. When the back-off
 *       policy gives up, every placed task is cancelled and every partition released.
 *   <li>Release: partitions whose consumers all finished are released on their workers and dropped
 *       from the cache as the scheduler's release tracking decides; pipelined partitions, which
 *       that tracking leaves to their producers, once their region (producers and consumers) has
 *       finished.
 * </ul>
 *
 * <p>Threading: one main thread, the one that constructs it (as Flink's {@code SchedulerNG}); the
 * strategy asserts it. The gateway is called on that thread and must not call back. Costs: building
 * is what its parts cost (O(regions + groups + tasks)); an event costs what failover and the
 * strategy cost, plus per deployed task its descriptor and per released partition one gateway call.
 */
public final class JobMaster implements AutoCloseable {
    private final JobGraph graph;
    private final ExecutionTopology topology;
    private final PipelinedRegions regions;
    private final RegionSchedulingStrategy strategy;
    private final FailoverHandler failover;
    private final ShuffleMaster shuffle;
    private final DeploymentDescriptors descriptors;
    private final WorkerGateway gateway;
    private final TaskPlacement placement;
    private final TaskRangeCursor cursor;
    // Regions the strategy scheduled during the current event, deployed once it returns (the
    // strategy must not be called back from its deployer).
    private final IntArrayList scheduled = new IntArrayList();
    // Partition ranges the release tracking freed during the current event (packed from, to).
    private final LongArrayList released = new LongArrayList();
    // Per region: tasks not finished in the current attempt. Pipelined partitions, which the
    // scheduler's release tracking leaves to their producers, are released when their region
    // (producers and consumers alike) has finished.
    private final PackedInts unfinished; // per region: tasks not finished
    // RESTART decisions waiting for their delay, and the latest one that owns each region.
    private final PendingRestarts pendingRestarts;

    /**
     * The JobManager core of {@code graph}, run on {@code workers}; nothing is deployed until
     * {@link #start()}.
     */
    public JobMaster(
            JobId job,
            JobGraph graph,
            WorkerTable workers,
            TaskPlacement placement,
            WorkerGateway gateway,
            RestartBackoffPolicy policy,
            BlobStore blobs,
            OffloadOptions offload) {
        this.graph = graph;
        this.topology = ExecutionTopology.of(graph);
        this.regions = PipelinedRegions.build(topology);
        RegionInputs inputs = RegionInputs.of(regions);
        this.strategy = new RegionSchedulingStrategy(inputs, new QueueingDeployer(scheduled));
        this.failover =
                new FailoverHandler(inputs, strategy, policy, new QueueingRelease(released));
        this.shuffle = new ShuffleMaster(graph, workers, failover);
        this.descriptors = new DeploymentDescriptors(job, topology, shuffle, blobs, offload);
        this.gateway = gateway;
        this.placement = placement;
        this.cursor = regions.newTaskRangeCursor();
        this.unfinished = PackedInts.zeros(regions.numRegions());
        this.pendingRestarts = new PendingRestarts(regions.numRegions());
        for (int r = 0; r < unfinished.size(); r++) {
            unfinished.set(r, regions.numTasks(r));
        }
    }

    /** Deploys the regions that have no inputs to wait for. Call once. */
    public void start() throws IOException {
        strategy.startScheduling();
        afterEvent();
    }

    /**
     * Attempt {@code attempt} of task {@code task} finished: its partitions become available,
     * consumers that can now run are deployed, and partitions nobody needs any more are released.
     * False (nothing done) for a stale attempt or after the job failed.
     *
     * @throws IOException if deploying a consumer or releasing a partition's blob failed
     */
    public boolean onTaskFinished(int task, int attempt) throws IOException {
        boolean current = failover.onTaskFinished(task, attempt);
        int region = regions.regionOf(task);
        if (current && unfinished.add(region, -1) == 0) {
            releasePipelined(region);
        }
        afterEvent();
        return current;
    }

    /**
     * Attempt {@code attempt} of task {@code task} failed with {@code cause}, because reading
     * {@code lost} failed (null if the cause is not a lost partition). See the class notes; returns
     * the decision, whose restart the caller runs with {@link #restart} after its delay. When the
     * back-off policy gives up, the decision's {@link FailureHandling#failure()} is the job's
     * failure, caused by {@code cause}.
     *
     * @throws IndexOutOfBoundsException if the task or the lost partition is out of range
     * @throws IOException if dropping a restarted partition's blob failed (the decision stands)
     */
    public FailureHandling onTaskFailed(
            int task, int attempt, Throwable cause, @Nullable PartitionId lost) throws IOException {
        int lostPartition = -1;
        if (lost != null) {
            checkElementIndex(lost.partition(), graph.numPartitions(), "lost partition");
            if (lost.attempt() == shuffle.producerAttempt(lost.partition())) {
                lostPartition = lost.partition();
            }
        }
        FailureHandling handling = failover.onTaskFailed(task, attempt, cause, lostPartition);
        switch (handling.outcome()) {
            case RESTART -> {
                pendingRestarts.add(handling);
                stopRestarted(handling.restartSet());
            }
            case FAIL_JOB -> cancelAll();
            case IGNORED -> {}
        }
        afterEvent();
        return handling;
    }

    /**
     * Partition {@code partition} was found lost outside a task failure (its worker was lost): the
     * next failure that needs it restarts its producer. Ignored for an older attempt's partition.
     */
    public void onPartitionLost(PartitionId partition) {
        checkElementIndex(partition.partition(), graph.numPartitions(), "partition");
        if (partition.attempt() == shuffle.producerAttempt(partition.partition())) {
            failover.onPartitionLost(partition.partition());
        }
    }

    /**
     * Runs a RESTART decision after its delay: the regions are redeployed as soon as their inputs
     * are consumable. A region that a later decision also restarts is left to that decision (its
     * producers may still be waiting for that later restart, unplaced), as Flink restarts only the
     * vertices not modified since the decision.
     *
     * @throws IllegalStateException if the outcome is not RESTART or the job has failed
     * @throws IOException if deploying failed
     */
    public void restart(FailureHandling handling) throws IOException {
        pendingRestarts.restart(failover, handling);
        afterEvent();
    }

    /** Whether the back-off policy gave up: the job failed. */
    public boolean isJobFailed() {
        return failover.isJobFailed();
    }

    /** The current attempt of task {@code task}. */
    public int attempt(int task) {
        return failover.attempt(task);
    }

    /** The job's topology. */
    public ExecutionTopology topology() {
        return topology;
    }

    /** The job's pipelined regions. */
    public PipelinedRegions regions() {
        return regions;
    }

    /** The shuffle master (placement and partition attempts). */
    public ShuffleMaster shuffleMaster() {
        return shuffle;
    }

    /** The deployment-descriptor cache. */
    public DeploymentDescriptors descriptors() {
        return descriptors;
    }

    /** Drops every cached descriptor and blob reference. */
    @Override
    public void close() throws IOException {
        descriptors.close();
    }

    /** Deploys what the event scheduled, then releases what it freed. */
    private void afterEvent() throws IOException {
        IOException failure = null;
        try {
            deployScheduled();
        } catch (IOException e) {
            failure = e;
        }
        try {
            releaseFreed();
        } catch (IOException e) {
            failure = Failures.add(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void deployScheduled() throws IOException {
        for (int i = 0; i < scheduled.size(); i++) {
            int region = scheduled.getInt(i);
            cursor.reset(region);
            while (cursor.next()) {
                for (int task = cursor.start(); task < cursor.end(); task++) {
                    shuffle.place(task, placement.workerFor(task));
                }
            }
        }
        try {
            for (int i = 0; i < scheduled.size(); i++) {
                cursor.reset(scheduled.getInt(i));
                while (cursor.next()) {
                    for (int task = cursor.start(); task < cursor.end(); task++) {
                        byte[] descriptor =
                                descriptors.create(task, failover.attempt(task)).encode();
                        gateway.deploy(shuffle.workerOfTask(task), descriptor);
                    }
                }
            }
        } finally {
            scheduled.clear();
        }
    }

    private void releaseFreed() throws IOException {
        IOException failure = null;
        for (int i = 0; i < released.size(); i++) {
            long range = released.getLong(i);
            for (int p = (int) (range >>> 32); p < (int) range; p++) {
                failure = release(p, shuffle.producerAttempt(p), failure);
            }
        }
        released.clear();
        if (failure != null) {
            throw failure;
        }
    }

    /** Releases partition {@code p} of attempt {@code attempt} on its worker and in the cache. */
    private @Nullable IOException release(int p, int attempt, @Nullable IOException failure) {
        int worker = shuffle.worker(p);
        if (worker >= 0) {
            gateway.releasePartition(worker, new PartitionId(p, attempt));
        }
        try {
            descriptors.invalidatePartition(p);
        } catch (IOException e) {
            return Failures.add(failure, e);
        }
        return failure;
    }

    /** Queues the release of the pipelined partitions region {@code region}'s tasks produced. */
    private void releasePipelined(int region) {
        cursor.reset(region);
        while (cursor.next()) {
            int v = graph.vertexOfTask(cursor.start());
            int low = cursor.start() - graph.firstTask(v);
            int high = cursor.end() - graph.firstTask(v);
            for (int k = 0; k < graph.numProducedDataSets(v); k++) {
                int d = graph.producedDataSet(v, k);
                if (!graph.resultType(d).isReleasedByScheduler()) {
                    int first = graph.firstPartition(d);
                    released.add(((long) (first + low) << 32) | (first + high));
                }
            }
        }
    }

    /** Cancels the restart set's placed tasks, releases their partitions, unplaces them. */
    private void stopRestarted(RestartSet tasks) throws IOException {
        for (int i = 0; i < tasks.numRegions(); i++) {
            unfinished.set(tasks.region(i), regions.numTasks(tasks.region(i)));
        }
        IOException failure = null;
        for (int i = 0; i < tasks.numRanges(); i++) {
            int v = tasks.rangeVertex(i);
            for (int task = tasks.rangeStart(i); task < tasks.rangeEnd(i); task++) {
                failure = stop(task, v, failover.attempt(task) - 1, failure);
            }
            shuffle.unplace(tasks.rangeStart(i), tasks.rangeEnd(i));
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * The job failed: every placed task is cancelled (its partitions were released by failover).
     */
    private void cancelAll() {
        for (int task = 0; task < graph.numTasks(); task++) {
            int worker = shuffle.workerOfTask(task);
            if (worker >= 0) {
                gateway.cancel(worker, task, failover.attempt(task));
            }
        }
    }

    private @Nullable IOException stop(
            int task, int vertex, int attempt, @Nullable IOException failure) {
        int worker = shuffle.workerOfTask(task);
        if (worker < 0) {
            return failure; // never deployed
        }
        gateway.cancel(worker, task, attempt);
        int subtask = task - graph.firstTask(vertex);
        IOException first = failure;
        for (int k = 0; k < graph.numProducedDataSets(vertex); k++) {
            int p = graph.firstPartition(graph.producedDataSet(vertex, k)) + subtask;
            first = release(p, attempt, first);
        }
        return first;
    }

    /** The release tracking's listener: queues the freed range, packed (from, to). */
    private static final class QueueingRelease implements ReleaseListener {
        private final LongArrayList released;

        QueueingRelease(LongArrayList released) {
            this.released = released;
        }

        @Override
        public void release(int from, int to) {
            released.add(((long) from << 32) | to);
        }
    }
}
