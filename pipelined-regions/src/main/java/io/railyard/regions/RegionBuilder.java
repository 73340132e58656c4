package io.railyard.regions;

import com.google.common.math.IntMath;
import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import io.railyard.topology.RangeTable;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Builds {@link PipelinedRegions}: logical regions, then blocks of pre-regions, then cycle merging
 * and topological numbering. Single use; see the class notes of {@link PipelinedRegions} for the
 * rules.
 */
final class RegionBuilder {
    private final ExecutionTopology topology;
    private final JobGraph graph;
    private final boolean allToAllMakesOneRegion;

    private int[] blockOfVertex = new int[0];
    private byte[] blockKind = new byte[0];
    private RangeTable vertexSlotsOfBlock = RangeTable.ofSizes(new int[0]);
    private int[] blockVertices = new int[0];
    private RangeTable preRegionsOfBlock = RangeTable.ofSizes(new int[0]);
    private int @Nullable [][] localRegionOfSubtask;
    private @Nullable RangeTable @Nullable [] membersOfLocalRegion;
    private int @Nullable [][] memberTasks;
    private int @Nullable [] periodsOfBlock;

    /**
     * A builder; {@code allToAllMakesOneRegion} is Flink's shortcut (rule 2) and is always on
     * outside tests, which turn it off to show that cycle merging alone reaches the same regions.
     */
    RegionBuilder(ExecutionTopology topology, boolean allToAllMakesOneRegion) {
        this.topology = topology;
        this.graph = topology.jobGraph();
        this.allToAllMakesOneRegion = allToAllMakesOneRegion;
    }

    PipelinedRegions build() {
        buildLogicalRegions();
        buildPreRegions();
        return mergeCyclesAndNumber();
    }

    /** Union-find over job vertices along must-be-pipelined edges; blocks in vertex order. */
    private void buildLogicalRegions() {
        int numVertices = graph.numJobVertices();
        IntUnionFind logical = new IntUnionFind(numVertices);
        for (int e = 0; e < graph.numEdges(); e++) {
            if (graph.edgeResultType(e).mustBePipelinedConsumed()) {
                logical.union(graph.edgeProducer(e), graph.edgeConsumer(e));
            }
        }
        blockOfVertex = new int[numVertices];
        int[] blockOfRoot = new int[numVertices];
        Arrays.fill(blockOfRoot, -1);
        int numBlocks = 0;
        int[] verticesPerBlock = new int[numVertices];
        for (int v = 0; v < numVertices; v++) {
            int root = logical.find(v);
            if (blockOfRoot[root] < 0) {
                blockOfRoot[root] = numBlocks++;
            }
            blockOfVertex[v] = blockOfRoot[root];
            verticesPerBlock[blockOfVertex[v]]++;
        }
        vertexSlotsOfBlock = RangeTable.ofSizes(Arrays.copyOf(verticesPerBlock, numBlocks));
        blockVertices = new int[numVertices];
        int[] fill = new int[numBlocks];
        for (int v = 0; v < numVertices; v++) {
            int block = blockOfVertex[v];
            blockVertices[vertexSlotsOfBlock.start(block) + fill[block]++] = v;
        }
    }

    /** Decides each block's kind and counts its pre-regions. */
    private void buildPreRegions() {
        int numBlocks = vertexSlotsOfBlock.numRanges();
        boolean[] internalAllToAll = new boolean[numBlocks];
        for (int e = 0; e < graph.numEdges(); e++) {
            int block = blockOfVertex[graph.edgeProducer(e)];
            if (block == blockOfVertex[graph.edgeConsumer(e)]
                    && graph.edgePattern(e) == DistributionPattern.ALL_TO_ALL
                    && (allToAllMakesOneRegion
                            || graph.edgeResultType(e).mustBePipelinedConsumed())) {
                internalAllToAll[block] = true;
            }
        }
        blockKind = new byte[numBlocks];
        int[] preRegions = new int[numBlocks];
        for (int block = 0; block < numBlocks; block++) {
            int first = blockVertices[vertexSlotsOfBlock.start(block)];
            if (internalAllToAll[block]) {
                blockKind[block] = PipelinedRegions.WHOLE;
                preRegions[block] = 1;
            } else if (sameParallelism(block)) {
                blockKind[block] = PipelinedRegions.ALIGNED;
                preRegions[block] = graph.parallelism(first);
            } else {
                blockKind[block] = PipelinedRegions.TABLE;
                preRegions[block] = buildTable(block);
            }
        }
        preRegionsOfBlock = RangeTable.ofSizes(preRegions);
    }

