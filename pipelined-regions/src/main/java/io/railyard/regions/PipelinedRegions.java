package io.railyard.regions;

import static com.google.common.base.Preconditions.checkElementIndex;
import static com.google.common.base.Preconditions.checkState;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import io.railyard.topology.RangeTable;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import org.jspecify.annotations.Nullable;

/**
 * The pipelined regions of an execution topology: a partition of all tasks into regions such that
 * every connection that must be consumed pipelined stays inside a region and the regions, linked by
 * their non-pipelined (blocking and hybrid) connections, form a DAG. Regions are the unit of
 * scheduling and failover. Built by {@link #build(ExecutionTopology)}.
 *
 * <h2>Rules</h2>
 *
 * <ol>
 *   <li>Logical regions: job vertices joined by edges whose type must be consumed pipelined
 *       (union-find over job vertices).
 *   <li>A logical region with any internal ALL_TO_ALL edge becomes one region. A logical region
 *       whose internal edges are all POINTWISE is split at task level (union-find over task ids
 *       along its pipelined groups); if all its vertices have the same parallelism, subtask {@code
 *       i} of every vertex forms region {@code i} without any union-find.
 *   <li>Regions on a cycle of non-pipelined connections are merged: strongly connected components
 *       over a graph of regions and consumed partition groups, never over task-level connections.
 *       The classic case is the diamond A→B→C (PIPELINED, POINTWISE) plus A→C (BLOCKING,
 *       ALL_TO_ALL), all P = 2, whose regions [A#0, B#0, C#0] and [A#1, B#1, C#1] each wait for the
 *       other's blocking output (rule 2 already makes that one region, as Flink does, since A→C is
 *       an all-to-all edge inside the logical region); blocking edges going back and forth between
 *       logical regions make cycles only this rule catches.
 * </ol>
 *
 * Within one logical region this equals Apache Flink's regions; Flink does not merge cycles that
 * cross logical regions (its scheduler would wait forever there), Railyard does.
 *
 * <h2>Ids</h2>
 *
 * Region ids are {@code [0, numRegions())} and are a <b>topological order</b>: every non-pipelined
 * connection between two regions goes from a lower id to a higher one, so a region's topological
 * rank is its id.
 *
 * <h2>Design notes</h2>
 *
 * Nothing is stored per task or per region unless the tasks genuinely differ from their neighbours.
 * Each logical region is a <em>block</em> of consecutive region ids of one of three kinds: WHOLE
 * (one region, all tasks of its vertices), ALIGNED (region {@code base + i} is subtask {@code i} of
 * every vertex), or TABLE (pointwise logical regions with unequal parallelism: two ints per task of
 * one <em>period</em>, the stretch of subtasks after which the connections repeat, shifted — a(P) →
 * b(P/2) has P/2 periods of three tasks, so its table holds three tasks whatever P is; a block
 * whose connections do not repeat is one period). Merged cycles and a renumbering for topological
 * order add an int per region only when they occur. The blocking reference job at 10k × 10k, 20,000
 * singleton regions, is two ALIGNED blocks: a few hundred bytes.
 *
 * <p>Region of a task: finding its job vertex ({@link JobGraph#vertexOfTask(int)}: O(1) for up to
 * 512 job vertices of comparable parallelism, O(log V) at worst), then O(1) given the vertex and
 * subtask; no allocation. Tasks of a region: O(result) through a {@link TaskRangeCursor}. Immutable
 * and safe to share between threads.
 */
public final class PipelinedRegions {
    static final byte WHOLE = 0;
    static final byte ALIGNED = 1;
    static final byte TABLE = 2;

    final ExecutionTopology topology;
    final JobGraph graph;

    /** Block (logical region) of each job vertex. */
    final int[] blockOfVertex;

    /** Kind of each block. */
    final byte[] blockKind;

    /** Pre-region ids of each block. */
    final RangeTable preRegionsOfBlock;

    /** Vertices of each block, ascending (CSR). */
    final RangeTable vertexSlotsOfBlock;

    final int[] blockVertices;

    /** For TABLE blocks: per job vertex, the block-local region of each subtask; else null. */
    final int @Nullable [][] localRegionOfSubtask;

    /** For TABLE blocks: member tasks (ascending) of each local region, CSR; else null. */
    final @Nullable RangeTable @Nullable [] membersOfLocalRegion;

    final int @Nullable [][] memberTasks;

    /**
     * For TABLE blocks: how many times their connections repeat ({@code RegionBuilder.periodsOf});
     * the tables above describe one period, and a vertex's table holds its subtasks of one period.
     */
    final int @Nullable [] periodsOfBlock;

    /** Region of each pre-region, or null when they are the same (no merge, no renumbering). */
    final int @Nullable [] regionOfPreRegion;

