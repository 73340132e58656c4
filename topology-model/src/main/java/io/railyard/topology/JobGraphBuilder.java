package io.railyard.topology;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.IntUnaryOperator;

/**
 * The only mutable form of a {@link JobGraph}: add job vertices, datasets and edges by name, then
 * {@link #build()}.
 *
 * <pre>{@code
 * JobGraph graph = JobGraph.builder()
 *         .addVertex("source", 10_000)
 *         .addVertex("sink", 10_000)
 *         .connect("source", "sink", DistributionPattern.ALL_TO_ALL, ResultPartitionType.BLOCKING)
 *         .build();
 * }</pre>
 *
 * <p>Every method validates its arguments completely before it changes anything, so a rejected call
 * leaves the builder as it was ("nothing is half-built"). Bad input gets an {@link
 * IllegalArgumentException} that names the item, the value and what is allowed; cycles are detected
 * by {@link #build()} and reported with their path. A builder builds once: after a successful
 * {@code build()} every method throws {@link IllegalStateException}.
 *
 * <p>Not thread-safe. Each call is O(1) amortised except {@code build()}, which is O((V + E) log V)
 * for V job vertices and E edges.
 */
public final class JobGraphBuilder {
    private record VertexSpec(String name, int parallelism, int maxParallelism) {}

    private record DataSetSpec(String name, int producer, ResultPartitionType type) {}

    private record EdgeSpec(int dataSet, int consumer, DistributionPattern pattern) {}

    private final List<VertexSpec> vertices = new ArrayList<>();
    private final List<DataSetSpec> dataSets = new ArrayList<>();
    private final List<EdgeSpec> edges = new ArrayList<>();
    private final Map<String, Integer> vertexByName = new HashMap<>();
    private final Map<String, Integer> dataSetByName = new HashMap<>();
    private long totalTasks;
    private long totalPartitions;
    private boolean built;

    JobGraphBuilder() {}

    /** Adds a job vertex with {@code parallelism} tasks and no max parallelism. */
    public JobGraphBuilder addVertex(String name, int parallelism) {
        return addVertex(name, parallelism, 0);
    }

    /**
     * Adds a job vertex with {@code parallelism} tasks and a max parallelism (the upper bound for
     * rescaling), or {@code 0} for none.
     *
     * @throws IllegalArgumentException if the name is empty, contains {@code '#'} or is taken; if
     *     {@code parallelism} is outside {@code [1, 2^24]}; if {@code maxParallelism} is neither 0
     *     nor in {@code [parallelism, 2^24]}; or if the total number of tasks would exceed {@link
     *     Integer#MAX_VALUE}
     */
    public JobGraphBuilder addVertex(String name, int parallelism, int maxParallelism) {
        checkNotBuilt();
        checkVertexName(name);
        checkArgument(!vertexByName.containsKey(name), "duplicate job vertex name '%s'", name);
        checkArgument(
                parallelism >= 1 && parallelism <= JobGraph.MAX_PARALLELISM,
                "parallelism of job vertex '%s' must be in [1, %s], was %s",
                name,
                JobGraph.MAX_PARALLELISM,
                parallelism);
        checkArgument(
                maxParallelism == 0
                        || (maxParallelism >= parallelism
                                && maxParallelism <= JobGraph.MAX_PARALLELISM),
                "max parallelism of job vertex '%s' must be 0 (unset) or in [%s, %s] (at least"
                        + " its parallelism), was %s",
                name,
                parallelism,
                JobGraph.MAX_PARALLELISM,
                maxParallelism);
        long newTotal = totalTasks + parallelism;
        checkArgument(
                newTotal <= Integer.MAX_VALUE,
                "adding job vertex '%s' with parallelism %s makes %s tasks in total, above the"
                        + " int task-id space (max %s)",
                name,
                parallelism,
                newTotal,
                Integer.MAX_VALUE);
        vertexByName.put(name, vertices.size());
        vertices.add(new VertexSpec(name, parallelism, maxParallelism));
        totalTasks = newTotal;
        return this;
    }

    /**
     * Adds a dataset called {@code name} that job vertex {@code producer} produces, one partition
     * per producer task, each of type {@code type}. Connect consumers with {@link #addEdge(String,
     * String, DistributionPattern)}.
     *
     * @throws IllegalArgumentException if the name is empty, contains {@code '#'} or is taken, if
     *     the producer is unknown, or if the total number of partitions would exceed {@link
     *     Integer#MAX_VALUE}
     */
    public JobGraphBuilder addDataSet(String name, String producer, ResultPartitionType type) {
        checkNotBuilt();
        checkName("dataset", name);
        checkNotNull(type, "result-partition type of dataset '%s' must not be null", name);
        checkArgument(!dataSetByName.containsKey(name), "duplicate dataset name '%s'", name);
        int producerId = knownVertex(producer, "producer of dataset '" + name + "'");
        long newTotal = totalPartitions + vertices.get(producerId).parallelism();
        checkArgument(
                newTotal <= Integer.MAX_VALUE,
                "adding dataset '%s' of '%s' makes %s partitions in total, above the int"
                        + " partition-id space (max %s)",
                name,
                producer,
                newTotal,
                Integer.MAX_VALUE);
        dataSetByName.put(name, dataSets.size());
        dataSets.add(new DataSetSpec(name, producerId, type));
        totalPartitions = newTotal;
        return this;
    }