    private boolean sameParallelism(int block) {
        int parallelism = graph.parallelism(blockVertices[vertexSlotsOfBlock.start(block)]);
        for (int slot = vertexSlotsOfBlock.start(block);
                slot < vertexSlotsOfBlock.end(block);
                slot++) {
            if (graph.parallelism(blockVertices[slot]) != parallelism) {
                return false;
            }
        }
        return true;
    }

    /**
     * Splits a pointwise-only block with unequal parallelism at task level: union-find over the
     * tasks of one period of the block ({@link #periodsOf}: its connections repeat that many times,
     * shifted by a period's subtasks of each vertex) along its pipelined groups, components
     * numbered by their smallest task; the components of period {@code r} are those of period 0,
     * numbered after period {@code r - 1}'s. Returns the number of components of the whole block.
     * O(groups of its edges + tasks of one period); memory O(tasks of one period).
     */
    private int buildTable(int block) {
        int[] edges = internalPipelinedEdges(block);
        int periods = periodsOf(block, edges);
        int[] localBase = new int[graph.numJobVertices()];
        int numTasks = 0;
        for (int slot = vertexSlotsOfBlock.start(block);
                slot < vertexSlotsOfBlock.end(block);
                slot++) {
            localBase[blockVertices[slot]] = numTasks;
            numTasks += graph.parallelism(blockVertices[slot]) / periods;
        }
        IntUnionFind tasks = new IntUnionFind(numTasks);
        for (int e : edges) {
            unionAlongGroups(
                    e,
                    topology.numGroups(e) / periods,
                    tasks,
                    localBase[graph.edgeProducer(e)],
                    localBase[graph.edgeConsumer(e)]);
        }
        int[] componentOfRoot = new int[numTasks];
        Arrays.fill(componentOfRoot, -1);
        int[] component = new int[numTasks];
        int numComponents = 0;
        for (int local = 0; local < numTasks; local++) {
            int root = tasks.find(local);
            if (componentOfRoot[root] < 0) {
                componentOfRoot[root] = numComponents++;
            }
            component[local] = componentOfRoot[root];
        }
        storeTable(block, periods, localBase, component, numComponents);
        return numComponents * periods;
    }

    /** The pipelined edges between vertices of {@code block}, by consumer. O(their input edges). */
    private int[] internalPipelinedEdges(int block) {
        IntArrayList edges = new IntArrayList();
        for (int slot = vertexSlotsOfBlock.start(block);
                slot < vertexSlotsOfBlock.end(block);
                slot++) {
            int consumer = blockVertices[slot];
            for (int k = 0; k < graph.numInputEdges(consumer); k++) {
                int e = graph.inputEdge(consumer, k);
                if (blockOfVertex[graph.edgeProducer(e)] == block
                        && graph.edgeResultType(e).mustBePipelinedConsumed()) {
                    edges.add(e);
                }
            }
        }
        return edges.toIntArray();
    }

    /**
     * How many identical periods the block's pipelined connections fall into: the greatest common
     * divisor {@code r} of its vertices' parallelism when every internal pipelined edge's groups
     * are {@code r} copies of its first {@code groups / r}, copy {@code i} shifted by {@code i}
     * periods' partitions and consumers (a period of vertex {@code v} is {@code parallelism(v) / r}
     * subtasks), and the first copy stays within period 0; else 1. Pointwise connections of
     * parallelism m → n repeat every m / gcd(m, n) producers: a(P) → b(P/2) has P/2 periods of one
     * region each, given its internal pipelined {@code edges}. O(groups of those edges).
     */
    private int periodsOf(int block, int[] edges) {
        int periods = 0;
        for (int slot = vertexSlotsOfBlock.start(block);
                slot < vertexSlotsOfBlock.end(block);
                slot++) {
            periods = IntMath.gcd(periods, graph.parallelism(blockVertices[slot]));
        }
        if (periods <= 1) {
            return 1;
        }
        for (int e : edges) {
            if (!repeats(e, periods)) {
                return 1;
            }
        }
        return periods;
    }