    /** Pre-regions of each region (CSR), or null when they are the same. */
    final @Nullable RangeTable preRegionSlotsOfRegion;

    final int @Nullable [] preRegionsOfRegion;

    private final int numRegions;

    @SuppressWarnings("TooManyParameters") // called only by RegionBuilder, which owns the layout
    PipelinedRegions(
            ExecutionTopology topology,
            int[] blockOfVertex,
            byte[] blockKind,
            RangeTable preRegionsOfBlock,
            RangeTable vertexSlotsOfBlock,
            int[] blockVertices,
            int @Nullable [][] localRegionOfSubtask,
            @Nullable RangeTable @Nullable [] membersOfLocalRegion,
            int @Nullable [][] memberTasks,
            int @Nullable [] periodsOfBlock,
            int @Nullable [] regionOfPreRegion,
            @Nullable RangeTable preRegionSlotsOfRegion,
            int @Nullable [] preRegionsOfRegion) {
        this.topology = topology;
        this.graph = topology.jobGraph();
        this.blockOfVertex = blockOfVertex;
        this.blockKind = blockKind;
        this.preRegionsOfBlock = preRegionsOfBlock;
        this.vertexSlotsOfBlock = vertexSlotsOfBlock;
        this.blockVertices = blockVertices;
        this.localRegionOfSubtask = localRegionOfSubtask;
        this.membersOfLocalRegion = membersOfLocalRegion;
        this.memberTasks = memberTasks;
        this.periodsOfBlock = periodsOfBlock;
        this.regionOfPreRegion = regionOfPreRegion;
        this.preRegionSlotsOfRegion = preRegionSlotsOfRegion;
        this.preRegionsOfRegion = preRegionsOfRegion;
        this.numRegions =
                preRegionSlotsOfRegion == null
                        ? preRegionsOfBlock.total()
                        : preRegionSlotsOfRegion.numRanges();
    }

    /**
     * Computes the pipelined regions of {@code topology}. O(tasks + groups) time; see the class
     * notes for memory.
     */
    public static PipelinedRegions build(ExecutionTopology topology) {
        return new RegionBuilder(topology, true).build();
    }

    /** The execution topology these regions partition. */
    public ExecutionTopology topology() {
        return topology;
    }

    /** The number of regions. */
    public int numRegions() {
        return numRegions;
    }

    /**
     * The region of task {@code task}. O(1) for up to 512 job vertices of comparable parallelism,
     * O(log V) at worst (finding the job vertex); no allocation.
     */
    public int regionOf(int task) {
        int v = graph.vertexOfTask(task);
        return regionOf(v, task - graph.firstTask(v));
    }

    /** The region of subtask {@code subtask} of job vertex {@code v}. O(1), no allocation. */
    public int regionOf(int v, int subtask) {
        checkElementIndex(subtask, graph.parallelism(v), "subtask");
        int pre = preRegionOf(v, subtask);
        return regionOfPreRegion == null ? pre : regionOfPreRegion[pre];
    }

    /**
     * The topological rank of region {@code region}: its id, because region ids are assigned in
     * topological order. O(1).
     */
    public int topologicalRank(int region) {
        checkElementIndex(region, numRegions, "region");
        return region;
    }

    /**
     * The number of tasks in region {@code region}. O(pre-regions merged into it + job vertices of
     * a region that is a whole logical region), each pre-region a block lookup: O(1) for up to 512
     * blocks of comparable region counts, O(log V) at worst.
     */
    public int numTasks(int region) {
        checkElementIndex(region, numRegions, "region");
        if (preRegionSlotsOfRegion == null || preRegionsOfRegion == null) {
            return preRegionSize(region);
        }
        int count = 0;
        for (int slot = preRegionSlotsOfRegion.start(region);
                slot < preRegionSlotsOfRegion.end(region);
                slot++) {
            count += preRegionSize(preRegionsOfRegion[slot]);
        }
        return count;
    }

    /**
     * If every subtask of job vertex {@code v} is alone in its own region and subtask {@code i}'s
     * region is {@code result + i} — the sinks and sources of a blocking all-to-all job — the
     * region of subtask 0; otherwise -1. Lets callers handle a run of such regions as one task
     * range. O(1).
     */
    public int singletonRegionBase(int v) {
        checkElementIndex(v, graph.numJobVertices(), "vertex");
        int block = blockOfVertex[v];
        boolean alone =
                blockKind[block] == ALIGNED
                        && vertexSlotsOfBlock.size(block) == 1
                        && regionOfPreRegion == null;
        return alone ? preRegionsOfBlock.start(block) : -1;
    }

