package io.railyard.topology;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkElementIndex;
import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableMap;
import java.util.OptionalInt;

/**
 * An immutable logical job graph: job vertices, the datasets they produce, and the edges from a
 * dataset to each job vertex that consumes it. Built by a {@link JobGraphBuilder}.
 *
 * <h2>Dense ids</h2>
 *
 * <ul>
 *   <li>Job vertex ids are {@code [0, numJobVertices())} and are a <b>topological order</b>: the
 *       producer of every dataset has a smaller id than each of its consumers. Among vertices that
 *       could go in either order, the one added to the builder first comes first, so a graph added
 *       in topological order keeps its insertion order.
 *   <li>Task ids are {@code [0, numTasks())}; job vertex {@code v} owns the contiguous range {@code
 *       [firstTask(v), firstTask(v) + parallelism(v))}, subtask {@code i} being {@code firstTask(v)
 *       + i}.
 *   <li>Dataset ids are ordered by producer, then by insertion. Partition ids are {@code [0,
 *       numPartitions())}; dataset {@code d} owns one partition per producer subtask, in subtask
 *       order, as a contiguous range.
 *   <li>Edge ids are ordered by consumer, then by insertion, so the inputs of a job vertex are a
 *       contiguous range of edge ids; input {@code k} of vertex {@code v} is edge {@code
 *       firstInputEdge(v) + k}.
 * </ul>
 *
 * <h2>Design notes</h2>
 *
 * The graph stores a handful of arrays indexed by job vertex, dataset and edge, and nothing per
 * task or partition: task and partition ids are implied by {@link RangeTable}s. Mapping a task to
 * its job vertex (or a partition to its dataset) is a {@link RangeTable#indexOf(int)} lookup,
 * independent of parallelism: O(1) for up to 512 job vertices (datasets) of comparable parallelism
 * (producer parallelism), O(log V) (O(log D)) at worst. Everything else is O(1). No accessor
 * allocates, except the ones that return names built for people ({@link #taskName(int)}, {@link
 * #describeEdge(int)}), fresh arrays, or an {@link OptionalInt} ({@link #findVertex(String)},
 * {@link #maxParallelism(int)}).
 *
 * <p>Accessors check their int arguments and throw {@link IndexOutOfBoundsException} naming the
 * kind of id. Instances are immutable and safe to share between threads.
 */
public final class JobGraph {
    /** The largest supported parallelism (and max parallelism) of a job vertex: 2^24. */
    public static final int MAX_PARALLELISM = 1 << 24;

    private final String[] vertexNames;
    private final int[] maxParallelism; // 0 where not set
    private final RangeTable tasksOfVertex;
    private final RangeTable inputEdgesOfVertex;
    private final RangeTable dataSetsOfVertex;

    private final String[] dataSetNames;
    private final int[] dataSetProducer;
    private final ResultPartitionType[] dataSetType;
    private final RangeTable partitionsOfDataSet;
    private final RangeTable consumerEdgeSlotsOfDataSet;
    private final int[] consumerEdgeSlots; // CSR values: edge ids per dataset, ascending

    private final int[] edgeDataSet;
    private final int[] edgeConsumer;
    private final DistributionPattern[] edgePattern;

    private final ImmutableMap<String, Integer> vertexIdByName;
    private final ImmutableMap<String, Integer> dataSetIdByName;

