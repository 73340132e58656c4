package io.railyard.groups;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static io.railyard.topology.ResultPartitionType.HYBRID_FULL;
import static io.railyard.topology.ResultPartitionType.PIPELINED;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.topology.Allocations;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import org.junit.jupiter.api.Test;

/**
 * "No query allocates" ({@link ExecutionTopology}'s class notes): the group queries that region
 * building, scheduling, failover and descriptors run per task, partition and group, measured with
 * the thread allocation counter after warm-up, on every kind of edge.
 */
class ExecutionTopologyAllocationTest {
    private static final int CALLS = 50_000;

    /** All-to-all, fan-in and fan-out pointwise edges, one dataset read by two vertices. */
    private static ExecutionTopology topology() {
        return ExecutionTopology.of(
                JobGraph.builder()
                        .addVertex("source", 1_200)
                        .addVertex("narrow", 300)
                        .addVertex("wide", 2_000)
                        .addVertex("sink", 5)
                        .connect("source", "narrow", POINTWISE, PIPELINED)
                        .connect("narrow", "wide", POINTWISE, HYBRID_FULL)
                        .addEdge("source->narrow", "sink", ALL_TO_ALL)
                        .connect("wide", "sink", ALL_TO_ALL, BLOCKING)
                        .build());
    }

    @Test
    void groupQueries_allocateNothing() {
        ExecutionTopology topology = topology();
        int groups = topology.numGroups();

        double bytes =
                Allocations.bytesPerCall(
                        CALLS,
                        call -> {
                            int g = (int) ((call * 7919L) % groups);
                            return topology.edgeOfGroup(g)
                                    + topology.partitionRange(g)
                                    + topology.consumerRange(g)
                                    + topology.numConnections(g)
                                    + (topology.resultType(g).isReconsumable() ? 1 : 0);
                        });

        assertThat(bytes).as("bytes per call").isLessThan(1.0);
    }

    @Test
    void taskAndPartitionQueries_allocateNothing() {
        ExecutionTopology topology = topology();
        JobGraph graph = topology.jobGraph();
        int tasks = graph.numTasks();
        int partitions = graph.numPartitions();

        double bytes =
                Allocations.bytesPerCall(
                        CALLS,
                        call -> {
                            int task = (int) ((call * 7919L) % tasks);
                            int p = (int) ((call * 104_729L) % partitions);
                            long sum = topology.producerTask(p);
                            for (int k = 0; k < topology.numConsumedGroups(task); k++) {
                                sum += topology.consumedGroup(task, k);
                            }
                            for (int k = 0; k < topology.numConsumerGroups(p); k++) {
                                sum += topology.consumerGroup(p, k);
                            }
                            return sum + PackedRange.size(topology.partitionRange(0));
                        });

        assertThat(bytes).as("bytes per call").isLessThan(1.0);
    }
}
