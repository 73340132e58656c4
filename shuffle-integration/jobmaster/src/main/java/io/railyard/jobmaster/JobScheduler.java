package io.railyard.jobmaster;

import static java.util.Objects.requireNonNull;

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
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedInts;
import io.railyard.topology.PackedRange;
import io.railyard.topology.PartitionId;
import it.unimi.dsi.fastutil.ints.IntList;
import it.unimi.dsi.fastutil.longs.LongArrayList;

/**
 * The scheduler of one job, composed in one place: its topology and consumer groups, pipelined
 * regions, region inputs, the region scheduling strategy, failover with restart back-off and
 * partition release, and the restart decisions waiting for their delay. Task events go in; what to
 * do comes out through {@link Actions}, called after each event has been applied — the strategy and
 * failover are never called back from inside themselves. {@link JobMaster} wraps it with
 * descriptors, a shuffle master and a gateway to workers; the simulator wraps it with a clock.
 *
 * <h2>After each event</h2>
 *
 * <ol>
 *   <li>A RESTART decision ({@link #onTaskFailed}) first tells {@link Actions#stop} which tasks to
 *       stop; a FAIL_JOB decision tells {@link Actions#stopAll}.
 *   <li>Then the event's consequences are drained: {@link Actions#deploy} with every region the
 *       strategy scheduled, in its order; then {@link Actions#release} with every partition range
 *       nobody needs any more — those failover's release tracking freed (blocking and hybrid
 *       partitions whose consumers all finished, or everything once the job failed) and the
 *       pipelined partitions of each region whose tasks have all finished (the release tracking
 *       leaves them to their producers).
 * </ol>
 *
 * <p>Decisions can overlap: a second failure may be decided before the first decision's restart
 * runs (its delay). The scheduler numbers its decisions per region ({@link PendingRestarts}), and
 * {@link #restart} restarts only the regions no later decision includes, as Flink restarts only the
 * vertices not modified since the decision.
 *
 * <p>Threading: one main thread, the one that builds it (as Flink's {@code SchedulerNG}); every
 * entry point checks it, and that it is not called from inside an {@link Actions} callback (queue
 * such calls for after it returns). Costs: building is O(tasks + groups + regions); an event costs
 * what failover and the strategy cost, plus one range per released stretch of partitions.
 */
public final class JobScheduler {
    /**
     * What the embedder does with the scheduler's decisions, on the main thread, after each event
     * (see the class notes for the order). A callback must not call the scheduler.
     */
    public interface Actions {
        /**
         * Deploys every task of {@code regions}, in the given order (the strategy's), each at its
         * current {@link JobScheduler#attempt}. The list is valid during the call only.
         */
        void deploy(IntList regions);

        /**
         * Partitions {@code [from, to)} are not needed any more: release them, as their producers'
         * current attempts wrote them.
         */
        void release(int from, int to);

        /**
         * A RESTART decision: stop the tasks of {@code tasks} now (their attempts are already the
         * next ones, so the stopped attempt of a task is {@code attempt(task) - 1}); they are
         * redeployed through {@link #deploy} once the decision is {@link JobScheduler#restart run}
         * and their inputs are consumable.
         */
        void stop(RestartSet tasks);

        /** The back-off policy gave up: the job failed; stop every task that still runs. */
        void stopAll();
    }

    // The release buffer keeps at most this many ranges' room between events: one event can free
    // a million ranges, and its buffer would otherwise stay for the job's lifetime.
    private static final int RETAINED_CAPACITY = 1024;

    private final JobGraph graph;
    private final ExecutionTopology topology;
    private final PipelinedRegions regions;
    private final RegionSchedulingStrategy strategy;
    private final FailoverHandler failover;
    private final PendingRestarts pendingRestarts;
    private final Actions actions;
    private final MainThread mainThread = new MainThread("job scheduler");
    private final TaskRangeCursor cursor;
    // Regions the strategy scheduled during the current event, deployed once it returns.
    private final QueueingDeployer scheduled = new QueueingDeployer();
    // Partition ranges freed during the current event, as PackedRange values.
    private final LongArrayList released = new LongArrayList();
    private final PackedInts finished; // per region: tasks finished in its current attempt

    /**
     * The scheduler of {@code graph}, restarting as {@code policy} allows and acting through {@code
     * actions}; nothing is scheduled until {@link #start()}. O(tasks + groups + regions).
     */
    public JobScheduler(JobGraph graph, RestartBackoffPolicy policy, Actions actions) {
        this.graph = graph;
        this.actions = requireNonNull(actions, "actions");
        this.topology = ExecutionTopology.of(graph);
        this.regions = PipelinedRegions.build(topology);
        RegionInputs inputs = RegionInputs.of(regions);
        this.strategy = new RegionSchedulingStrategy(inputs, scheduled);
        this.failover =
                new FailoverHandler(inputs, strategy, policy, new QueueingRelease(released));
        this.pendingRestarts = new PendingRestarts(regions.numRegions());
        this.cursor = regions.newTaskRangeCursor();
        this.finished = PackedInts.zeros(regions.numRegions()); // counts up: no O(regions) fill
    }

    /** Schedules the regions that have no inputs to wait for. Call once. */
    public void start() {
        mainThread.enter();
        strategy.startScheduling();
        drain();
    }