    /** Whether edge {@code e}'s groups are {@code periods} shifted copies (see periodsOf). */
    private boolean repeats(int e, int periods) {
        int numGroups = topology.numGroups(e);
        if (numGroups % periods != 0) {
            return false;
        }
        int perPeriod = numGroups / periods;
        int first = topology.firstGroup(e);
        int producerPeriod = graph.parallelism(graph.edgeProducer(e)) / periods;
        int consumerPeriod = graph.parallelism(graph.edgeConsumer(e)) / periods;
        int firstPartition = graph.firstPartition(graph.edgeDataSet(e));
        int firstConsumer = graph.firstTask(graph.edgeConsumer(e));
        for (int i = 0; i < perPeriod; i++) {
            long partitions = topology.partitionRange(first + i);
            long consumers = topology.consumerRange(first + i);
            if (PackedRange.end(partitions) - firstPartition > producerPeriod
                    || PackedRange.end(consumers) - firstConsumer > consumerPeriod) {
                return false; // the first copy reaches into the next period
            }
        }
        for (int i = perPeriod; i < numGroups; i++) {
            int period = i / perPeriod;
            int model = first + i % perPeriod;
            if (topology.partitionRange(first + i)
                            != shifted(topology.partitionRange(model), period * producerPeriod)
                    || topology.consumerRange(first + i)
                            != shifted(topology.consumerRange(model), period * consumerPeriod)) {
                return false;
            }
        }
        return true;
    }

    private static long shifted(long range, int by) {
        return PackedRange.of(PackedRange.start(range) + by, PackedRange.end(range) + by);
    }

    /** Unions the tasks of each of edge {@code e}'s first {@code numGroups} groups. */
    private void unionAlongGroups(
            int e, int numGroups, IntUnionFind tasks, int producerBase, int consumerBase) {
        int firstPartition = graph.firstPartition(graph.edgeDataSet(e));
        int firstConsumer = graph.firstTask(graph.edgeConsumer(e));
        for (int g = topology.firstGroup(e); g < topology.firstGroup(e) + numGroups; g++) {
            long partitions = topology.partitionRange(g);
            long consumers = topology.consumerRange(g);
            int anchor = consumerBase + PackedRange.start(consumers) - firstConsumer;
            for (int p = PackedRange.start(partitions); p < PackedRange.end(partitions); p++) {
                tasks.union(anchor, producerBase + p - firstPartition);
            }
            for (int c = PackedRange.start(consumers) + 1; c < PackedRange.end(consumers); c++) {
                tasks.union(anchor, consumerBase + c - firstConsumer);
            }
        }
    }

    /**
     * Stores the components of one period of a TABLE block: per vertex the component of each
     * subtask of the period, per component its member tasks as ids of period 0.
     */
    private void storeTable(
            int block, int periods, int[] localBase, int[] component, int numComponents) {
        int[][] tables = localRegionOfSubtask;
        RangeTable[] membersOfBlock = membersOfLocalRegion;
        int[][] tasksOfBlock = memberTasks;
        if (tables == null || membersOfBlock == null || tasksOfBlock == null) {
            tables = new int[graph.numJobVertices()][];
            periodsOfBlock = new int[vertexSlotsOfBlock.numRanges()];
            membersOfBlock = new RangeTable[vertexSlotsOfBlock.numRanges()];
            tasksOfBlock = new int[vertexSlotsOfBlock.numRanges()][];
            localRegionOfSubtask = tables;
            membersOfLocalRegion = membersOfBlock;
            memberTasks = tasksOfBlock;
        }
        int[] sizes = new int[numComponents];
        for (int c : component) {
            sizes[c]++;
        }
        RangeTable members = RangeTable.ofSizes(sizes);
        int[] tasks = new int[component.length];
        int[] fill = new int[numComponents];
        for (int slot = vertexSlotsOfBlock.start(block);
                slot < vertexSlotsOfBlock.end(block);
                slot++) {
            int v = blockVertices[slot];
            int[] table =
                    Arrays.copyOfRange(
                            component, localBase[v], localBase[v] + graph.parallelism(v) / periods);
            tables[v] = table;
            for (int subtask = 0; subtask < table.length; subtask++) {
                int c = table[subtask];
                tasks[members.start(c) + fill[c]++] = graph.firstTask(v) + subtask;
            }
        }
        membersOfBlock[block] = members;
        tasksOfBlock[block] = tasks;
        Objects.requireNonNull(periodsOfBlock)[block] = periods;
    }

