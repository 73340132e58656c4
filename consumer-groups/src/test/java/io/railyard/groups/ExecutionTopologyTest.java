package io.railyard.groups;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static io.railyard.topology.ResultPartitionType.PIPELINED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import org.junit.jupiter.api.Test;

class ExecutionTopologyTest {

    private static ExecutionTopology twoVertices(int producers, int consumers, boolean allToAll) {
        return ExecutionTopology.of(
                JobGraph.builder()
                        .addVertex("a", producers)
                        .addVertex("b", consumers)
                        .connect("a", "b", allToAll ? ALL_TO_ALL : POINTWISE, PIPELINED)
                        .build());
    }

    @Test
    void allToAll_isOneGroupForEveryConnection() {
        ExecutionTopology topology = twoVertices(10_000, 10_000, true);
        assertThat(topology.numGroups()).isEqualTo(1);
        assertThat(topology.partitionRange(0)).isEqualTo(PackedRange.of(0, 10_000));
        assertThat(topology.consumerRange(0)).isEqualTo(PackedRange.of(10_000, 20_000));
        assertThat(topology.numConnections(0)).isEqualTo(100_000_000L);
        assertThat(topology.consumedGroup(19_999, 0)).isZero();
        assertThat(topology.consumerGroup(9_999, 0)).isZero();
    }

    @Test
    void pointwise_moreProducers_eachConsumerReadsAFloorRange() {
        // 7 -> 3: consumer j reads [j*7/3, (j+1)*7/3) = [0,2), [2,4), [4,7).
        ExecutionTopology topology = twoVertices(7, 3, false);
        assertThat(topology.numGroups()).isEqualTo(3);
        assertThat(topology.partitionRange(0)).isEqualTo(PackedRange.of(0, 2));
        assertThat(topology.partitionRange(1)).isEqualTo(PackedRange.of(2, 4));
        assertThat(topology.partitionRange(2)).isEqualTo(PackedRange.of(4, 7));
        assertThat(topology.consumerRange(2)).isEqualTo(PackedRange.of(9, 10));
        assertThat(topology.consumerGroup(3, 0)).isEqualTo(1);
        assertThat(topology.consumerGroup(6, 0)).isEqualTo(2);
    }

    @Test
    void pointwise_moreConsumers_eachPartitionIsReadByACeilRange() {
        // 3 -> 7: partition j is read by [ceil(j*7/3), ceil((j+1)*7/3)) = [0,3), [3,5), [5,7).
        ExecutionTopology topology = twoVertices(3, 7, false);
        assertThat(topology.numGroups()).isEqualTo(3);
        assertThat(topology.consumerRange(0)).isEqualTo(PackedRange.of(3, 6));
        assertThat(topology.consumerRange(1)).isEqualTo(PackedRange.of(6, 8));
        assertThat(topology.consumerRange(2)).isEqualTo(PackedRange.of(8, 10));
        assertThat(topology.consumedGroupOnEdge(0, 4)).isEqualTo(1);
        assertThat(topology.partitionRange(1)).isEqualTo(PackedRange.of(1, 2));
    }

    @Test
    void pointwise_atMaximumParallelism_doesNotOverflow() {
        int p = JobGraph.MAX_PARALLELISM;
        ExecutionTopology fanIn = twoVertices(p, p - 1, false);
        assertThat(fanIn.consumerGroupOnEdge(0, p - 1)).isEqualTo(p - 2);
        assertThat(fanIn.partitionRange(p - 2)).isEqualTo(PackedRange.of(p - 2, p));
        ExecutionTopology fanOut = twoVertices(p - 1, p, false);
        assertThat(fanOut.consumedGroupOnEdge(0, p - 1)).isEqualTo(p - 2);
        assertThat(fanOut.consumerRange(p - 2)).isEqualTo(PackedRange.of(2 * p - 2, 2 * p - 1));
    }

    @Test
    void allToAll_connectionsBeyondIntRange_areCountedInLong() {
        // 2^24 x 2^24 = 2^48 connections: far past int, still one group and a few bytes.
        ExecutionTopology topology =
                twoVertices(JobGraph.MAX_PARALLELISM, JobGraph.MAX_PARALLELISM, true);
        assertThat(topology.numConnections(0)).isEqualTo(1L << 48);
    }

    @Test
    void datasetWithTwoConsumers_hasGroupsOnEachEdge() {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 4)
                        .addVertex("b", 2)
                        .addVertex("c", 4)
                        .addDataSet("shared", "a", BLOCKING)
                        .addEdge("shared", "b", POINTWISE)
                        .addEdge("shared", "c", ALL_TO_ALL)
                        .build();
        ExecutionTopology topology = ExecutionTopology.of(graph);
        assertThat(topology.numConsumerGroups(3)).isEqualTo(2);
        assertThat(topology.consumerRange(topology.consumerGroup(3, 0)))
                .isEqualTo(PackedRange.of(5, 6));
        assertThat(topology.consumerRange(topology.consumerGroup(3, 1)))
                .isEqualTo(PackedRange.of(6, 10));
    }

    @Test
    void queries_withOutOfRangeIds_nameTheId() {
        ExecutionTopology topology = twoVertices(2, 2, false);
        assertThatThrownBy(() -> topology.consumedGroupOnEdge(0, 2))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("consumer subtask");
        assertThatThrownBy(() -> topology.consumerGroupOnEdge(1, 0))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("edge");
        assertThatThrownBy(() -> topology.partitionRange(2))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }
}
