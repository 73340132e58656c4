package io.railyard.groups;

import static com.google.common.base.Preconditions.checkElementIndex;
import static com.google.common.base.Preconditions.checkState;

import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import io.railyard.topology.RangeTable;
import io.railyard.topology.ResultPartitionType;

/**
 * The compact execution topology of a {@link JobGraph}: every edge as consumer groups, with no
 * object, array entry or counter per task-level connection.
 *
 * <h2>Groups</h2>
 *
 * A <em>group</em> pairs a consumed partition group (partitions that some consumer tasks read
 * together) with its consumer vertex group (the tasks that read them). Every task-level connection
 * of an edge lies in exactly one group of that edge, and every group connects each of its
 * partitions to each of its consumers. Group ids are dense, {@code [0, numGroups())}, and
 * contiguous per edge: edge {@code e} owns {@code [firstGroup(e), firstGroup(e) + numGroups(e))}.
 * The partitions and the consumers of a group are each one contiguous id range.
 *
 * <p>With {@code P} producer tasks and {@code C} consumer tasks on an edge, the groups are those of
 * Apache Flink's execution graph, index for index:
 *
 * <ul>
 *   <li>ALL_TO_ALL: one group, all partitions, all consumers. At 10,000 × 10,000 that is one group
 *       for 10^8 connections.
 *   <li>POINTWISE with {@code P >= C}: group {@code j} is consumer subtask {@code j}, reading
 *       partitions {@code [j*P/C, (j+1)*P/C)} (integer division).
 *   <li>POINTWISE with {@code P < C}: group {@code j} is partition {@code j}, read by consumer
 *       subtasks {@code [ceil(j*C/P), ceil((j+1)*C/P))}.
 * </ul>
 *
 * <h2>Design notes</h2>
 *
 * The topology stores one small record per edge (the edge's kind, its two parallelisms and id
 * offsets) and a {@link RangeTable} of groups per edge, so its size depends only on the number of
 * job edges: at 10k × 10k or 100k × 100k it is a few hundred bytes on top of the job graph. Every
 * query is arithmetic on that record. Queries that start from a task, partition or group first find
 * its job vertex, dataset or edge with a {@link RangeTable#indexOf(int)} lookup, independent of
 * parallelism: O(1) for up to 512 job vertices, datasets or edges of comparable size (parallelism,
 * producer parallelism, number of groups), O(log V), O(log D) or O(log E) at worst. An ALL_TO_ALL
 * edge has one group and a POINTWISE edge {@code min(P, C)}, so a job mixing both can reach the
 * O(log E) case for the groups of its all-to-all edges. The {@code ...OnEdge} variants take the
 * edge and are O(1). No query allocates. Ranges come back as {@link PackedRange} longs.
 *
 * <p>Immutable and safe to share between threads.
 */
public final class ExecutionTopology {
    /** Groups per edge: one group for the whole edge. */
    private static final byte ALL_TO_ALL = 0;

    /** Pointwise with producers >= consumers: one group per consumer subtask. */
    private static final byte POINTWISE_FAN_IN = 1;

    /** Pointwise with producers < consumers: one group per partition. */
    private static final byte POINTWISE_FAN_OUT = 2;

    private final JobGraph graph;
    private final RangeTable groupsOfEdge;
    private final byte[] edgeKind;
    private final int[] producerParallelism;
    private final int[] consumerParallelism;
    private final int[] firstPartition;
    private final int[] firstConsumerTask;

    private ExecutionTopology(JobGraph graph) {
        this.graph = graph;
        int numEdges = graph.numEdges();
        this.edgeKind = new byte[numEdges];
        this.producerParallelism = new int[numEdges];
        this.consumerParallelism = new int[numEdges];
        this.firstPartition = new int[numEdges];
        this.firstConsumerTask = new int[numEdges];
        int[] groupsPerEdge = new int[numEdges];
        for (int e = 0; e < numEdges; e++) {
            int producers = graph.parallelism(graph.edgeProducer(e));
            int consumers = graph.parallelism(graph.edgeConsumer(e));
            producerParallelism[e] = producers;
            consumerParallelism[e] = consumers;
            firstPartition[e] = graph.firstPartition(graph.edgeDataSet(e));
            firstConsumerTask[e] = graph.firstTask(graph.edgeConsumer(e));
            if (graph.edgePattern(e) == DistributionPattern.ALL_TO_ALL) {
                edgeKind[e] = ALL_TO_ALL;
                groupsPerEdge[e] = 1;
            } else if (producers >= consumers) {
                edgeKind[e] = POINTWISE_FAN_IN;
                groupsPerEdge[e] = consumers;
            } else {
                edgeKind[e] = POINTWISE_FAN_OUT;
                groupsPerEdge[e] = producers;
            }
        }
        this.groupsOfEdge = RangeTable.ofSizes(groupsPerEdge);
        assert checkInvariants();
    }

    /** The execution topology of {@code graph}. O(V + E) time and memory for E job edges. */
    public static ExecutionTopology of(JobGraph graph) {
        return new ExecutionTopology(graph);
    }