    /**
     * Whether no region holds tasks of both job vertices {@code v} and {@code w}: they are in
     * different logical regions and no cycle was merged. Lets callers classify a group between them
     * without looking at its members. O(1).
     */
    public boolean disjointRegions(int v, int w) {
        checkElementIndex(v, graph.numJobVertices(), "vertex");
        checkElementIndex(w, graph.numJobVertices(), "vertex");
        return blockOfVertex[v] != blockOfVertex[w] && regionOfPreRegion == null;
    }

    /** A new reusable cursor over the task ranges of a region; see {@link TaskRangeCursor}. */
    public TaskRangeCursor newTaskRangeCursor() {
        return new TaskRangeCursor(this);
    }

    int preRegionOf(int v, int subtask) {
        int block = blockOfVertex[v];
        int base = preRegionsOfBlock.start(block);
        return switch (blockKind[block]) {
            case WHOLE -> base;
            case ALIGNED -> base + subtask;
            default -> {
                int[] table = localTable(v); // one period of v's subtasks
                int period = subtask / table.length;
                yield base + period * members(block).numRanges() + table[subtask % table.length];
            }
        };
    }

    private int[] localTable(int v) {
        int[][] tables = localRegionOfSubtask;
        checkState(tables != null && tables[v] != null, "vertex %s has no region table", v);
        return tables[v];
    }

    int preRegionSize(int pre) {
        int block = preRegionsOfBlock.indexOf(pre);
        return switch (blockKind[block]) {
            case WHOLE -> wholeBlockTasks(block);
            case ALIGNED -> vertexSlotsOfBlock.size(block);
            default -> {
                RangeTable members = members(block);
                yield members.size((pre - preRegionsOfBlock.start(block)) % members.numRanges());
            }
        };
    }

    private int wholeBlockTasks(int block) {
        int tasks = 0;
        for (int slot = vertexSlotsOfBlock.start(block);
                slot < vertexSlotsOfBlock.end(block);
                slot++) {
            tasks += graph.parallelism(blockVertices[slot]);
        }
        return tasks;
    }

    RangeTable members(int block) {
        RangeTable[] tables = membersOfLocalRegion;
        checkState(tables != null && tables[block] != null, "block %s has no member table", block);
        return tables[block];
    }

    /** The subtasks of one period of job vertex {@code v}, in a TABLE block. */
    int periodTasks(int v) {
        return localTable(v).length;
    }

    int[] memberTasks(int block) {
        int[][] tasks = memberTasks;
        checkState(tasks != null && tasks[block] != null, "block %s has no member table", block);
        return tasks[block];
    }

    /**
     * Checks that the regions partition all tasks and that the cursor and {@link #regionOf} agree;
     * throws {@link IllegalStateException} on a violation, else returns {@code true}. O(tasks). For
     * tests.
     */
    public boolean checkInvariants() {
        int[] seen = new int[graph.numTasks()];
        TaskRangeCursor cursor = newTaskRangeCursor();
        long covered = 0;
        for (int region = 0; region < numRegions; region++) {
            int inRegion = 0;
            for (cursor.reset(region); cursor.next(); ) {
                checkState(cursor.start() < cursor.end(), "empty range in region %s", region);
                checkState(
                        graph.vertexOfTask(cursor.start()) == graph.vertexOfTask(cursor.end() - 1),
                        "a range of region %s spans two job vertices",
                        region);
                for (int task = cursor.start(); task < cursor.end(); task++) {
                    checkState(seen[task]++ == 0, "task %s is in two regions", task);
                    checkState(regionOf(task) == region, "task %s: regionOf disagrees", task);
                    inRegion++;
                }
            }
            checkState(inRegion > 0, "region %s is empty", region);
            checkState(inRegion == numTasks(region), "size of region %s is wrong", region);
            covered += inRegion;
        }
        checkState(
                covered == graph.numTasks(),
                "regions cover %s of %s tasks",
                covered,
                graph.numTasks());
        return true;
    }

    /**
     * The region as people read it, tasks ascending, e.g. {@code "[a#0, a#1, b#0]"}. O(t log t) for
     * a region of t tasks; allocates.
     */
    public String describe(int region) {
        IntArrayList tasks = new IntArrayList(numTasks(region));
        TaskRangeCursor cursor = newTaskRangeCursor();
        for (cursor.reset(region); cursor.next(); ) {
            for (int task = cursor.start(); task < cursor.end(); task++) {
                tasks.add(task);
            }
        }
        tasks.sort(null);
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < tasks.size(); i++) {
            out.append(i > 0 ? ", " : "").append(graph.taskName(tasks.getInt(i)));
        }
        return out.append(']').toString();
    }

    @Override
    public String toString() {
        return "PipelinedRegions{regions="
                + numRegions
                + ", blocks="
                + blockKind.length
                + ", merged="
                + (preRegionSlotsOfRegion != null)
                + ", range="
                + PackedRange.toString(PackedRange.of(0, numRegions))
                + "}";
    }
}