    /**
     * Adds an edge through which job vertex {@code consumer} reads dataset {@code dataSet}. A
     * dataset may have several consumer vertices, each with its own pattern.
     *
     * @throws IllegalArgumentException if the dataset or consumer is unknown, if the consumer is
     *     the dataset's producer (a self-loop), or if the consumer already reads the dataset
     */
    public JobGraphBuilder addEdge(String dataSet, String consumer, DistributionPattern pattern) {
        checkNotBuilt();
        Integer dataSetId = dataSetByName.get(checkNotNull(dataSet, "dataset name is null"));
        checkArgument(
                dataSetId != null,
                "edge to '%s' reads unknown dataset '%s'; known datasets: %s",
                consumer,
                dataSet,
                dataSetByName.keySet());
        String producer = vertices.get(dataSets.get(dataSetId).producer()).name();
        checkEdge(producer, consumer, dataSet, pattern);
        int consumerId = knownVertex(consumer, "consumer of dataset '" + dataSet + "'");
        for (EdgeSpec edge : edges) {
            checkArgument(
                    edge.dataSet() != dataSetId || edge.consumer() != consumerId,
                    "job vertex '%s' already consumes dataset '%s'",
                    consumer,
                    dataSet);
        }
        edges.add(new EdgeSpec(dataSetId, consumerId, pattern));
        return this;
    }

    /**
     * Adds a new dataset of {@code producer} with partitions of type {@code type} and an edge
     * through which {@code consumer} reads it. The dataset is called {@code "producer->consumer"},
     * or {@code "producer->consumer#k"} with the smallest {@code k >= 2} that is free.
     *
     * @throws IllegalArgumentException as {@link #addDataSet} and {@link #addEdge} do; nothing is
     *     added then
     */
    public JobGraphBuilder connect(
            String producer,
            String consumer,
            DistributionPattern pattern,
            ResultPartitionType type) {
        checkNotBuilt();
        checkNotNull(
                type,
                "result-partition type of edge %s -> %s must not be null",
                producer,
                consumer);
        checkEdge(producer, consumer, producer + "->" + consumer, pattern);
        String name = producer + "->" + consumer;
        for (int k = 2; dataSetByName.containsKey(name); k++) {
            name = producer + "->" + consumer + "#" + k;
        }
        addDataSet(name, producer, type);
        return addEdge(name, consumer, pattern);
    }

    /**
     * Builds the immutable graph and closes this builder.
     *
     * @throws IllegalArgumentException if the graph has a cycle; the message lists the vertices on
     *     one cycle. The builder stays open then.
     */
    public JobGraph build() {
        checkNotBuilt();
        int[] order = topologicalOrder();
        int[] rankOf = new int[order.length];
        for (int rank = 0; rank < order.length; rank++) {
            rankOf[order[rank]] = rank;
        }
        String[] names = new String[order.length];
        int[] parallelism = new int[order.length];
        int[] maxParallelism = new int[order.length];
        for (int rank = 0; rank < order.length; rank++) {
            VertexSpec vertex = vertices.get(order[rank]);
            names[rank] = vertex.name();
            parallelism[rank] = vertex.parallelism();
            maxParallelism[rank] = vertex.maxParallelism();
        }
        Integer[] dataSetOrder =
                sortedIndexes(dataSets.size(), i -> rankOf[dataSets.get(i).producer()]);
        int[] dataSetIdOf = new int[dataSets.size()];
        String[] dataSetNames = new String[dataSets.size()];
        int[] producers = new int[dataSets.size()];
        ResultPartitionType[] types = new ResultPartitionType[dataSets.size()];
        for (int id = 0; id < dataSetOrder.length; id++) {
            DataSetSpec dataSet = dataSets.get(dataSetOrder[id]);
            dataSetIdOf[dataSetOrder[id]] = id;
            dataSetNames[id] = dataSet.name();
            producers[id] = rankOf[dataSet.producer()];
            types[id] = dataSet.type();
        }
        Integer[] edgeOrder = sortedIndexes(edges.size(), i -> rankOf[edges.get(i).consumer()]);
        int[] edgeDataSets = new int[edges.size()];
        int[] consumers = new int[edges.size()];
        DistributionPattern[] patterns = new DistributionPattern[edges.size()];
        for (int id = 0; id < edgeOrder.length; id++) {
            EdgeSpec edge = edges.get(edgeOrder[id]);
            edgeDataSets[id] = dataSetIdOf[edge.dataSet()];
            consumers[id] = rankOf[edge.consumer()];
            patterns[id] = edge.pattern();
        }
        JobGraph graph =
                new JobGraph(
                        names,
                        parallelism,
                        maxParallelism,
                        dataSetNames,
                        producers,
                        types,
                        edgeDataSets,
                        consumers,
                        patterns);
        built = true;
        return graph;
    }