    @SuppressWarnings("TooManyParameters") // called only by JobGraphBuilder, which owns the layout
    JobGraph(
            String[] vertexNames,
            int[] parallelism,
            int[] maxParallelism,
            String[] dataSetNames,
            int[] dataSetProducer,
            ResultPartitionType[] dataSetType,
            int[] edgeDataSet,
            int[] edgeConsumer,
            DistributionPattern[] edgePattern) {
        int numVertices = vertexNames.length;
        this.vertexNames = vertexNames;
        this.maxParallelism = maxParallelism;
        this.tasksOfVertex = RangeTable.ofSizes(parallelism);
        this.dataSetNames = dataSetNames;
        this.dataSetProducer = dataSetProducer;
        this.dataSetType = dataSetType;
        this.edgeDataSet = edgeDataSet;
        this.edgeConsumer = edgeConsumer;
        this.edgePattern = edgePattern;

        int[] partitionsPerDataSet = new int[dataSetNames.length];
        int[] dataSetsPerVertex = new int[numVertices];
        for (int d = 0; d < dataSetNames.length; d++) {
            partitionsPerDataSet[d] = parallelism[dataSetProducer[d]];
            dataSetsPerVertex[dataSetProducer[d]]++;
        }
        this.partitionsOfDataSet = RangeTable.ofSizes(partitionsPerDataSet);
        this.dataSetsOfVertex = RangeTable.ofSizes(dataSetsPerVertex);

        int[] inputsPerVertex = new int[numVertices];
        int[] consumersPerDataSet = new int[dataSetNames.length];
        for (int e = 0; e < edgeDataSet.length; e++) {
            inputsPerVertex[edgeConsumer[e]]++;
            consumersPerDataSet[edgeDataSet[e]]++;
        }
        this.inputEdgesOfVertex = RangeTable.ofSizes(inputsPerVertex);
        this.consumerEdgeSlotsOfDataSet = RangeTable.ofSizes(consumersPerDataSet);
        this.consumerEdgeSlots = new int[edgeDataSet.length];
        int[] fill = new int[dataSetNames.length];
        for (int e = 0; e < edgeDataSet.length; e++) {
            int d = edgeDataSet[e];
            consumerEdgeSlots[consumerEdgeSlotsOfDataSet.start(d) + fill[d]++] = e;
        }

        this.vertexIdByName = indexByName(vertexNames);
        this.dataSetIdByName = indexByName(dataSetNames);
        assert checkInvariants();
    }

    private static ImmutableMap<String, Integer> indexByName(String[] names) {
        ImmutableMap.Builder<String, Integer> byName =
                ImmutableMap.builderWithExpectedSize(names.length);
        for (int i = 0; i < names.length; i++) {
            byName.put(names[i], i);
        }
        return byName.buildOrThrow();
    }

    /** A new, empty builder. */
    public static JobGraphBuilder builder() {
        return new JobGraphBuilder();
    }

    // ---------------------------------------------------------------------------------------
    // Job vertices and tasks

    /** The number of job vertices. */
    public int numJobVertices() {
        return vertexNames.length;
    }

    /** The name of job vertex {@code v}. */
    public String vertexName(int v) {
        checkElementIndex(v, numJobVertices(), "job vertex");
        return vertexNames[v];
    }

    /**
     * The id of the job vertex called {@code name}. O(1).
     *
     * @throws IllegalArgumentException if there is no such vertex
     */
    public int vertexId(String name) {
        Integer id = vertexIdByName.get(name);
        checkArgument(
                id != null, "unknown job vertex '%s'; known: %s", name, vertexIdByName.keySet());
        return id;
    }

    /** The id of the job vertex called {@code name}, if there is one. O(1). */
    public OptionalInt findVertex(String name) {
        Integer id = vertexIdByName.get(name);
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }

    /** The parallelism (number of tasks) of job vertex {@code v}. */
    public int parallelism(int v) {
        checkElementIndex(v, numJobVertices(), "job vertex");
        return tasksOfVertex.size(v);
    }

    /** The max parallelism of job vertex {@code v}, if one was set. */
    public OptionalInt maxParallelism(int v) {
        checkElementIndex(v, numJobVertices(), "job vertex");
        return maxParallelism[v] == 0 ? OptionalInt.empty() : OptionalInt.of(maxParallelism[v]);
    }

    /** The number of tasks over all job vertices. */
    public int numTasks() {
        return tasksOfVertex.total();
    }

    /** The task id of subtask 0 of job vertex {@code v}. */
    public int firstTask(int v) {
        return tasksOfVertex.start(v);
    }

    /** The task ids of job vertex {@code v} as a {@link PackedRange}. */
    public long taskRange(int v) {
        return tasksOfVertex.range(v);
    }

    /** The task id of subtask {@code subtask} of job vertex {@code v}. O(1). */
    public int task(int v, int subtask) {
        checkElementIndex(subtask, parallelism(v), "subtask");
        return tasksOfVertex.start(v) + subtask;
    }

