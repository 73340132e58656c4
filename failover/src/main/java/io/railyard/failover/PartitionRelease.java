package io.railyard.failover;

import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.TaskRangeCursor;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import java.util.Arrays;
import java.util.BitSet;
import org.jspecify.annotations.Nullable;

/**
 * When partitions can be released: events in (tasks finished, regions restarted), releasable
 * partitions out (to a {@link ReleaseListener}).
 *
 * <h2>Rules</h2>
 *
 * Only partitions the scheduler releases are tracked (BLOCKING, HYBRID_FULL, HYBRID_SELECTIVE;
 * pipelined partitions are released by their producers). A region finishes when all its tasks have
 * finished. A consumed partition group is <em>releasable</em> when every region consuming it has
 * finished. A partition is released when every group containing it is releasable — one group per
 * consumer job vertex, so a dataset read by several job vertices is released only when all of them
 * are done with it. For a dataset with one consumer vertex, each release is exactly one group's
 * partition range. A restarted region that had finished makes its groups unreleasable again (the
 * counters are re-armed); they are released again after it finishes again.
 *
 * <h2>Cost</h2>
 *
 * A counter of unfinished consumer regions per group, of unfinished tasks per region, and — only
 * for datasets with several consumer vertices — of unreleasable groups per partition. Building is
 * O(regions + groups + consumers); a finished task is one region lookup ({@link
 * PipelinedRegions#regionOf(int)}: O(1) for up to 512 job vertices of comparable parallelism, O(log
 * V) at worst) unless it finishes its region, which costs O(the region's task ranges × input edges
 * + groups that become releasable + their partitions), each step O(1) for comparable sizes and at
 * worst a job-vertex or edge lookup, O(log V) or O(log E). Not thread-safe: feed it from the
 * JobManager's main thread. Events of stale attempts must be dropped before they get here (the
 * failover handler does).
 */
public final class PartitionRelease {
    private final PipelinedRegions regions;
    private final ExecutionTopology topology;
    private final JobGraph graph;
    private final ReleaseListener listener;
    private final TaskRangeCursor cursor;

    private final boolean[] tracked; // per dataset: released by the scheduler
    private final int[] unfinishedConsumers; // per group: consumer regions not finished
    private final int[] unfinishedTasks; // per region
    private final BitSet finishedTasks;
    private final BitSet finishedRegions;
    private final int[] @Nullable [] unreleasableGroups; // per dataset with >1 consumer vertex
    private final int[] groupStamp; // per group: scratch marks, one stamp per region visit
    private int stamp;

    /**
     * Release tracking over {@code regions}; nothing finished. O(regions + groups + consumers of
     * scheduler-released groups).
     */
    public PartitionRelease(PipelinedRegions regions, ReleaseListener listener) {
        this.regions = regions;
        this.topology = regions.topology();
        this.graph = topology.jobGraph();
        this.listener = listener;
        this.cursor = regions.newTaskRangeCursor();
        this.tracked = new boolean[graph.numDataSets()];
        this.unreleasableGroups = new int[graph.numDataSets()][];
        for (int d = 0; d < tracked.length; d++) {
            tracked[d] = graph.resultType(d).isReleasedByScheduler();
            if (tracked[d] && graph.numConsumerEdges(d) > 1) {
                unreleasableGroups[d] = new int[graph.numPartitions(d)];
                Arrays.fill(unreleasableGroups[d], graph.numConsumerEdges(d));
            }
        }
        this.unfinishedTasks = new int[regions.numRegions()];
        for (int r = 0; r < unfinishedTasks.length; r++) {
            unfinishedTasks[r] = regions.numTasks(r);
        }
        this.finishedTasks = new BitSet(graph.numTasks());
        this.finishedRegions = new BitSet(regions.numRegions());
        this.groupStamp = new int[topology.numGroups()];
        this.unfinishedConsumers = new int[topology.numGroups()];
        countConsumerRegions();
    }

    /** Counts the distinct consumer regions of every tracked group. */
    private void countConsumerRegions() {
        int[] regionStamp = new int[regions.numRegions()];
        for (int e = 0; e < graph.numEdges(); e++) {
            if (!tracked[graph.edgeDataSet(e)]) {
                continue;
            }
            int consumer = graph.edgeConsumer(e);
            int first = graph.firstTask(consumer);
            for (int g = topology.firstGroup(e);
                    g < topology.firstGroup(e) + topology.numGroups(e);
                    g++) {
                long consumers = topology.consumerRange(g);
                for (int c = PackedRange.start(consumers); c < PackedRange.end(consumers); c++) {
                    int region = regions.regionOf(consumer, c - first);
                    if (regionStamp[region] != g + 1) {
                        regionStamp[region] = g + 1;
                        unfinishedConsumers[g]++;
                    }
                }
            }
        }
    }