    /** The job graph this topology expands. */
    public JobGraph jobGraph() {
        return graph;
    }

    // ---------------------------------------------------------------------------------------
    // Groups

    /** The number of groups over all edges. */
    public int numGroups() {
        return groupsOfEdge.total();
    }

    /** The number of groups of edge {@code e}. O(1). */
    public int numGroups(int e) {
        return groupsOfEdge.size(e);
    }

    /** The first group id of edge {@code e}. O(1). */
    public int firstGroup(int e) {
        return groupsOfEdge.start(e);
    }

    /**
     * The edge that group {@code group} belongs to. O(1) for up to 512 edges with comparable
     * numbers of groups, O(log E) at worst (class notes); no allocation.
     */
    public int edgeOfGroup(int group) {
        return groupsOfEdge.indexOf(group);
    }

    /**
     * The result-partition type of the partitions in group {@code group}. O(1) for up to 512 edges
     * with comparable numbers of groups, O(log E) at worst; no allocation.
     */
    public ResultPartitionType resultType(int group) {
        return graph.edgeResultType(edgeOfGroup(group));
    }

    /**
     * The partition ids of group {@code group} as a {@link PackedRange}. O(1) for up to 512 edges
     * with comparable numbers of groups, O(log E) at worst; no allocation.
     */
    public long partitionRange(int group) {
        int e = edgeOfGroup(group);
        int j = group - groupsOfEdge.start(e);
        int base = firstPartition[e];
        int producers = producerParallelism[e];
        int consumers = consumerParallelism[e];
        return switch (edgeKind[e]) {
            case ALL_TO_ALL -> PackedRange.of(base, base + producers);
            case POINTWISE_FAN_IN ->
                    PackedRange.of(
                            base + floorDiv(j, producers, consumers),
                            base + floorDiv(j + 1, producers, consumers));
            default -> PackedRange.of(base + j, base + j + 1);
        };
    }

    /**
     * The consumer task ids of group {@code group} as a {@link PackedRange}. O(1) for up to 512
     * edges with comparable numbers of groups, O(log E) at worst; no allocation.
     */
    public long consumerRange(int group) {
        int e = edgeOfGroup(group);
        int j = group - groupsOfEdge.start(e);
        int base = firstConsumerTask[e];
        int consumers = consumerParallelism[e];
        int producers = producerParallelism[e];
        return switch (edgeKind[e]) {
            case ALL_TO_ALL -> PackedRange.of(base, base + consumers);
            case POINTWISE_FAN_IN -> PackedRange.of(base + j, base + j + 1);
            default ->
                    PackedRange.of(
                            base + ceilDiv(j, consumers, producers),
                            base + ceilDiv(j + 1, consumers, producers));
        };
    }

    /**
     * The number of task-level connections that group {@code group} stands for. O(1) for up to 512
     * edges with comparable numbers of groups, O(log E) at worst; no allocation.
     */
    public long numConnections(int group) {
        return (long) PackedRange.size(partitionRange(group))
                * PackedRange.size(consumerRange(group));
    }

    // ---------------------------------------------------------------------------------------
    // From a consumer task

    /**
     * The number of groups task {@code task} consumes: one per input edge. O(1) for up to 512 job
     * vertices of comparable parallelism, O(log V) at worst; no allocation.
     */
    public int numConsumedGroups(int task) {
        return graph.numInputEdges(graph.vertexOfTask(task));
    }

    /**
     * The group that task {@code task} consumes through input {@code k}. O(1) for up to 512 job
     * vertices of comparable parallelism, O(log V) at worst; no allocation.
     */
    public int consumedGroup(int task, int k) {
        int v = graph.vertexOfTask(task);
        return consumedGroupOnEdge(graph.inputEdge(v, k), task - graph.firstTask(v));
    }

    /**
     * The group through which consumer subtask {@code subtask} reads edge {@code e}. O(1), no
     * allocation.
     */
    public int consumedGroupOnEdge(int e, int subtask) {
        checkElementIndex(e, edgeKind.length, "edge");
        checkElementIndex(subtask, consumerParallelism[e], "consumer subtask");
        int base = groupsOfEdge.start(e);
        return switch (edgeKind[e]) {
            case ALL_TO_ALL -> base;
            case POINTWISE_FAN_IN -> base + subtask;
            default -> base + floorDiv(subtask, producerParallelism[e], consumerParallelism[e]);
        };
    }

    // ---------------------------------------------------------------------------------------
    // From a partition

    /**
     * The task that produces partition {@code partition}. O(1) for up to 512 datasets whose
     * producers have comparable parallelism, O(log D) at worst; no allocation.
     */
    public int producerTask(int partition) {
        return graph.producerTask(partition);
    }

    /**
     * The number of groups that read partition {@code partition}: one per consumer edge. O(1) for
     * up to 512 datasets whose producers have comparable parallelism, O(log D) at worst; no
     * allocation.
     */
    public int numConsumerGroups(int partition) {
        return graph.numConsumerEdges(graph.dataSetOfPartition(partition));
    }

