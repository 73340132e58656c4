package io.railyard.regions.scheduling;

import static com.google.common.base.Preconditions.checkElementIndex;
import static com.google.common.base.Preconditions.checkState;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.TaskRangeCursor;
import io.railyard.topology.FixedBits;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedInts;
import io.railyard.topology.PackedRange;
import io.railyard.topology.ResultPartitionType;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The event-driven region scheduling strategy: decides when each pipelined region may be deployed
 * and hands it to a {@link RegionDeployer}.
 *
 * <h2>Rules</h2>
 *
 * A region is schedulable when every one of its external inputs is consumable: a BLOCKING input
 * when all its partitions are finished, a HYBRID_FULL or HYBRID_SELECTIVE input once the regions
 * producing its partitions are scheduled (so a chain of hybrid edges is scheduled in one pass).
 * Pipelined inputs are inside the region and never gate it; a group partly produced inside the
 * region counts only its outside part (see {@link RegionInputs}). {@link #startScheduling()}
 * deploys the regions without gating inputs; {@link #onTaskFinished(int)} finishes the task's
 * blocking partitions; {@link #restartRegions(int...)} takes regions back (failover) and deploys
 * them again once their inputs are consumable again.
 *
 * <h2>Counters, no rescans</h2>
 *
 * Each gating group counts its partitions that are not ready (not finished, or producer not
 * scheduled); each region counts its inputs that are not consumable; a partition becoming ready
 * decrements its groups, a group reaching zero decrements its consumer regions, and regions
 * reaching zero enter a queue ordered by topological rank (a bit set over region ids, polled
 * upwards). So an event costs O(its consequences) plus a scan of the queued id span in 64-bit
 * words, and a whole batch job's lifecycle is O(tasks + partitions + groups), for up to 512 job
 * vertices and datasets of comparable parallelism; each task and partition event also looks up its
 * job vertex or dataset, so with very unequal parallelisms add a factor O(log V) or O(log D).
 * Restarts run the same updates backwards, so the counters are exact at every moment.
 *
 * <h2>Threading</h2>
 *
 * Single-threaded and lock-free: every method must be called on the thread that created the
 * strategy (the JobManager's main thread), which each call asserts, and not from inside {@link
 * RegionDeployer#deploy}. Task events carry no attempt numbers: the caller drops events of stale
 * attempts before they reach the strategy.
 */
public final class RegionSchedulingStrategy {
    private final PipelinedRegions regions;
    private final RegionInputs inputs;
    private final ExecutionTopology topology;
    private final JobGraph graph;
    private final RegionDeployer deployer;
    private final long ownerId; // an id, not the Thread: the strategy must not retain a thread
    private final String ownerName;

    private final PackedInts notReady; // per group: partitions not ready (PLAIN groups)
    private final int[] crossNotReady; // per CROSS entry: outside partitions not ready
    private final PackedInts pending; // per region: inputs not consumable (≤ its input count)
    private final FixedBits scheduled; // per region
    private final FixedBits finished; // per task
    private final FixedBits ready; // per partition
    private final boolean[] gatesOnFinish; // per dataset: BLOCKING, gating
    private final boolean[] gatesOnSchedule; // per dataset: hybrid, gating
    private final boolean anyGatesOnSchedule; // whether deploying a region can make inputs ready
    private final RankQueue queue;
    private final TaskRangeCursor cursor;
    private boolean started;
    private boolean busy;

    /**
     * A strategy for the regions of {@code inputs}; no region is deployed before {@link
     * #startScheduling()}. O(groups + regions + CROSS entries).
     */
    public RegionSchedulingStrategy(RegionInputs inputs, RegionDeployer deployer) {
        this.inputs = inputs;
        this.regions = inputs.regions();
        this.topology = regions.topology();
        this.graph = topology.jobGraph();
        this.deployer = deployer;
        this.ownerId = Thread.currentThread().getId();
        this.ownerName = Thread.currentThread().getName();
        this.notReady = PackedInts.zeros(topology.numGroups());
        for (int g = 0; g < notReady.size(); g++) {
            notReady.set(g, PackedRange.size(topology.partitionRange(g)));
        }
        this.crossNotReady = new int[inputs.numCrossEntries()];
        for (int entry = 0; entry < crossNotReady.length; entry++) {
            crossNotReady[entry] = inputs.crossOutsidePartitions(entry);
        }
        this.pending = inputs.copyInputCounts();
        this.scheduled = new FixedBits(regions.numRegions());
        this.queue = new RankQueue(regions.numRegions());
        this.finished = new FixedBits(graph.numTasks());
        this.ready = new FixedBits(graph.numPartitions());
        this.gatesOnFinish = new boolean[graph.numDataSets()];
        this.gatesOnSchedule = new boolean[graph.numDataSets()];
        for (int d = 0; d < graph.numDataSets(); d++) {
            ResultPartitionType type = graph.resultType(d);
            gatesOnFinish[d] = !type.mustBePipelinedConsumed() && !type.isHybrid();
            gatesOnSchedule[d] = type.isHybrid();
        }
        boolean any = false;
        for (boolean gates : gatesOnSchedule) {
            any |= gates;
        }
        this.anyGatesOnSchedule = any;
        this.cursor = regions.newTaskRangeCursor();
    }

    /** The regions this strategy schedules. */
    public PipelinedRegions regions() {
        return regions;
    }

    /** The region inputs this strategy schedules by (group kinds, inputs per region). */
    public RegionInputs inputs() {
        return inputs;
    }

    /**
     * Deploys every region without gating inputs, and what they unlock, in topological order.
     * O(regions + consequences).
     *
     * @throws IllegalStateException if already started, or called off the owner thread
     */
    public void startScheduling() {
        enter();
        try {
            checkState(!started, "startScheduling() was already called");
            started = true;
            for (int r = 0; r < pending.size(); r++) {
                if (pending.get(r) == 0) {
                    queue.add(r);
                }
            }
            drain();
        } finally {
            busy = false;
        }
    }

    /**
     * Task {@code task} finished: its BLOCKING partitions become ready, and every region whose
     * inputs become consumable is deployed, in topological order. O(1 + consequences) for up to 512
     * job vertices of comparable parallelism; the task's region and vertex lookups are O(log V) at
     * worst.
     *
     * @throws IndexOutOfBoundsException if {@code task} is not a task id
     * @throws IllegalStateException if the task's region is not scheduled or the task already
     *     finished in this attempt
     */
    public void onTaskFinished(int task) {
        enter();
        try {
            checkElementIndex(task, graph.numTasks(), "task");
            int region = regions.regionOf(task);
            // Names are built only on failure: an argument of checkState is built on every call.
            if (!scheduled.get(region)) {
                throw new IllegalStateException(
                        "task "
                                + graph.taskName(task)
                                + " finished, but its region "
                                + region
                                + " is not scheduled");
            }
            if (finished.get(task)) {
                throw new IllegalStateException(
                        "task " + graph.taskName(task) + " already finished in this attempt");
            }
            finished.set(task);
            int v = graph.vertexOfTask(task);
            int subtask = task - graph.firstTask(v);
            for (int k = 0; k < graph.numProducedDataSets(v); k++) {
                int d = graph.producedDataSet(v, k);
                if (gatesOnFinish[d]) {
                    setReady(graph.firstPartition(d) + subtask, region, true);
                }
            }
            drain();
        } finally {
            busy = false;
        }
    }

    /**
     * Takes regions back for a restart (their tasks were cancelled by failover): they are no longer
     * scheduled, their tasks no longer finished, their partitions no longer ready, which re-arms
     * the counters of every group and region they feed. Each region is deployed again as soon as
     * its inputs are consumable, possibly within this call. A region given twice or not scheduled
     * is taken back once. O(tasks of the regions + consequences).
     *
     * @throws IndexOutOfBoundsException if a region id is out of range
     * @throws IllegalStateException if called before {@link #startScheduling()}
     */
    public void restartRegions(int... restarted) {
        enter();
        try {
            checkState(started, "restartRegions() before startScheduling()");
            long[] ranges = new long[restarted.length];
            for (int i = 0; i < restarted.length; i++) {
                checkElementIndex(restarted[i], pending.size(), "region");
                ranges[i] = PackedRange.of(restarted[i], restarted[i] + 1);
            }
            restart(ranges);
        } finally {
            busy = false;
        }
    }

    /**
     * {@link #restartRegions} for the regions of {@code ranges} ({@link PackedRange}s of region
     * ids), without listing them: a failure that restarts a million singleton regions passes one
     * range. O(their regions + their tasks' ranges + consequences).
     *
     * @throws IndexOutOfBoundsException if a range is not within the region ids
     * @throws IllegalStateException if called before {@link #startScheduling()}
     */
    public void restartRegionRanges(long... ranges) {
        enter();
        try {
            checkState(started, "restartRegionRanges() before startScheduling()");
            for (long range : ranges) {
                Objects.checkFromToIndex(
                        PackedRange.start(range), PackedRange.end(range), pending.size());
            }
            restart(ranges);
        } finally {
            busy = false;
        }
    }

    private void restart(long[] ranges) {
        for (long range : ranges) {
            for (int region = PackedRange.start(range); region < PackedRange.end(range); region++) {
                if (scheduled.get(region)) {
                    unschedule(region);
                }
            }
        }
        for (long range : ranges) {
            for (int region = PackedRange.start(range); region < PackedRange.end(range); region++) {
                if (pending.get(region) == 0) {
                    queue.add(region);
                }
            }
        }
        drain();
    }

    /** Whether region {@code region} is scheduled in its current attempt. O(1). */
    public boolean isScheduled(int region) {
        checkElementIndex(region, pending.size(), "region");
        return scheduled.get(region);
    }

    /** How many inputs of region {@code region} are not consumable yet. O(1). */
    public int pendingInputs(int region) {
        checkElementIndex(region, pending.size(), "region");
        return pending.get(region);
    }

    private void enter() {
        checkState(
                Thread.currentThread().getId() == ownerId,
                "the scheduling strategy is confined to thread %s, called from %s",
                ownerName,
                Thread.currentThread().getName());
        checkState(!busy, "the strategy was called back from inside RegionDeployer.deploy");
        busy = true;
    }

    /** Deploys queued regions, lowest topological rank first, as long as they stay eligible. */
    private void drain() {
        for (int region = queue.poll(); region >= 0; region = queue.poll()) {
            if (scheduled.get(region) || pending.get(region) != 0) {
                continue; // queued twice, or re-armed by a restart since
            }
            scheduled.set(region);
            deployer.deploy(region);
            if (anyGatesOnSchedule) {
                forEachProducedPartition(region, gatesOnSchedule, true);
            }
        }
    }

    private void unschedule(int region) {
        scheduled.clear(region);
        for (cursor.reset(region); cursor.next(); ) {
            finished.clear(cursor.start(), cursor.end());
        }
        forEachProducedPartition(region, null, false);
    }

    /**
     * Marks the partitions produced by {@code region}'s tasks ready (of datasets selected by {@code
     * select}) or not ready (of every dataset, when {@code select} is null).
     */
    private void forEachProducedPartition(
            int region, boolean @Nullable [] select, boolean markReady) {
        for (cursor.reset(region); cursor.next(); ) {
            int v = graph.vertexOfTask(cursor.start());
            int offset = cursor.start() - graph.firstTask(v);
            int count = cursor.end() - cursor.start();
            for (int k = 0; k < graph.numProducedDataSets(v); k++) {
                int d = graph.producedDataSet(v, k);
                if (select != null && !select[d]) {
                    continue;
                }
                int first = graph.firstPartition(d) + offset;
                for (int p = first; p < first + count; p++) {
                    setReady(p, region, markReady);
                }
            }
        }
    }

    /**
     * Marks partition {@code p} (produced in {@code producerRegion}) ready or not ready, and moves
     * the counters of the groups and regions it gates by one step; no-op if already in that state.
     */
    private void setReady(int p, int producerRegion, boolean nowReady) {
        if (ready.get(p) == nowReady) {
            return;
        }
        if (nowReady) {
            ready.set(p);
        } else {
            ready.clear(p);
        }
        int delta = nowReady ? -1 : +1;
        int d = graph.dataSetOfPartition(p);
        int index = p - graph.firstPartition(d);
        for (int k = 0; k < graph.numConsumerEdges(d); k++) {
            int g = topology.consumerGroupOnEdge(graph.consumerEdge(d, k), index);
            byte kind = inputs.kind(g);
            if (kind == RegionInputs.PLAIN) {
                if (stepTouchesZero(notReady.add(g, delta), delta)) {
                    addToConsumers(g, delta);
                }
            } else if (kind == RegionInputs.CROSS) {
                for (int entry = inputs.crossStart(g); entry < inputs.crossEnd(g); entry++) {
                    int consumerRegion = inputs.crossRegion(entry);
                    if (consumerRegion != producerRegion
                            && stepTouchesZero(crossNotReady, entry, delta)) {
                        addPending(consumerRegion, delta);
                    }
                }
            }
        }
    }

    /**
     * Adds {@code delta} (±1) to {@code counters[i]}; true when the count of not-ready items
     * reaches zero (step down) or leaves zero (step up), which is when the input changes state.
     */
    private static boolean stepTouchesZero(int[] counters, int i, int delta) {
        counters[i] += delta;
        return stepTouchesZero(counters[i], delta);
    }

    /** Whether a count that moved by {@code delta} (±1) to {@code after} reached or left zero. */
    private static boolean stepTouchesZero(int after, int delta) {
        return delta < 0 ? after == 0 : after == 1;
    }

    /** Adds {@code delta} to the pending count of the region of every consumer of group g. */
    private void addToConsumers(int g, int delta) {
        int consumer = graph.edgeConsumer(topology.edgeOfGroup(g));
        int first = graph.firstTask(consumer);
        long consumers = topology.consumerRange(g);
        int base = regions.singletonRegionBase(consumer);
        if (base >= 0) { // subtask i alone in region base + i: no lookup per consumer
            int from = base + PackedRange.start(consumers) - first;
            int to = base + PackedRange.end(consumers) - first;
            for (int region = from; region < to; region++) {
                addPending(region, delta);
            }
            return;
        }
        for (int c = PackedRange.start(consumers); c < PackedRange.end(consumers); c++) {
            addPending(regions.regionOf(consumer, c - first), delta);
        }
    }

    private void addPending(int region, int delta) {
        if (pending.add(region, delta) == 0 && started && !scheduled.get(region)) {
            queue.add(region);
        }
    }
}
