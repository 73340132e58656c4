package io.railyard.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.NaiveConnections;
import io.railyard.topology.PackedRange;
import io.railyard.topology.RandomJobGraphs;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.LongStream;
import org.jgrapht.Graph;
import org.jgrapht.Graphs;
import org.jgrapht.graph.DefaultEdge;
import org.jgrapht.graph.SimpleDirectedGraph;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every query of {@link ExecutionTopology} on random job graphs against an independent naive
 * expansion of all task-level connections into a JGraphT graph (partition node → task node).
 */
class ExecutionTopologyPropertyTest {

    static LongStream seeds() {
        return LongStream.range(1000, 1300);
    }

    /** Partition p is node -(p + 1), task t is node t. */
    private static int partitionNode(int p) {
        return -(p + 1);
    }

    /** The naive expansion into a JGraphT graph, partition node → task node. */
    static Graph<Integer, DefaultEdge> expand(JobGraph graph) {
        Graph<Integer, DefaultEdge> connections = new SimpleDirectedGraph<>(DefaultEdge.class);
        for (int t = 0; t < graph.numTasks(); t++) {
            connections.addVertex(t);
        }
        for (int p = 0; p < graph.numPartitions(); p++) {
            connections.addVertex(partitionNode(p));
        }
        NaiveConnections.forEach(
                graph, (e, p, consumer) -> connections.addEdge(partitionNode(p), consumer));
        return connections;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void uniformSubpartitions_isEveryPartitionsCount_orMinusOneWhereTheyDiffer(long seed) {
        JobGraph graph = RandomJobGraphs.generate(seed);
        ExecutionTopology topology = ExecutionTopology.of(graph);
        for (int d = 0; d < graph.numDataSets(); d++) {
            boolean allToAll = true;
            for (int k = 0; k < graph.numConsumerEdges(d); k++) {
                allToAll &=
                        graph.edgePattern(graph.consumerEdge(d, k))
                                == DistributionPattern.ALL_TO_ALL;
            }
            int uniform = topology.uniformSubpartitions(d);
            if (!allToAll) {
                assertThat(uniform).as("dataset %s has a pointwise consumer edge", d).isEqualTo(-1);
                continue;
            }
            for (int i = 0; i < graph.parallelism(graph.producer(d)); i++) {
                assertThat(uniform)
                        .as("dataset %s, partition %s", d, i)
                        .isEqualTo(topology.numSubpartitions(d, i))
                        .isPositive();
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void queries_matchNaiveExpansion(long seed) {
        JobGraph graph = RandomJobGraphs.generate(seed);
        ExecutionTopology topology = ExecutionTopology.of(graph);
        Graph<Integer, DefaultEdge> oracle = expand(graph);
        assertThat(topology.checkInvariants()).isTrue();

        for (int t = 0; t < graph.numTasks(); t++) {
            Set<Integer> read = new HashSet<>();
            for (int k = 0; k < topology.numConsumedGroups(t); k++) {
                int group = topology.consumedGroup(t, k);
                assertThat(PackedRange.contains(topology.consumerRange(group), t))
                        .as("task %s is a consumer of its group %s", t, group)
                        .isTrue();
                forEach(topology.partitionRange(group), p -> read.add(partitionNode(p)));
            }
            assertThat(read)
                    .as("partitions read by task %s", graph.taskName(t))
                    .isEqualTo(new HashSet<>(Graphs.predecessorListOf(oracle, t)));
        }
        for (int p = 0; p < graph.numPartitions(); p++) {
            assertThat(topology.producerTask(p))
                    .isEqualTo(
                            graph.task(
                                    graph.producer(graph.dataSetOfPartition(p)),
                                    graph.partitionIndex(p)));
            Set<Integer> readers = new HashSet<>();
            for (int k = 0; k < topology.numConsumerGroups(p); k++) {
                int group = topology.consumerGroup(p, k);
                assertThat(PackedRange.contains(topology.partitionRange(group), p)).isTrue();
                forEach(topology.consumerRange(group), readers::add);
            }
            assertThat(readers)
                    .as("readers of partition %s", p)
                    .isEqualTo(new HashSet<>(Graphs.successorListOf(oracle, partitionNode(p))));
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void groups_tileEveryEdgeExactlyOnce(long seed) {
        JobGraph graph = RandomJobGraphs.generate(seed);
        ExecutionTopology topology = ExecutionTopology.of(graph);
        Graph<Integer, DefaultEdge> oracle = expand(graph);

        long connections = 0;
        for (int g = 0; g < topology.numGroups(); g++) {
            int e = topology.edgeOfGroup(g);
            assertThat(g)
                    .isBetween(
                            topology.firstGroup(e),
                            topology.firstGroup(e) + topology.numGroups(e) - 1);
            assertThat(topology.resultType(g)).isEqualTo(graph.edgeResultType(e));
            int group = g;
            long partitions = topology.partitionRange(g);
            long consumers = topology.consumerRange(g);
            // A group pairs its partitions with its consumers: each side maps back to it.
            forEach(
                    partitions,
                    p -> {
                        assertThat(topology.consumerGroupOnEdge(e, graph.partitionIndex(p)))
                                .isEqualTo(group);
                        forEach(
                                consumers,
                                t -> assertThat(oracle.containsEdge(partitionNode(p), t)).isTrue());
                    });
            forEach(
                    consumers,
                    t ->
                            assertThat(topology.consumedGroupOnEdge(e, graph.subtaskIndex(t)))
                                    .isEqualTo(group));
            connections += topology.numConnections(g);
        }
        assertThat(connections).isEqualTo(oracle.edgeSet().size());
    }

    private static void forEach(long range, java.util.function.IntConsumer action) {
        for (int i = PackedRange.start(range); i < PackedRange.end(range); i++) {
            action.accept(i);
        }
    }
}
