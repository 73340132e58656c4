package io.railyard.benchmarks.flink;

import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.blob.BlobWriter;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
import org.apache.flink.runtime.executiongraph.ExecutionGraph;
import org.apache.flink.runtime.executiongraph.ExecutionVertex;
import org.apache.flink.runtime.executiongraph.TestingDefaultExecutionGraphBuilder;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.jobgraph.JobGraphTestUtils;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.scheduler.strategy.ExecutionVertexID;
import org.apache.flink.runtime.scheduler.strategy.SchedulingExecutionVertex;
import org.apache.flink.runtime.scheduler.strategy.SchedulingPipelinedRegion;
import org.apache.flink.runtime.scheduler.strategy.SchedulingTopology;
import org.apache.flink.runtime.testtasks.NoOpInvokable;

/**
 * Translates a Railyard {@link JobGraph} into flink-runtime's job graph and execution graph, for
 * the Flink side of the side-by-side benchmarks ({@link FlinkProcedures}) and the Flink parity
 * tests.
 *
 * <p>Flink job vertex {@code v} is Railyard job vertex {@code v}, with the same name and
 * parallelism. Each Railyard <em>edge</em> becomes its own Flink dataset, with the edge's
 * distribution pattern and its dataset's result type: Flink requires all consumers of one dataset
 * to share a distribution pattern and a parallelism, Railyard does not, and the task-level
 * connections and consumer groups of an edge are the same either way. Datasets without consumers
 * connect no tasks and are left out. The job is a batch job.
 */
public final class FlinkJobs {
    private FlinkJobs() {}

    /**
     * A translated job: the Railyard graph, the Flink graph and the map between their ids.
     *
     * @param railyard the Railyard job graph
     * @param flink its Flink job graph
     * @param vertices Flink job vertex {@code v} at index {@code v}
     * @param vertexIds the Railyard job vertex of each Flink job vertex
     */
    public record Translation(
            JobGraph railyard,
            org.apache.flink.runtime.jobgraph.JobGraph flink,
            List<JobVertex> vertices,
            Map<JobVertexID, Integer> vertexIds) {

        /** The Flink job vertex of Railyard job vertex {@code v}. O(1). */
        public JobVertex vertex(int v) {
            return vertices.get(v);
        }

        /** The Railyard task id of a Flink execution vertex. O(1). */
        public int task(ExecutionVertexID id) {
            Integer v = vertexIds.get(id.getJobVertexId());
            if (v == null) {
                throw new IllegalArgumentException("unknown Flink job vertex of " + id);
            }
            return railyard.task(v, id.getSubtaskIndex());
        }

        /**
         * The Flink execution vertex id of Railyard task {@code task}. O(log job vertices) at
         * worst.
         */
        public ExecutionVertexID executionVertex(int task) {
            int v = railyard.vertexOfTask(task);
            return new ExecutionVertexID(vertices.get(v).getID(), railyard.subtaskIndex(task));
        }

        /** The execution vertex of Railyard task {@code task} in {@code graph}, built from it. */
        public ExecutionVertex executionVertexIn(ExecutionGraph graph, int task) {
            int v = railyard.vertexOfTask(task);
            return graph.getJobVertex(vertices.get(v).getID())
                    .getTaskVertices()[railyard.subtaskIndex(task)];
        }
    }