    /**
     * The job vertex of task {@code task}. O(1) for up to 512 job vertices of comparable
     * parallelism, O(log V) at worst ({@link RangeTable#indexOf(int)}); no allocation.
     */
    public int vertexOfTask(int task) {
        return tasksOfVertex.indexOf(task);
    }

    /**
     * The subtask index of task {@code task} within its job vertex. O(1) for up to 512 job vertices
     * of comparable parallelism, O(log V) at worst; no allocation.
     */
    public int subtaskIndex(int task) {
        return task - tasksOfVertex.start(tasksOfVertex.indexOf(task));
    }

    /** The task as people read it, {@code "name#subtask"} (0-based). Allocates. */
    public String taskName(int task) {
        int v = vertexOfTask(task);
        return vertexNames[v] + "#" + (task - tasksOfVertex.start(v));
    }

    /**
     * The job vertex ids in a topological order: a fresh array holding {@code 0, 1, …, V-1},
     * because vertex ids are assigned in topological order. O(V).
     */
    public int[] topologicalOrder() {
        int[] order = new int[numJobVertices()];
        for (int v = 0; v < order.length; v++) {
            order[v] = v;
        }
        return order;
    }

    /** The number of edges that job vertex {@code v} consumes (its inputs). */
    public int numInputEdges(int v) {
        return inputEdgesOfVertex.size(v);
    }

    /** The edge id of input {@code k} of job vertex {@code v}. O(1). */
    public int inputEdge(int v, int k) {
        checkElementIndex(k, numInputEdges(v), "input");
        return inputEdgesOfVertex.start(v) + k;
    }

    /** The number of datasets that job vertex {@code v} produces. */
    public int numProducedDataSets(int v) {
        return dataSetsOfVertex.size(v);
    }

    /** The dataset id of output {@code k} of job vertex {@code v}. O(1). */
    public int producedDataSet(int v, int k) {
        checkElementIndex(k, numProducedDataSets(v), "output");
        return dataSetsOfVertex.start(v) + k;
    }

    // ---------------------------------------------------------------------------------------
    // Datasets and partitions

    /** The number of datasets. */
    public int numDataSets() {
        return dataSetNames.length;
    }

    /** The name of dataset {@code d}. */
    public String dataSetName(int d) {
        checkElementIndex(d, numDataSets(), "dataset");
        return dataSetNames[d];
    }

    /**
     * The id of the dataset called {@code name}. O(1).
     *
     * @throws IllegalArgumentException if there is no such dataset
     */
    public int dataSetId(String name) {
        Integer id = dataSetIdByName.get(name);
        checkArgument(
                id != null, "unknown dataset '%s'; known: %s", name, dataSetIdByName.keySet());
        return id;
    }

    /** The job vertex that produces dataset {@code d}. */
    public int producer(int d) {
        checkElementIndex(d, numDataSets(), "dataset");
        return dataSetProducer[d];
    }

    /** The result-partition type of every partition of dataset {@code d}. */
    public ResultPartitionType resultType(int d) {
        checkElementIndex(d, numDataSets(), "dataset");
        return dataSetType[d];
    }

    /** The number of partitions over all datasets. */
    public int numPartitions() {
        return partitionsOfDataSet.total();
    }

    /** The number of partitions of dataset {@code d} (the parallelism of its producer). */
    public int numPartitions(int d) {
        return partitionsOfDataSet.size(d);
    }

    /** The partition id of the partition that subtask 0 of the producer writes to dataset d. */
    public int firstPartition(int d) {
        return partitionsOfDataSet.start(d);
    }

    /** The partition ids of dataset {@code d} as a {@link PackedRange}. */
    public long partitionRange(int d) {
        return partitionsOfDataSet.range(d);
    }

    /**
     * The dataset of partition {@code p}. O(1) for up to 512 datasets whose producers have
     * comparable parallelism, O(log D) at worst ({@link RangeTable#indexOf(int)}); no allocation.
     */
    public int dataSetOfPartition(int p) {
        return partitionsOfDataSet.indexOf(p);
    }

