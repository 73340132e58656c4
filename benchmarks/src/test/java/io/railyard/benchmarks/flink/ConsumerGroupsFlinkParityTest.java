package io.railyard.benchmarks.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import io.railyard.topology.ResultPartitionType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
import org.apache.flink.runtime.executiongraph.ExecutionVertex;
import org.apache.flink.runtime.executiongraph.IntermediateResultPartition;
import org.apache.flink.runtime.jobgraph.IntermediateResultPartitionID;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.scheduler.strategy.ConsumedPartitionGroup;
import org.apache.flink.runtime.scheduler.strategy.ConsumerVertexGroup;
import org.apache.flink.runtime.scheduler.strategy.ExecutionVertexID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Railyard's consumer groups equal the consumed partition groups and consumer vertex groups of
 * flink-runtime's execution graph, group for group, for every pointwise edge with producer and
 * consumer parallelism up to 64, and for all-to-all edges.
 */
class ConsumerGroupsFlinkParityTest {
    private static final int MAX_PARALLELISM = 64;

    private static ScheduledExecutorService executor;

    @BeforeAll
    static void startExecutor() {
        executor = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterAll
    static void stopExecutor() {
        executor.shutdownNow();
    }

    @Test
    void pointwise_allParallelismPairsUpTo64_matchFlink() throws Exception {
        for (int producers = 1; producers <= MAX_PARALLELISM; producers++) {
            for (int consumers = 1; consumers <= MAX_PARALLELISM; consumers++) {
                assertSameGroups(producers, consumers, DistributionPattern.POINTWISE);
            }
        }
    }

    @Test
    void allToAll_matchesFlink() throws Exception {
        int[][] pairs = {{1, 1}, {1, 64}, {64, 1}, {7, 3}, {3, 7}, {64, 64}};
        for (int[] pair : pairs) {
            assertSameGroups(pair[0], pair[1], DistributionPattern.ALL_TO_ALL);
        }
    }

    private static void assertSameGroups(int producers, int consumers, DistributionPattern pattern)
            throws Exception {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", producers)
                        .addVertex("sink", consumers)
                        .connect("source", "sink", pattern, ResultPartitionType.BLOCKING)
                        .build();
        ExecutionTopology railyard = ExecutionTopology.of(graph);
        FlinkJobs.Translation job = FlinkJobs.translate(graph);
        DefaultExecutionGraph flink = FlinkJobs.executionGraph(job, executor);
        JobVertex source = job.vertex(graph.vertexId("source"));
        JobVertex sink = job.vertex(graph.vertexId("sink"));
        String edge = producers + " -> " + consumers + " " + pattern;

        ExecutionVertex[] sinks = flink.getJobVertex(sink.getID()).getTaskVertices();
        for (int subtask = 0; subtask < consumers; subtask++) {
            ConsumedPartitionGroup flinkGroup = sinks[subtask].getConsumedPartitionGroup(0);
            List<Integer> flinkPartitions = new ArrayList<>();
            for (IntermediateResultPartitionID id : flinkGroup) {
                flinkPartitions.add(id.getPartitionNumber());
            }
            int group = railyard.consumedGroupOnEdge(0, subtask);
            assertThat(toList(railyard.partitionRange(group), 0))
                    .as("partitions consumed by sink#%s, %s", subtask, edge)
                    .isEqualTo(flinkPartitions);
            assertThat(PackedRange.size(railyard.consumerRange(group)))
                    .as("consumers of the group of sink#%s, %s", subtask, edge)
                    .isEqualTo(flinkGroup.getNumConsumers());
        }
        ExecutionVertex[] sources = flink.getJobVertex(source.getID()).getTaskVertices();
        for (int index = 0; index < producers; index++) {
            IntermediateResultPartition partition =
                    sources[index].getProducedPartitions().values().iterator().next();
            List<ConsumerVertexGroup> flinkGroups = partition.getConsumerVertexGroups();
            assertThat(flinkGroups).hasSize(1);
            List<Integer> flinkConsumers = new ArrayList<>();
            for (ExecutionVertexID id : flinkGroups.get(0)) {
                flinkConsumers.add(id.getSubtaskIndex());
            }
            int group = railyard.consumerGroupOnEdge(0, index);
            assertThat(toList(railyard.consumerRange(group), producers))
                    .as("consumers of source#%s, %s", index, edge)
                    .isEqualTo(flinkConsumers);
        }
    }

    /** The ids of a range, each minus {@code offset} (task ids to subtask indexes). */
    private static List<Integer> toList(long range, int offset) {
        List<Integer> ids = new ArrayList<>();
        for (int id = PackedRange.start(range); id < PackedRange.end(range); id++) {
            ids.add(id - offset);
        }
        return ids;
    }
}