    /**
     * Attempt {@code attempt} of task {@code task} finished: its partitions become available, what
     * that unlocks is deployed and what nobody needs any more is released. False (nothing done) for
     * a stale attempt or after the job failed.
     */
    public boolean onTaskFinished(int task, int attempt) {
        mainThread.enter();
        boolean current = failover.onTaskFinished(task, attempt);
        if (current) {
            int region = regions.regionOf(task);
            if (finished.add(region, 1) == regions.numTasks(region)) {
                queuePipelinedRelease(region);
            }
        }
        drain();
        return current;
    }

    /**
     * Attempt {@code attempt} of task {@code task} failed with {@code cause}, which is not a lost
     * partition. Returns the decision; the caller runs a {@link FailureHandling.Restart} with
     * {@link #restart} after its delay.
     *
     * @throws IndexOutOfBoundsException if the task is out of range
     */
    public FailureHandling onTaskFailed(int task, int attempt, Throwable cause) {
        mainThread.enter();
        return decided(failover.onTaskFailed(task, attempt, cause));
    }

    /**
     * Attempt {@code attempt} of task {@code task} failed with {@code cause} because reading
     * partition {@code lost} failed: the partition is marked lost (unless {@code lost} names an
     * older attempt than its producer's current one), so its producer restarts too. Otherwise as
     * {@link #onTaskFailed(int, int, Throwable)}.
     *
     * @throws IndexOutOfBoundsException if the task or the partition is out of range
     */
    public FailureHandling onTaskFailed(int task, int attempt, Throwable cause, PartitionId lost) {
        mainThread.enter();
        return decided(failover.onTaskFailed(task, attempt, cause, lost));
    }

    /**
     * Partition {@code partition} was found lost outside a task failure (its worker was lost): the
     * next failure that needs it restarts its producer. Ignored for an older attempt's partition.
     *
     * @throws IndexOutOfBoundsException if the partition is out of range
     */
    public void onPartitionLost(PartitionId partition) {
        mainThread.enter();
        failover.onPartitionLost(partition);
    }

    /**
     * Runs a RESTART decision after its delay: its regions are redeployed as soon as their inputs
     * are consumable, except those a later decision also restarts (left to that decision).
     *
     * @throws IllegalStateException if the job has failed
     */
    public void restart(FailureHandling.Restart handling) {
        mainThread.enter();
        pendingRestarts.restart(failover, handling);
        drain();
    }

    /** The current attempt of task {@code task}. O(1) for comparable parallelisms. */
    public int attempt(int task) {
        mainThread.check();
        return failover.attempt(task);
    }

    /** Whether the back-off policy gave up: the job failed. */
    public boolean isJobFailed() {
        mainThread.check();
        return failover.isJobFailed();
    }

    /** The job graph. */
    public JobGraph graph() {
        return graph;
    }

    /** The job's topology (consumer groups). */
    public ExecutionTopology topology() {
        return topology;
    }

    /** The job's pipelined regions. */
    public PipelinedRegions regions() {
        return regions;
    }

    /**
     * The scheduling strategy, for inspection (pending inputs, memory measurement); its event
     * methods are this scheduler's to call.
     */
    public RegionSchedulingStrategy strategy() {
        return strategy;
    }

    /**
     * The failover handler, for inspection (partition availability, the job's failure, memory
     * measurement); its event methods are this scheduler's to call.
     */
    public FailoverHandler failover() {
        return failover;
    }

    /** Checks that the caller is on the main thread and not inside a callback (see the class). */
    void enter() {
        mainThread.enter();
    }

    /** Checks that the caller is on the main thread. */
    void checkMainThread() {
        mainThread.check();
    }

    private FailureHandling decided(FailureHandling handling) {
        mainThread.inCallback(true);
        try {
            if (handling instanceof FailureHandling.Restart restart) {
                pendingRestarts.add(restart);
                restart.tasks().forEachRegion(r -> finished.set(r, 0));
                actions.stop(restart.tasks());
            } else if (handling instanceof FailureHandling.FailJob) {
                actions.stopAll();
            }
        } finally {
            mainThread.inCallback(false);
        }
        drain();
        return handling;
    }

    /** Hands the event's scheduled regions, then its freed partitions, to the actions. */
    private void drain() {
        mainThread.inCallback(true);
        try {
            if (!scheduled.isEmpty()) {
                actions.deploy(scheduled.regions());
            }
        } finally {
            scheduled.clear();
            try {
                for (int i = 0; i < released.size(); i++) {
                    long range = released.getLong(i);
                    actions.release(PackedRange.start(range), PackedRange.end(range));
                }
            } finally {
                released.clear();
                released.trim(RETAINED_CAPACITY);
                mainThread.inCallback(false);
            }
        }
    }

    /** Queues the release of the pipelined partitions region {@code region}'s tasks produced. */
    private void queuePipelinedRelease(int region) {
        cursor.reset(region);
        while (cursor.next()) {
            int v = graph.vertexOfTask(cursor.start());
            int low = cursor.start() - graph.firstTask(v);
            int high = cursor.end() - graph.firstTask(v);
            for (int k = 0; k < graph.numProducedDataSets(v); k++) {
                int d = graph.producedDataSet(v, k);
                if (!graph.resultType(d).isReleasedByScheduler()) {
                    int first = graph.firstPartition(d);
                    released.add(PackedRange.of(first + low, first + high));
                }
            }
        }
    }

    /** The release tracking's listener: queues the freed range. */
    private static final class QueueingRelease implements ReleaseListener {
        private final LongArrayList released;

        QueueingRelease(LongArrayList released) {
            this.released = released;
        }

        @Override
        public void release(int from, int to) {
            released.add(PackedRange.of(from, to));
        }
    }
}