    /**
     * The index of partition {@code p} within its dataset (its producer's subtask). O(1) for up to
     * 512 datasets whose producers have comparable parallelism, O(log D) at worst; no allocation.
     */
    public int partitionIndex(int p) {
        return p - partitionsOfDataSet.start(partitionsOfDataSet.indexOf(p));
    }

    /**
     * The task that produces partition {@code p}. O(1) for up to 512 datasets whose producers have
     * comparable parallelism, O(log D) at worst; no allocation.
     */
    public int producerTask(int p) {
        int d = partitionsOfDataSet.indexOf(p);
        return tasksOfVertex.start(dataSetProducer[d]) + (p - partitionsOfDataSet.start(d));
    }

    /** The number of edges that consume dataset {@code d}. */
    public int numConsumerEdges(int d) {
        return consumerEdgeSlotsOfDataSet.size(d);
    }

    /** The {@code k}-th edge (ascending ids) that consumes dataset {@code d}. O(1). */
    public int consumerEdge(int d, int k) {
        checkElementIndex(k, numConsumerEdges(d), "consumer edge");
        return consumerEdgeSlots[consumerEdgeSlotsOfDataSet.start(d) + k];
    }

    // ---------------------------------------------------------------------------------------
    // Edges

    /** The number of edges. */
    public int numEdges() {
        return edgeDataSet.length;
    }

    /** The dataset that edge {@code e} reads. */
    public int edgeDataSet(int e) {
        checkElementIndex(e, numEdges(), "edge");
        return edgeDataSet[e];
    }

    /** The job vertex that consumes through edge {@code e}. */
    public int edgeConsumer(int e) {
        checkElementIndex(e, numEdges(), "edge");
        return edgeConsumer[e];
    }

    /** The job vertex that produces the dataset of edge {@code e}. */
    public int edgeProducer(int e) {
        return dataSetProducer[edgeDataSet(e)];
    }

    /** The distribution pattern of edge {@code e}. */
    public DistributionPattern edgePattern(int e) {
        checkElementIndex(e, numEdges(), "edge");
        return edgePattern[e];
    }

    /** The result-partition type of the dataset of edge {@code e}. */
    public ResultPartitionType edgeResultType(int e) {
        return dataSetType[edgeDataSet(e)];
    }

    /** Edge {@code e} as people read it, e.g. {@code "a -> b (ALL_TO_ALL, BLOCKING)"}. */
    public String describeEdge(int e) {
        return vertexNames[edgeProducer(e)]
                + " -> "
                + vertexNames[edgeConsumer[e]]
                + " ("
                + edgePattern[e]
                + ", "
                + edgeResultType(e)
                + ", dataset '"
                + dataSetNames[edgeDataSet[e]]
                + "')";
    }

    /**
     * Checks the internal invariants (id order, CSR consistency) and throws {@link
     * IllegalStateException} on a violation; returns {@code true} so that it can be asserted. O(V +
     * D + E). For tests.
     */
    public boolean checkInvariants() {
        for (int e = 0; e < numEdges(); e++) {
            checkState(edgeProducer(e) < edgeConsumer[e], "edge %s is not in topological order", e);
            checkState(
                    e == 0 || edgeConsumer[e - 1] <= edgeConsumer[e],
                    "edges not sorted by consumer");
            checkState(
                    PackedRange.contains(inputEdgesOfVertex.range(edgeConsumer[e]), e),
                    "edge %s not among the inputs of its consumer",
                    e);
        }
        for (int d = 0; d < numDataSets(); d++) {
            checkState(
                    d == 0 || dataSetProducer[d - 1] <= dataSetProducer[d], "datasets not sorted");
            for (int k = 0; k < numConsumerEdges(d); k++) {
                checkState(
                        edgeDataSet[consumerEdge(d, k)] == d, "consumer edge %s of %s wrong", k, d);
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "JobGraph{vertices="
                + numJobVertices()
                + ", datasets="
                + numDataSets()
                + ", edges="
                + numEdges()
                + ", tasks="
                + numTasks()
                + ", partitions="
                + numPartitions()
                + "}";
    }
}
