package io.railyard.failover;

import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.TaskRangeCursor;
import io.railyard.topology.FixedBits;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedInts;
import io.railyard.topology.PackedRange;
import io.railyard.topology.VertexRuns;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.Arrays;
import java.util.Objects;
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
 * A counter of unfinished consumer regions per group, of unfinished tasks per region (in {@link
 * PackedInts}: one bit per region when every region is a single task), a bit per task and per
 * region, and — only for datasets with several consumer vertices — of unreleasable groups per
 * partition. Building is O(regions / 64 + regions not alone in their job vertex's run of singleton
 * regions + groups + consumers). A task alone in its region (a job vertex whose subtasks are
 * singleton regions, {@link PipelinedRegions#singletonRegionBase(int)}) finishes in O(1 + tracked
 * input edges + groups that become releasable × their partitions): its bit is its region's counter
 * and its one consumed group per edge needs no de-duplication. Any other task is one region lookup
 * ({@link PipelinedRegions#regionOf(int)}: O(1) for up to 512 job vertices of comparable
 * parallelism, O(log V) at worst) unless it finishes its region, which costs O(the region's task
 * ranges × input edges + groups that become releasable + their partitions), each step O(1) for
 * comparable sizes and at worst a job-vertex or edge lookup, O(log V) or O(log E). Not thread-safe:
 * feed it from the JobManager's main thread. Events of stale attempts must be dropped before they
 * get here (the failover handler does).
 */
public final class PartitionRelease {
    private final PipelinedRegions regions;
    private final ExecutionTopology topology;
    private final JobGraph graph;
    private final ReleaseListener listener;
    private final TaskRangeCursor cursor;
    private final int numTasks;

    private final boolean[] tracked; // per dataset: released by the scheduler
    private final PackedInts unfinishedConsumers; // per group: consumer regions not finished
    private final PackedInts unfinishedTasks; // per region not alone in it: tasks not finished
    private final int[] singletonBase; // per job vertex: PipelinedRegions.singletonRegionBase
    private final int[][] trackedInputEdges; // per job vertex: its input edges of tracked datasets
    private final int[] onlyGroup; // per edge: its one group, or -1 when it has several
    private final VertexRuns vertices; // finish events come in runs of one vertex
    private final FixedBits finishedTasks;
    private final FixedBits finishedRegions;
    private final int[] @Nullable [] unreleasableGroups; // per dataset with >1 consumer vertex
    private final FixedBits counted; // per group: stepped in the current region visit

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
        this.numTasks = graph.numTasks();
        this.vertices = new VertexRuns(graph);
        this.tracked = new boolean[graph.numDataSets()];
        this.unreleasableGroups = new int[graph.numDataSets()][];
        for (int d = 0; d < tracked.length; d++) {
            tracked[d] = graph.resultType(d).isReleasedByScheduler();
            if (tracked[d] && graph.numConsumerEdges(d) > 1) {
                unreleasableGroups[d] = new int[graph.numPartitions(d)];
                Arrays.fill(unreleasableGroups[d], graph.numConsumerEdges(d));
            }
        }
        this.singletonBase = new int[graph.numJobVertices()];
        this.trackedInputEdges = new int[graph.numJobVertices()][];
        this.unfinishedTasks = PackedInts.zeros(regions.numRegions());
        for (int v = 0; v < singletonBase.length; v++) {
            singletonBase[v] = regions.singletonRegionBase(v);
            trackedInputEdges[v] = trackedInputEdges(v);
        }
        armUnfinishedTasks();
        this.onlyGroup = new int[graph.numEdges()];
        for (int e = 0; e < onlyGroup.length; e++) {
            onlyGroup[e] = topology.numGroups(e) == 1 ? topology.firstGroup(e) : -1;
        }
        this.finishedTasks = new FixedBits(graph.numTasks());
        this.finishedRegions = new FixedBits(regions.numRegions());
        this.counted = new FixedBits(topology.numGroups());
        this.unfinishedConsumers = PackedInts.zeros(topology.numGroups());
        countConsumerRegions();
    }

    private int[] trackedInputEdges(int v) {
        IntArrayList edges = new IntArrayList();
        for (int k = 0; k < graph.numInputEdges(v); k++) {
            int e = graph.inputEdge(v, k);
            if (tracked[graph.edgeDataSet(e)]) {
                edges.add(e);
            }
        }
        return edges.toIntArray();
    }

    /**
     * Sets every region's counter to its size: runs of singleton regions a word at a time, the
     * other regions one by one. O(regions / 64 + regions not in such runs).
     */
    private void armUnfinishedTasks() {
        long[] runs = new long[singletonBase.length];
        int numRuns = 0;
        for (int v = 0; v < singletonBase.length; v++) {
            if (singletonBase[v] >= 0) {
                runs[numRuns++] =
                        PackedRange.of(singletonBase[v], singletonBase[v] + graph.parallelism(v));
            }
        }
        Arrays.sort(runs, 0, numRuns); // by start: the start is the high half
        int region = 0;
        for (int i = 0; i <= numRuns; i++) {
            int end = i < numRuns ? PackedRange.start(runs[i]) : regions.numRegions();
            for (; region < end; region++) {
                unfinishedTasks.set(region, regions.numTasks(region));
            }
            if (i < numRuns) {
                unfinishedTasks.fill(region, PackedRange.end(runs[i]), 1);
                region = PackedRange.end(runs[i]);
            }
        }
    }

    /** Counts the distinct consumer regions of every tracked group. */
    private void countConsumerRegions() {
        // a bit per region, within one group; cleared after each group
        FixedBits seen = new FixedBits(regions.numRegions());
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
                if (singletonBase[consumer] >= 0) { // one region per consumer
                    unfinishedConsumers.set(g, PackedRange.size(consumers));
                    continue;
                }
                for (int c = PackedRange.start(consumers); c < PackedRange.end(consumers); c++) {
                    int region = regions.regionOf(consumer, c - first);
                    if (!seen.get(region)) {
                        seen.set(region);
                        unfinishedConsumers.add(g, 1);
                    }
                }
                for (int c = PackedRange.start(consumers); c < PackedRange.end(consumers); c++) {
                    seen.clear(regions.regionOf(consumer, c - first));
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
        checkElementIndex(task, numTasks, "task");
        if (finishedTasks.getAndSet(task)) {
            return;
        }
        int v = vertices.vertexOf(task);
        int subtask = task - vertices.firstTask();
        int base = singletonBase[v];
        if (base >= 0) { // alone in region base + subtask: its bit in finishedTasks is the counter
            finishedRegions.set(base + subtask);
            int[] edges = trackedInputEdges[v];
            for (int k = 0; k < edges.length; k++) {
                int e = edges[k];
                int g = onlyGroup[e];
                if (g < 0) {
                    g = topology.consumedGroupOnEdge(e, subtask);
                }
                if (unfinishedConsumers.add(g, -1) == 0) {
                    becameReleasable(e, g);
                }
            }
            return;
        }
        int region = regions.regionOf(v, subtask);
        if (unfinishedTasks.decrementAndGet(region) == 0) {
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
        long[] ranges = new long[restarted.length];
        for (int i = 0; i < restarted.length; i++) {
            checkElementIndex(restarted[i], regions.numRegions(), "region");
            ranges[i] = PackedRange.of(restarted[i], restarted[i] + 1);
        }
        onRegionRangesRestarted(ranges);
    }

    /**
     * {@link #onRegionsRestarted} for the regions of {@code ranges} ({@link PackedRange}s of region
     * ids), without listing them. O(their regions, as there).
     *
     * @throws IndexOutOfBoundsException if a range is not within the region ids
     */
    public void onRegionRangesRestarted(long... ranges) {
        for (long range : ranges) {
            Objects.checkFromToIndex(
                    PackedRange.start(range), PackedRange.end(range), regions.numRegions());
        }
        for (long range : ranges) {
            for (int region = PackedRange.start(range); region < PackedRange.end(range); region++) {
                if (finishedRegions.get(region)) {
                    finishedRegions.clear(region);
                    forEachTrackedConsumedGroup(region, +1);
                }
                for (cursor.reset(region); cursor.next(); ) {
                    finishedTasks.clear(cursor.start(), cursor.end());
                }
                unfinishedTasks.set(region, regions.numTasks(region));
            }
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
                if (unfinishedConsumers.get(g) > 0) {
                    unfinishedConsumers.set(g, 0);
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
                && unfinishedConsumers.get(group) == 0;
    }

    /** Adds {@code delta} to each tracked group consumed by the region, each group once. */
    private void forEachTrackedConsumedGroup(int region, int delta) {
        try {
            walkTrackedConsumedGroups(region, delta);
        } finally {
            walkTrackedConsumedGroups(region, 0);
        }
    }

    /**
     * Steps each tracked group the region consumes by {@code delta}, marking it in {@link #counted}
     * so that a group read by several of its task ranges is stepped once; {@code delta} 0 clears
     * the marks of an earlier walk of the same region instead, a group range at a time.
     */
    private void walkTrackedConsumedGroups(int region, int delta) {
        for (cursor.reset(region); cursor.next(); ) {
            int v = graph.vertexOfTask(cursor.start());
            int low = cursor.start() - graph.firstTask(v);
            int high = cursor.end() - 1 - graph.firstTask(v);
            for (int e : trackedInputEdges[v]) {
                int first = topology.consumedGroupOnEdge(e, low);
                int last = topology.consumedGroupOnEdge(e, high);
                if (delta == 0) {
                    counted.clear(first, last + 1);
                    continue;
                }
                for (int g = first; g <= last; g++) {
                    if (!counted.get(g)) {
                        counted.set(g);
                        step(e, g, delta);
                    }
                }
            }
        }
    }

    private void step(int e, int g, int delta) {
        int after = unfinishedConsumers.add(g, delta);
        if (delta < 0 && after == 0) {
            becameReleasable(e, g);
        } else if (delta > 0 && after == delta) { // was 0
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