    /**
     * The group through which the {@code k}-th consumer edge of its dataset reads partition {@code
     * partition}. O(1) for up to 512 datasets whose producers have comparable parallelism, O(log D)
     * at worst; no allocation.
     */
    public int consumerGroup(int partition, int k) {
        int d = graph.dataSetOfPartition(partition);
        return consumerGroupOnEdge(graph.consumerEdge(d, k), partition - graph.firstPartition(d));
    }

    /**
     * The subpartitions of partition {@code index} (0-based within the dataset) of dataset {@code
     * d}: the most consumers it has on any of the dataset's consumer edges — each consumer of an
     * edge reads its own of them — and at least 1. O(consumer edges), no allocation.
     */
    public int numSubpartitions(int d, int index) {
        int most = 1;
        for (int k = 0; k < graph.numConsumerEdges(d); k++) {
            int g = consumerGroupOnEdge(graph.consumerEdge(d, k), index);
            most = Math.max(most, PackedRange.size(consumerRange(g)));
        }
        return most;
    }

    /**
     * The subpartitions of every partition of dataset {@code d} when that is one number for all of
     * them — every consumer edge of {@code d} is all-to-all, or it has none — else -1 (a pointwise
     * edge gives partitions different consumer counts; ask {@link #numSubpartitions}). Lets a
     * caller that asks for many partitions of one dataset ask once. O(consumer edges), no
     * allocation.
     */
    public int uniformSubpartitions(int d) {
        for (int k = 0; k < graph.numConsumerEdges(d); k++) {
            if (edgeKind[graph.consumerEdge(d, k)] != ALL_TO_ALL) {
                return -1;
            }
        }
        return numSubpartitions(d, 0);
    }

    /**
     * The group of edge {@code e} that reads partition {@code index} (0-based within the dataset)
     * of the edge's dataset. O(1), no allocation.
     */
    public int consumerGroupOnEdge(int e, int index) {
        checkElementIndex(e, edgeKind.length, "edge");
        checkElementIndex(index, producerParallelism[e], "partition index");
        int base = groupsOfEdge.start(e);
        return switch (edgeKind[e]) {
            case ALL_TO_ALL -> base;
            case POINTWISE_FAN_IN ->
                    base + fanInConsumer(index, producerParallelism[e], consumerParallelism[e]);
            default -> base + index;
        };
    }

    /**
     * On a pointwise edge with {@code producers >= consumers}, the consumer subtask {@code j} whose
     * partitions {@code [j*P/C, (j+1)*P/C)} contain {@code index}: {@code ceil((index+1) * C / P) -
     * 1}.
     */
    private static int fanInConsumer(int index, int producers, int consumers) {
        return (int) (((index + 1L) * consumers - 1) / producers);
    }

    /** {@code floor(a * b / c)} without int overflow; all arguments non-negative. */
    private static int floorDiv(int a, int b, int c) {
        return (int) ((long) a * b / c);
    }

    /** {@code ceil(a * b / c)} without int overflow; all arguments non-negative, c > 0. */
    private static int ceilDiv(int a, int b, int c) {
        return (int) (((long) a * b + c - 1) / c);
    }

    /**
     * Checks that the groups of every edge tile its partitions and consumers exactly (the
     * structural invariant of this class) and throws {@link IllegalStateException} on a violation;
     * returns {@code true} so that it can be asserted. O(groups). For tests.
     */
    public boolean checkInvariants() {
        for (int e = 0; e < edgeKind.length; e++) {
            int first = groupsOfEdge.start(e);
            int end = groupsOfEdge.end(e);
            checkState(end > first, "edge %s has no group", e);
            if (edgeKind[e] == ALL_TO_ALL) {
                continue;
            }
            // Pointwise groups tile one side and partition the other into consecutive ranges.
            int expectedPartition = firstPartition[e];
            int expectedConsumer = firstConsumerTask[e];
            for (int g = first; g < end; g++) {
                long partitions = partitionRange(g);
                long consumers = consumerRange(g);
                checkState(
                        PackedRange.start(partitions) == expectedPartition
                                && PackedRange.start(consumers) == expectedConsumer,
                        "group %s of edge %s does not continue where the previous ended",
                        g,
                        e);
                checkState(
                        PackedRange.size(partitions) > 0 && PackedRange.size(consumers) > 0,
                        "group %s of edge %s is empty",
                        g,
                        e);
                expectedPartition = PackedRange.end(partitions);
                expectedConsumer = PackedRange.end(consumers);
            }
            checkState(
                    expectedPartition == firstPartition[e] + producerParallelism[e]
                            && expectedConsumer == firstConsumerTask[e] + consumerParallelism[e],
                    "groups of edge %s do not cover it",
                    e);
        }
        return true;
    }

    @Override
    public String toString() {
        return "ExecutionTopology{" + graph + ", groups=" + numGroups() + "}";
    }
}
