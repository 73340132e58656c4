package io.railyard.regions;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.Arrays;

/**
 * The graph on which cycles among pre-regions are found: a node per pre-region and a node per
 * consumed partition group of a non-pipelined edge, with edges producer region → group → consumer
 * region. Routing through the group node keeps an all-to-all group at P + C edges instead of P × C
 * region pairs. Temporary: built, searched and dropped by {@link RegionBuilder}.
 */
final class RegionGraph {
    private final int numPreRegions;
    private final int numNodes;
    private final int[] offsets;
    private final int[] targets;

    private RegionGraph(int numPreRegions, int numNodes, int[] offsets, int[] targets) {
        this.numPreRegions = numPreRegions;
        this.numNodes = numNodes;
        this.offsets = offsets;
        this.targets = targets;
    }

    /** O(pre-regions + groups + members of the non-pipelined groups), deduplicating runs. */
    static RegionGraph build(PipelinedRegions pre) {
        ExecutionTopology topology = pre.topology();
        JobGraph graph = topology.jobGraph();
        int numPre = pre.numRegions();
        IntArrayList from = new IntArrayList();
        IntArrayList to = new IntArrayList();
        int node = numPre;
        for (int e = 0; e < graph.numEdges(); e++) {
            if (graph.edgeResultType(e).mustBePipelinedConsumed()) {
                continue;
            }
            int producer = graph.edgeProducer(e);
            int consumer = graph.edgeConsumer(e);
            int block = pre.blockOfVertex[producer];
            if (block == pre.blockOfVertex[consumer] && sameRegionAtBothEnds(pre, block, e)) {
                continue;
            }
            int firstPartition = graph.firstPartition(graph.edgeDataSet(e));
            int firstConsumer = graph.firstTask(consumer);
            for (int g = topology.firstGroup(e);
                    g < topology.firstGroup(e) + topology.numGroups(e);
                    g++, node++) {
                long partitions = topology.partitionRange(g);
                int last = -1;
                for (int p = PackedRange.start(partitions); p < PackedRange.end(partitions); p++) {
                    int region = pre.preRegionOf(producer, p - firstPartition);
                    if (region != last) {
                        from.add(region);
                        to.add(node);
                        last = region;
                    }
                }
                long consumers = topology.consumerRange(g);
                last = -1;
                for (int c = PackedRange.start(consumers); c < PackedRange.end(consumers); c++) {
                    int region = pre.preRegionOf(consumer, c - firstConsumer);
                    if (region != last) {
                        from.add(node);
                        to.add(region);
                        last = region;
                    }
                }
            }
        }
        int[] offsets = new int[node + 1];
        for (int i = 0; i < from.size(); i++) {
            offsets[from.getInt(i) + 1]++;
        }
        for (int v = 0; v < node; v++) {
            offsets[v + 1] += offsets[v];
        }
        int[] targets = new int[from.size()];
        int[] fill = Arrays.copyOf(offsets, node);
        for (int i = 0; i < from.size(); i++) {
            targets[fill[from.getInt(i)]++] = to.getInt(i);
        }
        return new RegionGraph(numPre, node, offsets, targets);
    }

    /**
     * Whether every connection of edge {@code e}, inside block {@code block}, stays within one
     * pre-region: always in a WHOLE block; in an ALIGNED block (equal parallelism) for POINTWISE
     * edges, which connect subtask i to subtask i.
     */
    static boolean sameRegionAtBothEnds(PipelinedRegions pre, int block, int e) {
        byte kind = pre.blockKind[block];
        return kind == PipelinedRegions.WHOLE
                || (kind == PipelinedRegions.ALIGNED
                        && pre.graph.edgePattern(e) == DistributionPattern.POINTWISE);
    }

    StronglyConnectedComponents stronglyConnectedComponents() {
        return StronglyConnectedComponents.compute(numNodes, offsets, targets);
    }

    /**
     * Whether numbering regions by pre-region id is already topological, given that no two
     * pre-regions share a component: every group's producer regions (outside the group's own
     * component) come before the region in its component, which comes before its consumer regions.
     * O(nodes + edges).
     */
    boolean preRegionOrderIsTopological(StronglyConnectedComponents scc) {
        int numGroups = numNodes - numPreRegions;
        int[] regionOfComponent = new int[scc.count()];
        Arrays.fill(regionOfComponent, -1);
        for (int pre = 0; pre < numPreRegions; pre++) {
            regionOfComponent[scc.componentOf(pre)] = pre;
        }
        int[] maxProducer = new int[numGroups];
        int[] minConsumer = new int[numGroups];
        Arrays.fill(maxProducer, -1);
        Arrays.fill(minConsumer, Integer.MAX_VALUE);
        for (int u = 0; u < numNodes; u++) {
            for (int i = offsets[u]; i < offsets[u + 1]; i++) {
                int w = targets[i];
                if (scc.componentOf(u) == scc.componentOf(w)) {
                    continue;
                }
                if (u < numPreRegions) {
                    maxProducer[w - numPreRegions] = Math.max(maxProducer[w - numPreRegions], u);
                } else {
                    minConsumer[u - numPreRegions] = Math.min(minConsumer[u - numPreRegions], w);
                }
            }
        }
        for (int group = 0; group < numGroups; group++) {
            int anchor = regionOfComponent[scc.componentOf(numPreRegions + group)];
            int producersBefore = maxProducer[group];
            int consumersAfter = minConsumer[group];
            if (anchor >= 0 && (producersBefore >= anchor || consumersAfter <= anchor)) {
                return false;
            }
            if (producersBefore >= consumersAfter) {
                return false;
            }
        }
        return true;
    }
}
