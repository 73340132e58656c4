package io.railyard.deployment;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Descriptors offloaded to a real {@link FileSystemBlobStore}: the worker fetches each group once;
 * a bit flip in the stored blob is detected and never decoded, and re-encoding the group (as after
 * a new producer attempt) stores a good copy again; the job's end leaves no file behind.
 */
class OffloadEndToEndTest {
    private static final JobId JOB = JobId.parse("0123456789abcdef0123456789abcdef");

    @Test
    void corruptBlob_isDetected_reencoded_andNothingLeaks(@TempDir Path dir) throws IOException {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 3_000)
                        .addVertex("sink", 3_000)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .build();
        ExecutionTopology topology = ExecutionTopology.of(graph);
        FileSystemBlobStore store = FileSystemBlobStore.open(dir);
        StaticShuffleDescriptors shuffle = StaticShuffleDescriptors.randomPlacement(graph, 100, 1);
        DeploymentDescriptors descriptors =
                new DeploymentDescriptors(JOB, topology, shuffle, store, OffloadOptions.DEFAULT);
        InputDescriptor shipped = descriptors.create(3_000, 0).inputs().get(0);
        assertThat(shipped).isInstanceOf(InputDescriptor.Offloaded.class);
        InputDescriptor.Offloaded input = (InputDescriptor.Offloaded) shipped;
        assertThat(store.numBlobs()).isEqualTo(1);

        Path blob = store.blobPath(input.key());
        byte[] bytes = Files.readAllBytes(blob);
        bytes[bytes.length / 2] ^= 0x10;
        Files.write(blob, bytes);
        WorkerDescriptorCache worker = new WorkerDescriptorCache(store);

        assertThatThrownBy(() -> worker.resolve(input))
                .isInstanceOf(CorruptBlobException.class)
                .hasMessageContaining(input.key().hex());
        assertThat(store.numBlobs()).isZero(); // deleted, never decoded

        descriptors.invalidatePartition(0); // the JobManager re-encodes the group
        InputDescriptor again = descriptors.create(3_001, 0).inputs().get(0);
        GroupDescriptors group = worker.resolve(again);

        assertThat(again)
                .isEqualTo(
                        InputDescriptor.offloaded(0, 1, 1, input.key())); // same content, same key
        assertThat(group.size()).isEqualTo(3_000);
        assertThat(group.worker(2_999)).isEqualTo(shuffle.workerOfTask(2_999));
        descriptors.close();
        assertThat(store.numBlobs()).isZero();
        assertThat(store.numReferences()).isZero();
        assertThat(store.numTempFiles()).isZero();
        store.close();
    }
}
