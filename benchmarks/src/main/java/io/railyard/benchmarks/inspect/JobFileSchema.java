package io.railyard.benchmarks.inspect;

import io.railyard.topology.DistributionPattern;
import io.railyard.topology.ResultPartitionType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import org.jspecify.annotations.Nullable;

/**
 * The JSON schema of an {@code inspect} job file, as the classes Jackson binds it to.
 *
 * <pre>{@code
 * {"vertices": [{"name": "a", "parallelism": 2}, ...],
 *  "edges": [{"source": "a", "target": "b", "pattern": "POINTWISE", "type": "PIPELINED"}, ...]}
 * }</pre>
 *
 * <p>A source vertex (one without input edges) may also say how many records its subtasks generate
 * when the job runs: {@code "records_per_subtask": 1000} and {@code "skew": {"hot_subtasks": 1,
 * "factor": 10}} (subtasks 0 .. hot_subtasks - 1 generate factor times as many). Both are optional;
 * {@code inspect} validates them like every field and does not use them. JSON names are the Java
 * names in snake case.
 *
 * <p>Every field is nullable here because a file may omit it or write {@code null}; {@link JobFile}
 * checks presence and ranges and names the JSON path. Setters are found by Jackson (any visibility)
 * and reject a key that appears twice in one object, which Jackson would otherwise resolve silently
 * as "last wins". There is no free-form value anywhere, so the parser never goes deeper than four
 * levels: anything nested further is a type error at its first token. The two arrays are {@link
 * BoundedList}s, so a count limit stops the parse at the first element too many, before a huge list
 * exists.
 */
final class JobFileSchema {
    private JobFileSchema() {}

    /** Marks {@code bit} seen; throws if it was, so that Jackson reports the key with its path. */
    static int once(int seen, int bit, String field) {
        if ((seen & bit) != 0) {
            throw new IllegalArgumentException(
                    "duplicate field '" + field + "': each field may appear once per object");
        }
        return seen | bit;
    }

    /**
     * A JSON array with at most {@code max} elements. Jackson fills a collection with {@link #add},
     * so the limit throws while parsing, at the first element too many, and Jackson reports it with
     * that element's path.
     */
    abstract static class BoundedList<T> extends ArrayList<@Nullable T> {
        private static final long serialVersionUID = 1L;

        private final int max;
        private final String what;

        BoundedList(int max, String what) {
            this.max = max;
            this.what = what;
        }

        @Override
        public boolean add(@Nullable T element) {
            if (size() == max) {
                throw new IllegalArgumentException(
                        String.format(
                                "more than %d %s, above inspect's limit of %d %s",
                                max, what, max, what));
            }
            return super.add(element);
        }
    }

    /** The {@code vertices} array, at most {@link JobFile#MAX_VERTICES} long. */
    static final class VertexList extends BoundedList<Vertex> {
        private static final long serialVersionUID = 1L;

        VertexList() {
            super(JobFile.MAX_VERTICES, "job vertices");
        }
    }

    /** The {@code edges} array, at most {@link JobFile#MAX_EDGES} long. */
    static final class EdgeList extends BoundedList<Edge> {
        private static final long serialVersionUID = 1L;

        EdgeList() {
            super(JobFile.MAX_EDGES, "edges");
        }
    }

    /** The document root. */
    static final class Job {
        private @Nullable VertexList vertices;
        private @Nullable EdgeList edges;
        private int seen;

        void setVertices(@Nullable VertexList vertices) {
            seen = once(seen, 1, "vertices");
            this.vertices = vertices;
        }

        void setEdges(@Nullable EdgeList edges) {
            seen = once(seen, 2, "edges");
            this.edges = edges;
        }

        @Nullable VertexList vertices() {
            return vertices;
        }

        @Nullable EdgeList edges() {
            return edges;
        }
    }

    /**
     * One job vertex; the numbers are unbounded here so that their range checks name them. The
     * optional fields remember whether they were present, so that an explicit null is an error.
     */
    static final class Vertex {
        private @Nullable String name;
        private @Nullable BigInteger parallelism;
        private @Nullable BigInteger recordsPerSubtask;
        private @Nullable Skew skew;
        private int seen;

        void setName(@Nullable String name) {
            seen = once(seen, 1, "name");
            this.name = name;
        }

        void setParallelism(@Nullable BigInteger parallelism) {
            seen = once(seen, 2, "parallelism");
            this.parallelism = parallelism;
        }

        void setRecordsPerSubtask(@Nullable BigInteger records) {
            seen = once(seen, 4, "records_per_subtask");
            this.recordsPerSubtask = records;
        }

        void setSkew(@Nullable Skew skew) {
            seen = once(seen, 8, "skew");
            this.skew = skew;
        }

        @Nullable String name() {
            return name;
        }

        @Nullable BigInteger parallelism() {
            return parallelism;
        }

        @Nullable BigInteger recordsPerSubtask() {
            return recordsPerSubtask;
        }

        /** Whether {@code records_per_subtask} appeared (perhaps as null). */
        boolean hasRecordsPerSubtask() {
            return (seen & 4) != 0;
        }

        @Nullable Skew skew() {
            return skew;
        }

        /** Whether {@code skew} appeared (perhaps as null). */
        boolean hasSkew() {
            return (seen & 8) != 0;
        }
    }

    /** A source vertex's skew: its first {@code hot_subtasks} generate {@code factor} × records. */
    static final class Skew {
        private @Nullable BigInteger hotSubtasks;
        private @Nullable BigDecimal factor;
        private int seen;

        void setHotSubtasks(@Nullable BigInteger hotSubtasks) {
            seen = once(seen, 1, "hot_subtasks");
            this.hotSubtasks = hotSubtasks;
        }

        void setFactor(@Nullable BigDecimal factor) {
            seen = once(seen, 2, "factor");
            this.factor = factor;
        }

        @Nullable BigInteger hotSubtasks() {
            return hotSubtasks;
        }

        @Nullable BigDecimal factor() {
            return factor;
        }
    }

    /** One edge, with a dataset of its own. */
    static final class Edge {
        private @Nullable String source;
        private @Nullable String target;
        private @Nullable DistributionPattern pattern;
        private @Nullable ResultPartitionType type;
        private int seen;

        void setSource(@Nullable String source) {
            seen = once(seen, 1, "source");
            this.source = source;
        }

        void setTarget(@Nullable String target) {
            seen = once(seen, 2, "target");
            this.target = target;
        }

        void setPattern(@Nullable DistributionPattern pattern) {
            seen = once(seen, 4, "pattern");
            this.pattern = pattern;
        }

        void setType(@Nullable ResultPartitionType type) {
            seen = once(seen, 8, "type");
            this.type = type;
        }

        @Nullable String source() {
            return source;
        }

        @Nullable String target() {
            return target;
        }

        @Nullable DistributionPattern pattern() {
            return pattern;
        }

        @Nullable ResultPartitionType type() {
            return type;
        }
    }
}
