package io.railyard.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import io.railyard.topology.SampleJob;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The consumer-group API as a user walks it on {@link SampleJob}: a task's consumed group, the
 * partitions in it and their producers, and who reads a partition.
 */
class ApiSampleTest {

    @Test
    void groupLookups_onTheSampleJob_giveProducersAndReaders() {
        JobGraph graph = SampleJob.graph();

        ExecutionTopology topology = ExecutionTopology.of(graph);

        int sink7 = graph.task(graph.vertexId("sink"), 7);
        int group = topology.consumedGroup(sink7, 0);
        long partitions = topology.partitionRange(group);
        List<Integer> producers = new ArrayList<>();
        for (int p = PackedRange.start(partitions); p < PackedRange.end(partitions); p++) {
            producers.add(topology.producerTask(p));
        }
        long readers = topology.consumerRange(topology.consumerGroup(0, 0));

        assertThat(producers).hasSize(4_000).startsWith(10_000).endsWith(13_999);
        // 10,000 -> 4,000 pointwise: map#0 reads source partitions [0, 2) and nobody else does.
        assertThat(readers).isEqualTo(PackedRange.of(10_000, 10_001));
    }
}
