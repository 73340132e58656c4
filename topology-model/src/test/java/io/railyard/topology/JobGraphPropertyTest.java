package io.railyard.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.jgrapht.Graph;
import org.jgrapht.alg.cycle.CycleDetector;
import org.jgrapht.graph.DefaultEdge;
import org.jgrapht.graph.DirectedPseudograph;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every id mapping of random job graphs against a naive recomputation. */
class JobGraphPropertyTest {

    static LongStream seeds() {
        return LongStream.range(0, 300);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void ids_areDenseContiguousAndTopological(long seed) {
        JobGraph graph = RandomJobGraphs.generate(seed);
        assertThat(graph.checkInvariants()).isTrue();

        int task = 0;
        for (int v = 0; v < graph.numJobVertices(); v++) {
            assertThat(graph.firstTask(v)).as("first task of %s", v).isEqualTo(task);
            for (int i = 0; i < graph.parallelism(v); i++, task++) {
                assertThat(graph.vertexOfTask(task)).isEqualTo(v);
                assertThat(graph.subtaskIndex(task)).isEqualTo(i);
                assertThat(graph.task(v, i)).isEqualTo(task);
            }
        }
        assertThat(graph.numTasks()).isEqualTo(task);

        int partition = 0;
        for (int d = 0; d < graph.numDataSets(); d++) {
            int producer = graph.producer(d);
            assertThat(graph.numPartitions(d)).isEqualTo(graph.parallelism(producer));
            for (int i = 0; i < graph.numPartitions(d); i++, partition++) {
                assertThat(graph.dataSetOfPartition(partition)).isEqualTo(d);
                assertThat(graph.partitionIndex(partition)).isEqualTo(i);
                assertThat(graph.producerTask(partition)).isEqualTo(graph.task(producer, i));
            }
        }
        assertThat(graph.numPartitions()).isEqualTo(partition);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void adjacency_matchesNaiveScanAndIsAcyclic(long seed) {
        JobGraph graph = RandomJobGraphs.generate(seed);
        Graph<Integer, DefaultEdge> oracle = new DirectedPseudograph<>(DefaultEdge.class);
        for (int v = 0; v < graph.numJobVertices(); v++) {
            oracle.addVertex(v);
        }
        for (int e = 0; e < graph.numEdges(); e++) {
            assertThat(graph.edgeProducer(e)).isLessThan(graph.edgeConsumer(e));
            oracle.addEdge(graph.edgeProducer(e), graph.edgeConsumer(e));
        }
        assertThat(new CycleDetector<>(oracle).detectCycles()).isFalse();

        for (int v = 0; v < graph.numJobVertices(); v++) {
            List<Integer> naiveInputs = new ArrayList<>();
            for (int e = 0; e < graph.numEdges(); e++) {
                if (graph.edgeConsumer(e) == v) {
                    naiveInputs.add(e);
                }
            }
            List<Integer> inputs = new ArrayList<>();
            for (int k = 0; k < graph.numInputEdges(v); k++) {
                inputs.add(graph.inputEdge(v, k));
            }
            assertThat(inputs).isEqualTo(naiveInputs);
            assertThat(graph.vertexId(graph.vertexName(v))).isEqualTo(v);
        }
        for (int d = 0; d < graph.numDataSets(); d++) {
            List<Integer> naiveConsumers = new ArrayList<>();
            for (int e = 0; e < graph.numEdges(); e++) {
                if (graph.edgeDataSet(e) == d) {
                    naiveConsumers.add(e);
                }
            }
            List<Integer> consumers = new ArrayList<>();
            for (int k = 0; k < graph.numConsumerEdges(d); k++) {
                consumers.add(graph.consumerEdge(d, k));
            }
            assertThat(consumers).isEqualTo(naiveConsumers);
            int producer = graph.producer(d);
            assertThat(
                            PackedRange.contains(
                                    PackedRange.of(
                                            graph.producedDataSet(producer, 0),
                                            graph.producedDataSet(producer, 0)
                                                    + graph.numProducedDataSets(producer)),
                                    d))
                    .isTrue();
        }
    }
}
