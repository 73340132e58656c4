package io.railyard.topology;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static io.railyard.topology.ResultPartitionType.PIPELINED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JobGraphBuilderTest {

    @Test
    void build_referenceJob_hasDenseContiguousIds() {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 3)
                        .addVertex("sink", 2, 128)
                        .connect("source", "sink", ALL_TO_ALL, BLOCKING)
                        .build();

        assertThat(graph.numTasks()).isEqualTo(5);
        assertThat(graph.vertexId("source")).isZero();
        assertThat(graph.taskRange(1)).isEqualTo(PackedRange.of(3, 5));
        assertThat(graph.taskName(4)).isEqualTo("sink#1");
        assertThat(graph.maxParallelism(1)).hasValue(128);
        assertThat(graph.maxParallelism(0)).isEmpty();
        assertThat(graph.dataSetName(0)).isEqualTo("source->sink");
        assertThat(graph.numPartitions()).isEqualTo(3);
        assertThat(graph.producerTask(2)).isEqualTo(2);
        assertThat(graph.describeEdge(0))
                .isEqualTo("source -> sink (ALL_TO_ALL, BLOCKING, dataset 'source->sink')");
        assertThat(graph.checkInvariants()).isTrue();
    }

    @Test
    void build_verticesAddedOutOfOrder_areRenumberedTopologically() {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("sink", 1)
                        .addVertex("map", 2)
                        .addVertex("source", 4)
                        .connect("map", "sink", ALL_TO_ALL, BLOCKING)
                        .connect("source", "map", POINTWISE, PIPELINED)
                        .build();

        assertThat(graph.vertexName(0)).isEqualTo("source");
        assertThat(graph.vertexName(1)).isEqualTo("map");
        assertThat(graph.vertexName(2)).isEqualTo("sink");
        assertThat(graph.edgeConsumer(0)).isEqualTo(1);
        assertThat(graph.dataSetName(0)).isEqualTo("source->map");
        assertThat(graph.topologicalOrder()).containsExactly(0, 1, 2);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE, JobGraph.MAX_PARALLELISM + 1})
    void addVertex_parallelismOutOfRange_namesVertexValueAndRange(int parallelism) {
        assertThatThrownBy(() -> JobGraph.builder().addVertex("map", parallelism))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'map'")
                .hasMessageContaining("[1, 16777216]")
                .hasMessageContaining(String.valueOf(parallelism));
    }

    @Test
    void addVertex_maxParallelismBelowParallelism_isRejected() {
        assertThatThrownBy(() -> JobGraph.builder().addVertex("map", 10, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max parallelism of job vertex 'map'")
                .hasMessageContaining("[10, 16777216]")
                .hasMessageContaining("was 5");
    }

    @Test
    void addVertex_duplicateName_isRejected() {
        JobGraphBuilder builder = JobGraph.builder().addVertex("a", 1);
        assertThatThrownBy(() -> builder.addVertex("a", 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("duplicate job vertex name 'a'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  "})
    void addVertex_blankName_isRejected(String name) {
        assertThatThrownBy(() -> JobGraph.builder().addVertex(name, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job vertex name must be non-blank");
    }

    @Test
    void addVertex_nameWithHash_isRejected() {
        assertThatThrownBy(() -> JobGraph.builder().addVertex("a#1", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not contain '#'");
    }

    @Test
    void addVertex_totalTasksOverflowInt_isRejectedBeforeAnyChange() {
        JobGraphBuilder builder = JobGraph.builder();
        for (int i = 0; i < 127; i++) {
            builder.addVertex("v" + i, JobGraph.MAX_PARALLELISM);
        }
        // 127 * 2^24 = 2^31 - 2^24 tasks fit; one more vertex of 2^24 does not.
        assertThatThrownBy(() -> builder.addVertex("last", JobGraph.MAX_PARALLELISM))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'last'")
                .hasMessageContaining("2147483648 tasks")
                .hasMessageContaining("max 2147483647");
        builder.addVertex("small", (1 << 24) - 1);
        assertThat(builder.build().numTasks()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void addDataSet_totalPartitionsOverflowInt_isRejected() {
        JobGraphBuilder builder = JobGraph.builder().addVertex("big", JobGraph.MAX_PARALLELISM);
        for (int i = 0; i < 127; i++) {
            builder.addDataSet("d" + i, "big", BLOCKING);
        }
        assertThatThrownBy(() -> builder.addDataSet("one-too-many", "big", BLOCKING))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'one-too-many'")
                .hasMessageContaining("2147483648 partitions");
    }

    @Test
    void connect_unknownVertex_namesItAndLeavesNothingHalfBuilt() {
        JobGraphBuilder builder = JobGraph.builder().addVertex("a", 1);
        assertThatThrownBy(() -> builder.connect("a", "nope", ALL_TO_ALL, BLOCKING))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown job vertex 'nope'")
                .hasMessageContaining("[a]");
        JobGraph graph = builder.build();
        assertThat(graph.numDataSets()).isZero();
        assertThat(graph.numEdges()).isZero();
    }

    @Test
    void addEdge_unknownDataSet_isRejected() {
        JobGraphBuilder builder = JobGraph.builder().addVertex("a", 1);
        assertThatThrownBy(() -> builder.addEdge("missing", "a", POINTWISE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown dataset 'missing'");
    }

    @Test
    void addDataSet_unknownProducer_isRejected() {
        assertThatThrownBy(() -> JobGraph.builder().addDataSet("d", "ghost", BLOCKING))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("producer of dataset 'd' is unknown job vertex 'ghost'");
    }

    @Test
    void connect_selfLoop_isRejected() {
        JobGraphBuilder builder = JobGraph.builder().addVertex("a", 2);
        assertThatThrownBy(() -> builder.connect("a", "a", POINTWISE, PIPELINED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("self-loop: job vertex 'a'");
    }

    @Test
    void addEdge_sameConsumerTwice_isRejected() {
        JobGraphBuilder builder =
                JobGraph.builder()
                        .addVertex("a", 1)
                        .addVertex("b", 1)
                        .addDataSet("d", "a", BLOCKING)
                        .addEdge("d", "b", ALL_TO_ALL);
        assertThatThrownBy(() -> builder.addEdge("d", "b", POINTWISE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'b' already consumes dataset 'd'");
    }

    @Test
    void build_cycle_namesTheCyclePathAndKeepsBuilderOpen() {
        JobGraphBuilder builder =
                JobGraph.builder()
                        .addVertex("src", 1)
                        .addVertex("a", 1)
                        .addVertex("b", 1)
                        .addVertex("c", 1)
                        .connect("src", "a", POINTWISE, PIPELINED)
                        .connect("a", "b", POINTWISE, PIPELINED)
                        .connect("b", "c", ALL_TO_ALL, BLOCKING)
                        .connect("c", "a", ALL_TO_ALL, BLOCKING);
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cycle")
                .satisfies(
                        e ->
                                assertThat(e.getMessage())
                                        .containsAnyOf(
                                                "a -> b -> c -> a",
                                                "b -> c -> a -> b",
                                                "c -> a -> b -> c"));
        // The failed build changed nothing: the builder still accepts input.
        builder.addVertex("d", 1);
    }

    @Test
    void addEdge_afterBuild_isALifecycleError() {
        JobGraphBuilder builder = JobGraph.builder().addVertex("a", 1).addVertex("b", 1);
        builder.build();
        assertThatThrownBy(() -> builder.connect("a", "b", ALL_TO_ALL, BLOCKING))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already built");
        assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void connect_twiceBetweenSamePair_getsDistinctDataSetNames() {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 1)
                        .addVertex("b", 1)
                        .connect("a", "b", ALL_TO_ALL, BLOCKING)
                        .connect("a", "b", POINTWISE, PIPELINED)
                        .build();
        assertThat(graph.dataSetId("a->b#2")).isEqualTo(1);
        assertThat(graph.numInputEdges(1)).isEqualTo(2);
    }

    @Test
    void accessors_outOfRangeIds_nameTheKindOfId() {
        JobGraph graph = JobGraph.builder().addVertex("a", 2).build();
        assertThatThrownBy(() -> graph.vertexOfTask(2))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("element");
        assertThatThrownBy(() -> graph.parallelism(1))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("job vertex");
        assertThatThrownBy(() -> graph.task(0, 2))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("subtask");
        assertThatThrownBy(() -> graph.vertexId("zzz"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown job vertex 'zzz'");
    }
}
