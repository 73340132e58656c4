package io.railyard.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.SampleJob;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deployment descriptors as a user walks them on {@link SampleJob}: a sink's descriptor with its
 * large consumed group offloaded to the blob store, and a worker resolving it.
 */
class ApiSampleTest {

    @Test
    void sinkDescriptor_onTheSampleJob_isOffloadedAndResolvedOnTheWorker(
            @TempDir Path blobDirectory) throws IOException {
        JobGraph graph = SampleJob.graph();
        ExecutionTopology topology = ExecutionTopology.of(graph);
        int sink7 = graph.task(graph.vertexId("sink"), 7);
        JobId jobId = JobId.parse("00000000000000000000000000000007");

        FileSystemBlobStore blobs = FileSystemBlobStore.open(blobDirectory);
        DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        jobId,
                        topology,
                        StaticShuffleDescriptors.randomPlacement(graph, 1_000, 42),
                        blobs,
                        OffloadOptions.DEFAULT);
        byte[] shipped = descriptors.create(sink7, 0).encode();
        WorkerDescriptorCache worker = new WorkerDescriptorCache(blobs);
        GroupDescriptors inputs =
                worker.resolve(TaskDeploymentDescriptor.decode(shipped).inputs().get(0));
        descriptors.close();
        blobs.close();

        // 4,000 descriptors x 10,000 consumers passes 2048 x 2048: offloaded after all
        assertThat(TaskDeploymentDescriptor.decode(shipped).inputs().get(0))
                .isInstanceOf(InputDescriptor.Offloaded.class);
        assertThat(shipped.length).isLessThan(256);
        assertThat(inputs.size()).isEqualTo(4_000);
        assertThat(inputs.firstPartition()).isEqualTo(10_000);
    }
}
