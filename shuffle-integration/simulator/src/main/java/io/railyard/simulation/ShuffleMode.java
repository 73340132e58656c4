package io.railyard.simulation;

import io.railyard.topology.JobGraph;
import io.railyard.topology.JobGraphBuilder;
import io.railyard.topology.ResultPartitionType;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.function.IntUnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The result-partition type given to every edge that need not be consumed while it is produced, as
 * Flink's {@code execution.batch-shuffle-mode} does: PIPELINED and PIPELINED_BOUNDED edges keep
 * their type, every other edge gets the mode's; {@link #AS_DECLARED} changes nothing.
 */
public enum ShuffleMode {
    /** Every such edge BLOCKING: consumers start once all their producers finished. */
    BLOCKING(ResultPartitionType.BLOCKING),
    /** Every such edge HYBRID_FULL: consumers may start early; all data is spilled. */
    HYBRID_FULL(ResultPartitionType.HYBRID_FULL),
    /** Every such edge HYBRID_SELECTIVE: consumers may start early; only unread data spills. */
    HYBRID_SELECTIVE(ResultPartitionType.HYBRID_SELECTIVE),
    /** The types the job declares. */
    AS_DECLARED(null);

    private final @Nullable ResultPartitionType type;

    ShuffleMode(@Nullable ResultPartitionType type) {
        this.type = type;
    }

    /** The command-line name: {@code blocking}, {@code hybrid-full} and so on. */
    public String key() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * The mode named {@code key} (as {@link #key()}, case-insensitive).
     *
     * @throws IllegalArgumentException naming the key and the modes
     */
    public static ShuffleMode ofKey(String key) {
        for (ShuffleMode mode : values()) {
            if (mode.key().equalsIgnoreCase(key.trim())) {
                return mode;
            }
        }
        throw new IllegalArgumentException(
                "unknown mode '"
                        + key
                        + "'; allowed: blocking, hybrid-full, hybrid-selective, as-declared");
    }

    /**
     * {@code graph} with this mode's edge types ({@code graph} itself for AS_DECLARED). O(V + E).
     */
    public JobGraph apply(JobGraph graph) {
        return type == null ? graph : rewrite(graph, graph::parallelism);
    }

    /**
     * {@code graph} with this mode's edge types and job vertex {@code v} at parallelism {@code
     * parallelism.applyAsInt(v)} (a maximum parallelism below it is dropped). O(V + E).
     *
     * @throws IllegalArgumentException if a parallelism is out of range
     */
    public JobGraph rewrite(JobGraph graph, IntUnaryOperator parallelism) {
        JobGraphBuilder builder = JobGraph.builder();
        for (int v = 0; v < graph.numJobVertices(); v++) {
            int p = parallelism.applyAsInt(v);
            OptionalInt max = graph.maxParallelism(v);
            if (max.isPresent() && max.getAsInt() >= p) {
                builder.addVertex(graph.vertexName(v), p, max.getAsInt());
            } else {
                builder.addVertex(graph.vertexName(v), p);
            }
        }
        for (int d = 0; d < graph.numDataSets(); d++) {
            builder.addDataSet(
                    graph.dataSetName(d),
                    graph.vertexName(graph.producer(d)),
                    typeFor(graph.resultType(d)));
        }
        for (int e = 0; e < graph.numEdges(); e++) {
            builder.addEdge(
                    graph.dataSetName(graph.edgeDataSet(e)),
                    graph.vertexName(graph.edgeConsumer(e)),
                    graph.edgePattern(e));
        }
        return builder.build();
    }

    private ResultPartitionType typeFor(ResultPartitionType declared) {
        return type == null || declared.mustBePipelinedConsumed() ? declared : type;
    }
}
