package io.railyard.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.NaiveConnections;
import io.railyard.topology.PackedRange;
import io.railyard.topology.RandomJobGraphs;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each consumer's descriptor names the subpartitions it reads: over every edge, each subpartition
 * of each partition is read by exactly one consumer task, and only subpartitions its producer
 * writes.
 */
class SubpartitionRangeTest {
    private static final JobId JOB = new JobId(7, 9);

    private static DeploymentDescriptors descriptors(JobGraph graph, int workers) {
        return new DeploymentDescriptors(
                JOB,
                ExecutionTopology.of(graph),
                new StaticShuffleDescriptors(graph, workers),
                new InMemoryBlobStore(),
                OffloadOptions.DEFAULT);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
    void everySubpartitionIsReadOncePerEdge_andExists(long seed) throws IOException {
        JobGraph graph = RandomJobGraphs.generate(seed);
        ExecutionTopology topology = ExecutionTopology.of(graph);
        DeploymentDescriptors descriptors = descriptors(graph, 4);
        int[] written = new int[graph.numPartitions()];
        for (int task = 0; task < graph.numTasks(); task++) {
            for (ProducedPartition produced : descriptors.create(task, 0).produced()) {
                written[produced.partition()] = produced.numSubpartitions();
            }
        }
        Set<Long> read = new HashSet<>(); // (edge, partition, subpartition)
        int[] readOnEdge = new int[graph.numPartitions()];
        for (int task = 0; task < graph.numTasks(); task++) {
            TaskDeploymentDescriptor descriptor =
                    TaskDeploymentDescriptor.decode(descriptors.create(task, 0).encode());
            for (int k = 0; k < descriptor.inputs().size(); k++) {
                InputDescriptor input = descriptor.inputs().get(k);
                int edge = graph.inputEdge(descriptor.vertex(), k);
                long partitions = topology.partitionRange(input.group());
                for (int p = PackedRange.start(partitions); p < PackedRange.end(partitions); p++) {
                    int end = input.firstSubpartition() + input.numSubpartitions();
                    assertThat(end)
                            .as(
                                    "task %s reads partition %s of %s subpartitions",
                                    task, p, written[p])
                            .isLessThanOrEqualTo(written[p]);
                    for (int s = input.firstSubpartition(); s < end; s++) {
                        long key = ((long) edge << 42) | ((long) p << 16) | s;
                        assertThat(read.add(key))
                                .as(
                                        "subpartition %s of partition %s read twice on edge %s",
                                        s, p, edge)
                                .isTrue();
                        readOnEdge[p]++;
                    }
                }
            }
        }
        for (int p = 0; p < graph.numPartitions(); p++) {
            int d = graph.dataSetOfPartition(p);
            if (graph.numConsumerEdges(d) == 1) {
                assertThat(readOnEdge[p])
                        .as("subpartitions of partition %s read by its one consumer edge", p)
                        .isEqualTo(written[p]);
            }
        }
    }

    @Test
    void unevenFanOut_givesEachPartitionItsOwnConsumerCount() throws IOException {
        // 3 -> 7 pointwise: partitions have 2 or 3 consumers, so no one count serves the dataset.
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 3)
                        .addVertex("b", 7)
                        .connect(
                                "a",
                                "b",
                                DistributionPattern.POINTWISE,
                                ResultPartitionType.BLOCKING)
                        .build();
        int[] consumers = new int[graph.numPartitions()];
        NaiveConnections.forEach(graph, (e, p, consumer) -> consumers[p]++);
        assertThat(consumers).contains(2, 3);
        DeploymentDescriptors descriptors = descriptors(graph, 2);
        for (int subtask = 0; subtask < 3; subtask++) {
            ProducedPartition produced =
                    descriptors.create(graph.task(0, subtask), 0).produced().get(0);
            assertThat(produced.numSubpartitions())
                    .as("partition %s", produced.partition())
                    .isEqualTo(consumers[produced.partition()]);
        }
    }

    @Test
    void allToAll_fanOut_andFanIn() throws IOException {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 2)
                        .addVertex("b", 6)
                        .addVertex("c", 2)
                        .addVertex("d", 3)
                        .connect(
                                "a",
                                "b",
                                DistributionPattern.POINTWISE,
                                ResultPartitionType.BLOCKING)
                        .connect(
                                "b",
                                "c",
                                DistributionPattern.POINTWISE,
                                ResultPartitionType.BLOCKING)
                        .connect(
                                "c",
                                "d",
                                DistributionPattern.ALL_TO_ALL,
                                ResultPartitionType.BLOCKING)
                        .build();
        DeploymentDescriptors descriptors = descriptors(graph, 2);

        // b (fan-out 1:3): subtask i reads subpartition i % 3 of its one producer
        assertThat(firstSubpartitions(descriptors, graph.firstTask(1), 6))
                .containsExactly(0, 1, 2, 0, 1, 2);
        // c (fan-in 3:1): reads subpartition 0 of each of its three producers
        assertThat(firstSubpartitions(descriptors, graph.firstTask(2), 2)).containsExactly(0, 0);
        // d (all-to-all): subtask i reads subpartition i of every producer
        assertThat(firstSubpartitions(descriptors, graph.firstTask(3), 3)).containsExactly(0, 1, 2);
    }

    /** Version 1 had no subpartitions per input, version 2 no secret: both are named, not read. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void anOlderDescriptor_isRejectedNamingTheVersion(int version) throws IOException {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 2)
                        .addVertex("b", 2)
                        .connect(
                                "a",
                                "b",
                                DistributionPattern.ALL_TO_ALL,
                                ResultPartitionType.BLOCKING)
                        .build();
        DeploymentDescriptors descriptors = descriptors(graph, 2);
        byte[] current = descriptors.create(3, 0).encode();
        byte[] payload = Arrays.copyOfRange(current, 4, current.length - 4);
        byte[] older =
                Envelope.seal(
                        TaskDeploymentDescriptor.MAGIC, version, payload, payload.length, false);

        assertThatThrownBy(() -> TaskDeploymentDescriptor.decode(older))
                .isInstanceOf(CorruptDescriptorException.class)
                .hasMessage(
                        "corrupt descriptor at byte 2, field version: unknown task deployment"
                                + " descriptor version "
                                + version
                                + ", this reader knows 3");
    }

    @Test
    void badRanges_areRejectedWithNames() {
        assertThatThrownBy(() -> InputDescriptor.inline(0, -1, 1, new byte[0]))
                .hasMessage("firstSubpartition must be >= 0, was -1");
        assertThatThrownBy(() -> InputDescriptor.inline(0, 5, 0, new byte[0]))
                .hasMessage(
                        "numSubpartitions must be in [1, 2147483642] after firstSubpartition 5,"
                                + " was 0");
        assertThatThrownBy(() -> InputDescriptor.inline(0, Integer.MAX_VALUE, 1, new byte[0]))
                .hasMessageContaining("was 1");
    }

    private static int[] firstSubpartitions(DeploymentDescriptors descriptors, int first, int n)
            throws IOException {
        int[] firsts = new int[n];
        for (int i = 0; i < n; i++) {
            InputDescriptor input = descriptors.create(first + i, 0).inputs().get(0);
            assertThat(input.numSubpartitions()).isEqualTo(1);
            firsts[i] = input.firstSubpartition();
        }
        return firsts;
    }
}