    /** The Flink batch job of {@code graph}; see the class notes for the mapping. O(job). */
    public static Translation translate(JobGraph graph) {
        List<JobVertex> vertices = new ArrayList<>(graph.numJobVertices());
        Map<JobVertexID, Integer> vertexIds = new HashMap<>();
        for (int v = 0; v < graph.numJobVertices(); v++) {
            JobVertex vertex = new JobVertex(graph.vertexName(v));
            vertex.setParallelism(graph.parallelism(v));
            vertex.setInvokableClass(NoOpInvokable.class);
            vertices.add(vertex);
            vertexIds.put(vertex.getID(), v);
        }
        // Railyard edge ids are ordered by consumer, then insertion: Flink's inputs keep that
        // order.
        for (int e = 0; e < graph.numEdges(); e++) {
            vertices.get(graph.edgeConsumer(e))
                    .connectNewDataSetAsInput(
                            vertices.get(graph.edgeProducer(e)),
                            pattern(graph.edgePattern(e)),
                            resultType(graph.edgeResultType(e)),
                            new IntermediateDataSetID(),
                            false,
                            false);
        }
        org.apache.flink.runtime.jobgraph.JobGraph flink =
                JobGraphTestUtils.batchJobGraph(vertices.toArray(new JobVertex[0]));
        return new Translation(graph, flink, List.copyOf(vertices), Map.copyOf(vertexIds));
    }

    /**
     * Flink's execution graph of a translated job, built and initialised with flink-runtime's test
     * builder (Flink's "job initialization": execution job vertices, execution vertices, result
     * partitions, consumer groups, scheduling topology, pipelined regions and partition-release
     * strategy), using {@code executor} as its future and IO executor. The caller owns the
     * executor.
     */
    public static DefaultExecutionGraph executionGraph(
            Translation job, ScheduledExecutorService executor) throws Exception {
        return TestingDefaultExecutionGraphBuilder.newBuilder()
                .setJobGraph(job.flink())
                .build(executor);
    }

    /**
     * As {@link #executionGraph(Translation, ScheduledExecutorService)}, with a job master
     * configuration and a blob writer for offloaded deployment data.
     */
    public static DefaultExecutionGraph executionGraph(
            Translation job,
            ScheduledExecutorService executor,
            Configuration jobMasterConfig,
            BlobWriter blobWriter)
            throws Exception {
        return TestingDefaultExecutionGraphBuilder.newBuilder()
                .setJobGraph(job.flink())
                .setJobMasterConfig(jobMasterConfig)
                .setBlobWriter(blobWriter)
                .build(executor);
    }

    /**
     * The pipelined regions of a translated job's {@code topology}, each as its Railyard tasks.
     * Allocates a set per region; for tests at small parallelism.
     */
    public static Set<Set<Integer>> regions(Translation job, SchedulingTopology topology) {
        Set<Set<Integer>> regions = new HashSet<>();
        for (SchedulingPipelinedRegion region : topology.getAllPipelinedRegions()) {
            Set<Integer> tasks = new TreeSet<>();
            for (SchedulingExecutionVertex vertex : region.getVertices()) {
                tasks.add(job.task(vertex.getId()));
            }
            regions.add(tasks);
        }
        return regions;
    }

    /** Flink's distribution pattern of the same name. */
    public static org.apache.flink.runtime.jobgraph.DistributionPattern pattern(
            DistributionPattern pattern) {
        return switch (pattern) {
            case ALL_TO_ALL -> org.apache.flink.runtime.jobgraph.DistributionPattern.ALL_TO_ALL;
            case POINTWISE -> org.apache.flink.runtime.jobgraph.DistributionPattern.POINTWISE;
        };
    }

    /** Flink's result partition type of the same name. */
    public static org.apache.flink.runtime.io.network.partition.ResultPartitionType resultType(
            ResultPartitionType type) {
        return switch (type) {
            case PIPELINED ->
                    org.apache.flink.runtime.io.network.partition.ResultPartitionType.PIPELINED;
            case PIPELINED_BOUNDED ->
                    org.apache.flink.runtime.io.network.partition.ResultPartitionType
                            .PIPELINED_BOUNDED;
            case BLOCKING ->
                    org.apache.flink.runtime.io.network.partition.ResultPartitionType.BLOCKING;
            case HYBRID_FULL ->
                    org.apache.flink.runtime.io.network.partition.ResultPartitionType.HYBRID_FULL;
            case HYBRID_SELECTIVE ->
                    org.apache.flink.runtime.io.network.partition.ResultPartitionType
                            .HYBRID_SELECTIVE;
        };
    }
}
