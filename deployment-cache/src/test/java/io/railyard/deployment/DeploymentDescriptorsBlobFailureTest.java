package io.railyard.deployment;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.AdditionalAnswers.delegatesTo;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * What {@link DeploymentDescriptors} does when the blob store, its boundary, fails: a Mockito mock
 * of {@link BlobStore} that delegates to a real {@link InMemoryBlobStore} except for the calls told
 * to fail. The error names the group and the cause, nothing is half-cached, no blob reference
 * leaks, and the next call after the store recovers works (ARCHITECTURE.md, Reliability rows 4 and
 * 18).
 */
class DeploymentDescriptorsBlobFailureTest {
    private static final JobId JOB = new JobId(0xabc, 0xdef);

    /** Every group offloads, whatever its size. */
    private static final OffloadOptions ALWAYS = new OffloadOptions(true, 1, 1 << 20, true);

    private final InMemoryBlobStore real = new InMemoryBlobStore();
    private final BlobStore store = mock(BlobStore.class, delegatesTo(real));

    /** source(4) -POINTWISE-> sink(4): four groups, one per sink, each offloaded. */
    private static ExecutionTopology fourGroups() {
        return ExecutionTopology.of(
                JobGraph.builder()
                        .addVertex("source", 4)
                        .addVertex("sink", 4)
                        .connect("source", "sink", POINTWISE, ResultPartitionType.BLOCKING)
                        .build());
    }

    @Test
    void thirdPutFails_errorNamesTheGroupAndCause_nothingHalfCached_retryWorks()
            throws IOException {
        ExecutionTopology topology = fourGroups();
        DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        JOB,
                        topology,
                        new StaticShuffleDescriptors(topology.jobGraph(), 2),
                        store,
                        ALWAYS);
        IOException diskFull = new IOException("No space left on device");
        doAnswer(delegatesTo(real))
                .doAnswer(delegatesTo(real))
                .doThrow(diskFull)
                .doAnswer(delegatesTo(real))
                .when(store)
                .put(any(JobId.class), any(byte[].class));
        BlobKey first = blobKey(descriptors.create(4, 0));
        BlobKey second = blobKey(descriptors.create(5, 0));

        assertThatThrownBy(() -> descriptors.create(6, 0))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("group 2")
                .hasMessageContaining("source -> sink")
                .hasMessageContaining("No space left on device")
                .hasCause(diskFull);

        assertThat(descriptors.isCached(2)).isFalse();
        assertThat(descriptors.isCached(0)).isTrue();
        assertThat(descriptors.encodedGroups()).isEqualTo(2);
        assertThat(real.numBlobs()).isEqualTo(2);
        assertThat(real.referenceCount(first)).isOne();
        assertThat(real.referenceCount(second)).isOne();

        BlobKey retried = blobKey(descriptors.create(6, 0));
        descriptors.create(7, 0);
        descriptors.create(6, 1); // cached now: no further put

        assertThat(real.referenceCount(retried)).isOne();
        assertThat(descriptors.encodedGroups()).isEqualTo(4);
        assertThat(real.numBlobs()).isEqualTo(4);
        verify(store, times(5)).put(eq(JOB), any(byte[].class)); // one per group + the failure
        descriptors.close();
        assertThat(real.numBlobs()).isZero();
    }

    /** One dataset read by two job vertices: a partition is in two groups, both offloaded. */
    private static ExecutionTopology twoConsumerVertices() {
        return ExecutionTopology.of(
                JobGraph.builder()
                        .addVertex("source", 3)
                        .addVertex("left", 2)
                        .addVertex("right", 2)
                        .addDataSet("out", "source", ResultPartitionType.BLOCKING)
                        .addEdge("out", "left", ALL_TO_ALL)
                        .addEdge("out", "right", ALL_TO_ALL)
                        .build());
    }

    @Test
    void releaseFails_everyGroupOfThePartitionIsStillDropped_andCloseReleasesTheRest()
            throws IOException {
        ExecutionTopology topology = twoConsumerVertices();
        DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        JOB,
                        topology,
                        new StaticShuffleDescriptors(topology.jobGraph(), 2),
                        store,
                        ALWAYS);
        BlobKey left = blobKey(descriptors.create(3, 0));
        BlobKey right = blobKey(descriptors.create(5, 0));
        IOException ioError = new IOException("Input/output error");
        doThrow(ioError)
                .doAnswer(delegatesTo(real))
                .when(store)
                .release(any(JobId.class), any(BlobKey.class));

        assertThatThrownBy(() -> descriptors.invalidatePartition(1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("group 0")
                .hasMessageContaining(left.hex())
                .hasMessageContaining("Input/output error")
                .hasCause(ioError);

        assertThat(descriptors.isCached(0)).as("left group served stale").isFalse();
        assertThat(descriptors.isCached(1)).as("right group served stale").isFalse();
        assertThat(real.referenceCount(right)).isZero();
        assertThat(real.referenceCount(left)).isOne(); // the job keeps it until close()
        descriptors.close();
        assertThat(real.referenceCount(left)).isZero();
        assertThat(real.numBlobs()).isZero();
    }

    /** The blob key of {@code descriptor}'s first input, which must be offloaded. */
    private static BlobKey blobKey(TaskDeploymentDescriptor descriptor) {
        InputDescriptor input = descriptor.inputs().get(0);
        assertThat(input).isInstanceOf(InputDescriptor.Offloaded.class);
        return ((InputDescriptor.Offloaded) input).key();
    }
}
