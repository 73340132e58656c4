package io.railyard.benchmarks.inspect;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.math.BigInteger;
import org.jspecify.annotations.Nullable;

/**
 * The parts of Flink's plan documents that {@link FlinkPlan} reads, as the classes Jackson binds
 * them to. Three documents share them:
 *
 * <pre>{@code
 * {"plan": {"jid": …, "name": …, "type": "BATCH", "nodes": [NODE, …]}}      REST /jobs/:id/plan
 * {"jid": …, "name": …, "type": "BATCH", "nodes": [NODE, …]}                  a bare plan
 * {"jid": …, "vertices": [{"id": …, "maxParallelism": 128, …}], "plan": {…}} REST /jobs/:id
 *
 * NODE = {"id": "cbc357cc…", "parallelism": 4, "description": "Source: words",
 *         "inputs": [{"num": 0, "id": "…", "ship_strategy": "HASH", "exchange": "blocking"}]}
 * }</pre>
 *
 * <p>Unlike a Railyard job file, a Flink document carries many fields Railyard has no use for
 * (operator strategies, optimizer properties, metrics, timestamps, and whatever a later Flink
 * adds): the reader skips unknown fields unread, at any depth, without binding them. The fields
 * that are read are as strict as a job file's: their JSON type, no coercion, once per object. The
 * arrays are {@link JobFileSchema.BoundedList}s, so a count limit stops the parse at the first
 * element too many.
 */
final class FlinkPlanSchema {
    private FlinkPlanSchema() {}

    /** The {@code nodes} array, at most {@link JobFile#MAX_VERTICES} long. */
    static final class NodeList extends JobFileSchema.BoundedList<Node> {
        private static final long serialVersionUID = 1L;

        NodeList() {
            super(JobFile.MAX_VERTICES, "plan nodes");
        }
    }

    /** A node's {@code inputs} array, at most {@link JobFile#MAX_EDGES} long. */
    static final class InputList extends JobFileSchema.BoundedList<Input> {
        private static final long serialVersionUID = 1L;

        InputList() {
            super(JobFile.MAX_EDGES, "inputs");
        }
    }

    /** The {@code vertices} array of a {@code /jobs/:jobid} document. */
    static final class VertexList extends JobFileSchema.BoundedList<JobVertex> {
        private static final long serialVersionUID = 1L;

        VertexList() {
            super(JobFile.MAX_VERTICES, "job vertices");
        }
    }

    /** The document root: a plan, or a document holding one in {@code plan}. */
    static final class Root {
        private @Nullable Plan plan;
        private @Nullable NodeList nodes;
        private @Nullable VertexList vertices;
        private int seen;

        void setPlan(@Nullable Plan plan) {
            seen = JobFileSchema.once(seen, 1, "plan");
            this.plan = plan;
        }

        void setNodes(@Nullable NodeList nodes) {
            seen = JobFileSchema.once(seen, 2, "nodes");
            this.nodes = nodes;
        }

        void setVertices(@Nullable VertexList vertices) {
            seen = JobFileSchema.once(seen, 4, "vertices");
            this.vertices = vertices;
        }

        @Nullable Plan plan() {
            return plan;
        }

        boolean hasPlan() {
            return (seen & 1) != 0;
        }

        @Nullable NodeList nodes() {
            return nodes;
        }

        boolean hasNodes() {
            return (seen & 2) != 0;
        }

        @Nullable VertexList vertices() {
            return vertices;
        }
    }

    /** A plan: {@code JobPlanInfo.Plan}. */
    static final class Plan {
        private @Nullable NodeList nodes;
        private int seen;

        void setNodes(@Nullable NodeList nodes) {
            seen = JobFileSchema.once(seen, 1, "nodes");
            this.nodes = nodes;
        }

        @Nullable NodeList nodes() {
            return nodes;
        }
    }

    /** One job vertex of a plan. */
    static final class Node {
        private @Nullable String id;
        private @Nullable BigInteger parallelism;
        private @Nullable String description;
        private @Nullable InputList inputs;
        private int seen;

        void setId(@Nullable String id) {
            seen = JobFileSchema.once(seen, 1, "id");
            this.id = id;
        }

        void setParallelism(@Nullable BigInteger parallelism) {
            seen = JobFileSchema.once(seen, 2, "parallelism");
            this.parallelism = parallelism;
        }

        void setDescription(@Nullable String description) {
            seen = JobFileSchema.once(seen, 4, "description");
            this.description = description;
        }

        void setInputs(@Nullable InputList inputs) {
            seen = JobFileSchema.once(seen, 8, "inputs");
            this.inputs = inputs;
        }

        @Nullable String id() {
            return id;
        }

        @Nullable BigInteger parallelism() {
            return parallelism;
        }

        @Nullable String description() {
            return description;
        }

        @Nullable InputList inputs() {
            return inputs;
        }

        /** Whether {@code inputs} appeared (perhaps as null): a source has none. */
        boolean hasInputs() {
            return (seen & 8) != 0;
        }
    }

    /** One input of a node: the producer's id, how records are shipped, the partition type. */
    static final class Input {
        private @Nullable String id;
        private @Nullable String shipStrategy;
        private @Nullable String exchange;
        private int seen;

        void setId(@Nullable String id) {
            seen = JobFileSchema.once(seen, 1, "id");
            this.id = id;
        }

        void setShipStrategy(@Nullable String shipStrategy) {
            seen = JobFileSchema.once(seen, 2, "ship_strategy");
            this.shipStrategy = shipStrategy;
        }

        void setExchange(@Nullable String exchange) {
            seen = JobFileSchema.once(seen, 4, "exchange");
            this.exchange = exchange;
        }

        @Nullable String id() {
            return id;
        }

        @Nullable String shipStrategy() {
            return shipStrategy;
        }

        @Nullable String exchange() {
            return exchange;
        }
    }

    /** One entry of a {@code /jobs/:jobid} document's {@code vertices} (camel-case names). */
    @JsonNaming(PropertyNamingStrategies.LowerCamelCaseStrategy.class)
    static final class JobVertex {
        private @Nullable String id;
        private @Nullable BigInteger maxParallelism;
        private int seen;

        void setId(@Nullable String id) {
            seen = JobFileSchema.once(seen, 1, "id");
            this.id = id;
        }

        void setMaxParallelism(@Nullable BigInteger maxParallelism) {
            seen = JobFileSchema.once(seen, 2, "maxParallelism");
            this.maxParallelism = maxParallelism;
        }

        @Nullable String id() {
            return id;
        }

        @Nullable BigInteger maxParallelism() {
            return maxParallelism;
        }
    }
}
