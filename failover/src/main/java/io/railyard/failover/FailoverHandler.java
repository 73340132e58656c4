package io.railyard.failover;

import static com.google.common.base.Preconditions.checkElementIndex;
import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedInts;
import io.railyard.topology.PackedRange;
import io.railyard.topology.PartitionId;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.function.IntPredicate;
import org.jspecify.annotations.Nullable;

/**
 * Where failover meets scheduling: task events with attempt numbers in, restart decisions out. Ties
 * together the region rules ({@link RegionFailover}), partition availability ({@link
 * PartitionTracker}), partition release ({@link PartitionRelease}), a {@link RestartBackoffPolicy}
 * and the {@link RegionSchedulingStrategy}.
 *
 * <h2>Attempts</h2>
 *
 * Every region has an attempt number, starting at 0, shared by its tasks (they are always restarted
 * together). A failure bumps the attempt of every restarted region at once, so events still in
 * flight from the cancelled attempt — a second failure of the same task, a failure of another task
 * of the same region, a late "finished" — are stale and ignored (logged at DEBUG): one failure, one
 * restart, counted once by the back-off policy.
 *
 * <h2>Lifecycle of a failure</h2>
 *
 * <ol>
 *   <li>{@link #onTaskFailed(int, int, Throwable, PartitionId)}: a partition named as the cause is
 *       marked lost; the restart set is computed; the policy decides. On RESTART the regions'
 *       attempts are bumped and the caller cancels the tasks; on FAIL_JOB the job is over, its
 *       failure (a {@link JobFailedException} naming the task and the policy's reason, caused by
 *       the task's failure) is kept, and every partition the scheduler tracks is released through
 *       the {@link ReleaseListener}.
 *   <li>After the delay, {@link #restart(FailureHandling.Restart)}: the restarted tasks' partitions
 *       become unavailable, release counters are re-armed, and the scheduling strategy takes the
 *       regions back and redeploys each as soon as its inputs are consumable.
 * </ol>
 *
 * <p>A restart set holds whole regions, including regions never deployed yet (Flink 2.x leaves
 * tasks still in state CREATED out of its answer); the strategy ignores those when it takes regions
 * back, and the caller has nothing to cancel for them.
 *
 * <p>Not thread-safe: the JobManager's main thread only (the scheduling strategy asserts it). A
 * failure costs what {@link RegionFailover} costs plus O(restarted regions); a finished task a
 * region lookup (O(1) for up to 512 job vertices of comparable parallelism, O(log V) at worst) plus
 * the consequences in the strategy and the release tracking.
 */
public final class FailoverHandler {
    private static final System.Logger LOG = System.getLogger(FailoverHandler.class.getName());

    private final PipelinedRegions regions;
    private final JobGraph graph;
    private final RegionSchedulingStrategy strategy;
    private final RestartBackoffPolicy policy;
    private final PartitionTracker tracker;
    private final PartitionRelease release;
    private final RegionFailover failover;
    private final PackedInts attempt; // per region; widens as attempt numbers grow
    private @Nullable JobFailedException jobFailure;

    /**
     * A handler for the job scheduled by {@code strategy}; partitions to release go to {@code
     * releaseListener}. O(regions + groups + consumers) to build.
     */
    public FailoverHandler(
            RegionInputs inputs,
            RegionSchedulingStrategy strategy,
            RestartBackoffPolicy policy,
            ReleaseListener releaseListener) {
        checkState(
                strategy.regions() == inputs.regions(),
                "the strategy schedules other regions than the given RegionInputs describe");
        this.regions = inputs.regions();
        this.graph = regions.topology().jobGraph();
        this.strategy = strategy;
        this.policy = policy;
        this.tracker = new PartitionTracker(graph);
        this.release =
                new PartitionRelease(regions, new InvalidatingListener(tracker, releaseListener));
        this.failover = new RegionFailover(inputs, tracker);
        this.attempt = PackedInts.zeros(regions.numRegions());
    }

    /**
     * The current attempt number of task {@code task} (that of its region). O(1) for up to 512 job
     * vertices of comparable parallelism, O(log V) at worst ({@link
     * PipelinedRegions#regionOf(int)}); no allocation.
     */
    public int attempt(int task) {
        checkElementIndex(task, graph.numTasks(), "task");
        return attempt.get(regions.regionOf(task));
    }