    /**
     * Task {@code task} finished. Idempotent within one attempt of its region.
     *
     * @throws IndexOutOfBoundsException if {@code task} is not a task id
     */
    public void onTaskFinished(int task) {
        checkElementIndex(task, graph.numTasks(), "task");
        if (finishedTasks.get(task)) {
            return;
        }
        finishedTasks.set(task);
        int region = regions.regionOf(task);
        if (--unfinishedTasks[region] == 0) {
            finishedRegions.set(region);
            forEachTrackedConsumedGroup(region, -1);
        }
    }

    /**
     * Regions {@code restarted} restart: their tasks count as unfinished again, and the groups they
     * consume become unreleasable again if they had finished. A region given twice is restarted
     * once. O(their tasks / 64 + task ranges × input edges + groups re-armed × their partitions).
     */
    public void onRegionsRestarted(int... restarted) {
        for (int region : restarted) {
            checkElementIndex(region, regions.numRegions(), "region");
        }
        for (int region : restarted) {
            if (finishedRegions.get(region)) {
                finishedRegions.clear(region);
                forEachTrackedConsumedGroup(region, +1);
            }
            for (cursor.reset(region); cursor.next(); ) {
                finishedTasks.clear(cursor.start(), cursor.end());
            }
            unfinishedTasks[region] = regions.numTasks(region);
        }
    }

    /**
     * The job is over (failed or cancelled): releases every tracked partition not released yet,
     * each exactly once, as if every consumer region had finished. O(groups + partitions of
     * multi-consumer datasets).
     */
    public void releaseAll() {
        for (int e = 0; e < graph.numEdges(); e++) {
            if (!tracked[graph.edgeDataSet(e)]) {
                continue;
            }
            for (int g = topology.firstGroup(e);
                    g < topology.firstGroup(e) + topology.numGroups(e);
                    g++) {
                if (unfinishedConsumers[g] > 0) {
                    unfinishedConsumers[g] = 0;
                    becameReleasable(e, g);
                }
            }
        }
        finishedRegions.set(0, regions.numRegions());
        finishedTasks.set(0, graph.numTasks());
    }

    /**
     * Whether every consumer region of group {@code group} has finished. O(1) for up to 512 edges
     * with comparable numbers of groups, O(log E) at worst ({@link
     * ExecutionTopology#edgeOfGroup(int)}).
     */
    public boolean isReleasable(int group) {
        checkElementIndex(group, topology.numGroups(), "group");
        return tracked[graph.edgeDataSet(topology.edgeOfGroup(group))]
                && unfinishedConsumers[group] == 0;
    }

    /** Adds {@code delta} to each tracked group consumed by the region, each group once. */
    private void forEachTrackedConsumedGroup(int region, int delta) {
        if (++stamp == 0) { // after 2^32 region visits: forget every mark once
            Arrays.fill(groupStamp, 0);
            stamp = 1;
        }
        for (cursor.reset(region); cursor.next(); ) {
            int v = graph.vertexOfTask(cursor.start());
            int low = cursor.start() - graph.firstTask(v);
            int high = cursor.end() - 1 - graph.firstTask(v);
            for (int k = 0; k < graph.numInputEdges(v); k++) {
                int e = graph.inputEdge(v, k);
                if (!tracked[graph.edgeDataSet(e)]) {
                    continue;
                }
                int last = topology.consumedGroupOnEdge(e, high);
                for (int g = topology.consumedGroupOnEdge(e, low); g <= last; g++) {
                    if (groupStamp[g] != stamp) {
                        groupStamp[g] = stamp;
                        step(e, g, delta);
                    }
                }
            }
        }
    }

    private void step(int e, int g, int delta) {
        int before = unfinishedConsumers[g];
        unfinishedConsumers[g] = before + delta;
        if (delta < 0 && before == 1) {
            becameReleasable(e, g);
        } else if (delta > 0 && before == 0) {
            becameUnreleasable(e, g);
        }
    }

    private void becameReleasable(int e, int g) {
        int d = graph.edgeDataSet(e);
        long partitions = topology.partitionRange(g);
        int[] pending = unreleasableGroups[d];
        if (pending == null) {
            listener.release(PackedRange.start(partitions), PackedRange.end(partitions));
            return;
        }
        int first = graph.firstPartition(d);
        int runStart = -1;
        for (int p = PackedRange.start(partitions); p < PackedRange.end(partitions); p++) {
            boolean free = --pending[p - first] == 0;
            if (free && runStart < 0) {
                runStart = p;
            } else if (!free && runStart >= 0) {
                listener.release(runStart, p);
                runStart = -1;
            }
        }
        if (runStart >= 0) {
            listener.release(runStart, PackedRange.end(partitions));
        }
    }

    private void becameUnreleasable(int e, int g) {
        int d = graph.edgeDataSet(e);
        int[] pending = unreleasableGroups[d];
        if (pending != null) {
            int first = graph.firstPartition(d);
            long partitions = topology.partitionRange(g);
            for (int p = PackedRange.start(partitions); p < PackedRange.end(partitions); p++) {
                pending[p - first]++;
            }
        }
    }
}