    /** Insertion indexes sorted by key, ties by insertion (stable). */
    private static Integer[] sortedIndexes(int n, IntUnaryOperator key) {
        Integer[] indexes = new Integer[n];
        for (int i = 0; i < n; i++) {
            indexes[i] = i;
        }
        Arrays.sort(indexes, Comparator.comparingInt(key::applyAsInt));
        return indexes;
    }

    /** Kahn's algorithm; among ready vertices the earliest added goes first. */
    private int[] topologicalOrder() {
        int n = vertices.size();
        List<List<Integer>> successors = new ArrayList<>(n);
        for (int v = 0; v < n; v++) {
            successors.add(new ArrayList<>());
        }
        int[] inDegree = new int[n];
        for (EdgeSpec edge : edges) {
            successors.get(dataSets.get(edge.dataSet()).producer()).add(edge.consumer());
            inDegree[edge.consumer()]++;
        }
        PriorityQueue<Integer> ready = new PriorityQueue<>();
        for (int v = 0; v < n; v++) {
            if (inDegree[v] == 0) {
                ready.add(v);
            }
        }
        int[] order = new int[n];
        int placed = 0;
        while (!ready.isEmpty()) {
            int v = ready.poll();
            order[placed++] = v;
            for (int w : successors.get(v)) {
                if (--inDegree[w] == 0) {
                    ready.add(w);
                }
            }
        }
        if (placed < n) {
            throw new IllegalArgumentException(
                    "the job graph has a cycle, which a dataflow job cannot have: "
                            + String.join(" -> ", cycleAmong(inDegree)));
        }
        return order;
    }

    /**
     * The names along one cycle, first name repeated at the end. Every vertex left with a positive
     * in-degree by Kahn's algorithm has a predecessor that is left too, so walking predecessors
     * from any of them must revisit a vertex.
     */
    private List<String> cycleAmong(int[] remainingInDegree) {
        int n = vertices.size();
        int[] predecessor = new int[n];
        Arrays.fill(predecessor, -1);
        for (EdgeSpec edge : edges) {
            int producer = dataSets.get(edge.dataSet()).producer();
            if (remainingInDegree[edge.consumer()] > 0 && remainingInDegree[producer] > 0) {
                predecessor[edge.consumer()] = producer;
            }
        }
        int start = 0;
        while (remainingInDegree[start] == 0) {
            start++;
        }
        int[] seenAt = new int[n];
        Arrays.fill(seenAt, -1);
        List<Integer> walked = new ArrayList<>();
        int v = start;
        while (seenAt[v] < 0) {
            seenAt[v] = walked.size();
            walked.add(v);
            v = predecessor[v];
        }
        // The walk went against the edges: read its closed part backwards for edge direction.
        List<String> cycle = new ArrayList<>();
        for (int i = walked.size() - 1; i >= seenAt[v]; i--) {
            cycle.add(vertices.get(walked.get(i)).name());
        }
        cycle.add(cycle.get(0));
        return cycle;
    }

    private void checkEdge(
            String producer, String consumer, String what, DistributionPattern pattern) {
        checkNotNull(pattern, "distribution pattern of '%s' must not be null", what);
        knownVertex(producer, "producer of '" + what + "'");
        knownVertex(consumer, "consumer of '" + what + "'");
        checkArgument(
                !producer.equals(consumer),
                "self-loop: job vertex '%s' cannot consume its own dataset '%s'",
                consumer,
                what);
    }

    private int knownVertex(String name, String role) {
        checkNotNull(name, "%s is null", role);
        Integer id = vertexByName.get(name);
        checkArgument(
                id != null,
                "%s is unknown job vertex '%s'; known vertices: %s",
                role,
                name,
                vertexByName.keySet());
        return id;
    }

    private static void checkName(String kind, String name) {
        checkNotNull(name, "%s name is null", kind);
        checkArgument(!name.isBlank(), "%s name must be non-blank, was '%s'", kind, name);
    }

    private static void checkVertexName(String name) {
        checkName("job vertex", name);
        checkArgument(
                name.indexOf('#') < 0,
                "job vertex name '%s' is invalid: it must not contain '#' (reserved for task names"
                        + " 'vertex#subtask')",
                name);
    }

    private void checkNotBuilt() {
        checkState(
                !built,
                "this builder already built its job graph and is closed; start a new"
                        + " JobGraph.builder() to build another");
    }
}