    /** The partition availability this handler maintains (read-only use). */
    public PartitionAvailability availability() {
        return tracker;
    }

    /**
     * Attempt {@code taskAttempt} of task {@code task} finished: its partitions become available,
     * release counters move, and the strategy deploys what that unlocks. Returns false (and does
     * nothing) for a stale attempt or after the job failed.
     */
    public boolean onTaskFinished(int task, int taskAttempt) {
        if (isStale(task, taskAttempt, "finished")) {
            return false;
        }
        int v = graph.vertexOfTask(task);
        for (int k = 0; k < graph.numProducedDataSets(v); k++) {
            int d = graph.producedDataSet(v, k);
            tracker.onPartitionFinished(graph.firstPartition(d) + graph.subtaskIndex(task));
        }
        release.onTaskFinished(task);
        strategy.onTaskFinished(task);
        return true;
    }

    /**
     * Attempt {@code taskAttempt} of task {@code task} failed with {@code cause}, which is not a
     * lost partition. See the class notes: the decision carries {@code cause}; when the policy
     * refuses, it also carries the job's failure, caused by {@code cause}.
     *
     * @throws IndexOutOfBoundsException if the task is out of range
     * @throws NullPointerException if {@code cause} is null
     */
    public FailureHandling onTaskFailed(int task, int taskAttempt, Throwable cause) {
        return onTaskFailed(task, taskAttempt, cause, -1);
    }

    /**
     * Attempt {@code taskAttempt} of task {@code task} failed with {@code cause} because reading
     * partition {@code lost} failed: the partition is marked lost first, unless {@code lost} names
     * an older attempt of it than its producer's current one (a report about a partition that is
     * already being reproduced marks nothing). Otherwise as {@link #onTaskFailed(int, int,
     * Throwable)}.
     *
     * @throws IndexOutOfBoundsException if the task or the partition is out of range
     * @throws NullPointerException if {@code cause} or {@code lost} is null
     */
    public FailureHandling onTaskFailed(
            int task, int taskAttempt, Throwable cause, PartitionId lost) {
        checkElementIndex(lost.partition(), graph.numPartitions(), "lost partition");
        return onTaskFailed(task, taskAttempt, cause, isCurrent(lost) ? lost.partition() : -1);
    }

    private FailureHandling onTaskFailed(
            int task, int taskAttempt, Throwable cause, int lostPartition) {
        requireNonNull(cause, "cause");
        if (isStale(task, taskAttempt, "failed")) {
            return new FailureHandling.Ignored("stale attempt " + taskAttempt, cause);
        }
        if (lostPartition != -1) {
            tracker.onPartitionLost(lostPartition);
        }
        RestartDecision decision = policy.onFailure();
        if (!decision.restart()) {
            JobFailedException failure = failJob(task, taskAttempt, decision.reason(), cause);
            return new FailureHandling.FailJob(failure, decision.reason(), cause);
        }
        RestartSet tasks = failover.tasksToRestart(task);
        tasks.forEachRegion(region -> attempt.add(region, 1));
        // Their partitions stop being available at the decision, not when it runs after its delay:
        // the producers are cancelled now, and a restart that runs late (its regions taken over by
        // a later decision that already ran) must not touch what their new attempts produced.
        invalidateProduced(tasks);
        return new FailureHandling.Restart(tasks, decision.delayMillis(), decision.reason(), cause);
    }

    /**
     * Partition {@code partition} was found lost outside a task failure (its worker was lost, or a
     * check found its file missing): it is no longer available, so a later failure that needs it
     * restarts its producer. Nothing restarts now; a report about an older attempt of the partition
     * than its producer's current one is ignored. O(1) for up to 512 job vertices of comparable
     * parallelism ({@link #attempt}).
     *
     * @throws IndexOutOfBoundsException if the partition is out of range
     */
    public void onPartitionLost(PartitionId partition) {
        checkElementIndex(partition.partition(), graph.numPartitions(), "partition");
        if (isCurrent(partition)) {
            tracker.onPartitionLost(partition.partition());
        }
    }

    /** Whether {@code partition} names its producer's current attempt. */
    private boolean isCurrent(PartitionId partition) {
        int producer = regions.topology().producerTask(partition.partition());
        return partition.attempt() == attempt(producer);
    }