    /** Merges pre-regions on cycles of non-pipelined groups and numbers regions topologically. */
    private PipelinedRegions mergeCyclesAndNumber() {
        PipelinedRegions unmerged = assemble(null, null, null);
        if (blockOrderIsTopological(unmerged)) {
            return unmerged;
        }
        RegionGraph regionGraph = RegionGraph.build(unmerged);
        StronglyConnectedComponents scc = regionGraph.stronglyConnectedComponents();
        int numPre = preRegionsOfBlock.total();
        int[] regionsInComponent = new int[scc.count()];
        boolean merged = false;
        for (int pre = 0; pre < numPre; pre++) {
            merged |= ++regionsInComponent[scc.componentOf(pre)] > 1;
        }
        if (!merged && regionGraph.preRegionOrderIsTopological(scc)) {
            return unmerged;
        }
        // Tarjan completes components in reverse topological order: count down.
        int[] regionOfComponent = new int[scc.count()];
        int numRegions = 0;
        for (int component = scc.count() - 1; component >= 0; component--) {
            regionOfComponent[component] = regionsInComponent[component] > 0 ? numRegions++ : -1;
        }
        int[] regionOfPre = new int[numPre];
        int[] sizes = new int[numRegions];
        for (int pre = 0; pre < numPre; pre++) {
            regionOfPre[pre] = regionOfComponent[scc.componentOf(pre)];
            sizes[regionOfPre[pre]]++;
        }
        RangeTable slots = RangeTable.ofSizes(sizes);
        int[] preOfRegion = new int[numPre];
        int[] fill = new int[numRegions];
        for (int pre = 0; pre < numPre; pre++) {
            preOfRegion[slots.start(regionOfPre[pre]) + fill[regionOfPre[pre]]++] = pre;
        }
        return assemble(regionOfPre, slots, preOfRegion);
    }

    /**
     * The shortcut for most jobs, O(job edges): when every non-pipelined edge either stays inside
     * one pre-region (see {@link RegionGraph#sameRegionAtBothEnds}) or goes from a lower block to a
     * higher one, every connection between regions goes from a lower pre-region id to a higher one:
     * no cycles, and the ids are already topological. No region graph is built.
     */
    private boolean blockOrderIsTopological(PipelinedRegions unmerged) {
        for (int e = 0; e < graph.numEdges(); e++) {
            if (graph.edgeResultType(e).mustBePipelinedConsumed()) {
                continue;
            }
            int producerBlock = blockOfVertex[graph.edgeProducer(e)];
            int consumerBlock = blockOfVertex[graph.edgeConsumer(e)];
            boolean forward =
                    producerBlock == consumerBlock
                            ? RegionGraph.sameRegionAtBothEnds(unmerged, producerBlock, e)
                            : producerBlock < consumerBlock;
            if (!forward) {
                return false;
            }
        }
        return true;
    }

    private PipelinedRegions assemble(
            int @Nullable [] regionOfPre,
            @Nullable RangeTable slots,
            int @Nullable [] preOfRegion) {
        return new PipelinedRegions(
                topology,
                blockOfVertex,
                blockKind,
                preRegionsOfBlock,
                vertexSlotsOfBlock,
                blockVertices,
                localRegionOfSubtask,
                membersOfLocalRegion,
                memberTasks,
                periodsOfBlock,
                regionOfPre,
                slots,
                preOfRegion);
    }
}