    /**
     * Restarts the tasks of a RESTART decision after its delay (their partitions became unavailable
     * at the decision): release counters re-arm, and the strategy redeploys the regions as soon as
     * their inputs are consumable. O(the set's ranges × produced datasets + the strategy's work).
     *
     * @throws IllegalStateException if the job has failed
     */
    public void restart(FailureHandling.Restart handling) {
        restart(handling, region -> true);
    }

    /**
     * {@link #restart(FailureHandling.Restart)} for the regions of the decision that {@code
     * stillOwned} accepts: a region that a later decision also restarts is left to that decision
     * (its producers may be pending that later restart; deploying it now would read them), as Flink
     * restarts only the vertices not modified since the decision.
     *
     * @throws IllegalStateException if the job has failed
     */
    public void restart(FailureHandling.Restart handling, IntPredicate stillOwned) {
        RestartSet tasks = handling.tasks();
        checkState(jobFailure == null, "the job has failed; nothing restarts");
        long[] restarted = ownedRuns(tasks, stillOwned);
        if (restarted.length > 0) {
            release.onRegionRangesRestarted(restarted);
            strategy.restartRegionRanges(restarted);
        }
    }

    /** The set's runs of region ids cut to the regions {@code stillOwned} accepts. O(regions). */
    private static long[] ownedRuns(RestartSet tasks, IntPredicate stillOwned) {
        LongArrayList runs = new LongArrayList(tasks.numRegionRuns());
        for (int k = 0; k < tasks.numRegionRuns(); k++) {
            long run = tasks.regionRun(k);
            int start = -1;
            for (int r = PackedRange.start(run); r < PackedRange.end(run); r++) {
                if (stillOwned.test(r)) {
                    start = start < 0 ? r : start;
                } else if (start >= 0) {
                    runs.add(PackedRange.of(start, r));
                    start = -1;
                }
            }
            if (start >= 0) {
                runs.add(PackedRange.of(start, PackedRange.end(run)));
            }
        }
        return runs.toLongArray();
    }

    /** The partitions {@code tasks} produce are no longer available. O(ranges × datasets). */
    private void invalidateProduced(RestartSet tasks) {
        for (int i = 0; i < tasks.numRanges(); i++) {
            int v = tasks.rangeVertex(i);
            int low = tasks.rangeStart(i) - graph.firstTask(v);
            int high = tasks.rangeEnd(i) - graph.firstTask(v);
            for (int k = 0; k < graph.numProducedDataSets(v); k++) {
                int first = graph.firstPartition(graph.producedDataSet(v, k));
                tracker.onPartitionsInvalidated(first + low, first + high);
            }
        }
    }

    /** Whether the back-off policy refused a restart. */
    public boolean isJobFailed() {
        return jobFailure != null;
    }

    /**
     * The job's failure once the back-off policy refused a restart (its cause the failure of the
     * task that was not restarted), empty before. O(1).
     */
    public Optional<JobFailedException> jobFailure() {
        return Optional.ofNullable(jobFailure);
    }

    private boolean isStale(int task, int taskAttempt, String event) {
        int current = attempt(task);
        if (jobFailure != null || taskAttempt != current) {
            LOG.log(
                    Level.DEBUG,
                    "ignoring {0} of {1} attempt {2}: current attempt {3}, job failed: {4}",
                    event,
                    graph.taskName(task),
                    taskAttempt,
                    current,
                    jobFailure != null);
            return true;
        }
        return false;
    }

    /**
     * The job is over: its failure names the task and why the policy refused; every partition not
     * released yet is released now.
     */
    private JobFailedException failJob(int task, int taskAttempt, String reason, Throwable cause) {
        JobFailedException failure =
                new JobFailedException(
                        "task "
                                + graph.taskName(task)
                                + " (attempt "
                                + taskAttempt
                                + ") failed and is not restarted: "
                                + reason,
                        cause);
        jobFailure = failure;
        release.releaseAll();
        return failure;
    }

    /** Released partitions become unavailable, then the caller hears of them. */
    private static final class InvalidatingListener implements ReleaseListener {
        private final PartitionTracker tracker;
        private final ReleaseListener next;

        InvalidatingListener(PartitionTracker tracker, ReleaseListener next) {
            this.tracker = tracker;
            this.next = next;
        }

        @Override
        public void release(int from, int to) {
            tracker.onPartitionsInvalidated(from, to);
            next.release(from, to);
        }
    }
}
