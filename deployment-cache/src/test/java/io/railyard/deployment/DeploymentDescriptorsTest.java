package io.railyard.deployment;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Descriptors of the 10k × 10k reference jobs: sizes, sharing, offload and invalidation. */
class DeploymentDescriptorsTest {
    private static final JobId JOB = new JobId(0x1234, 0x5678);

    private static ExecutionTopology twoVertices(int parallelism, ResultPartitionType type) {
        return ExecutionTopology.of(
                JobGraph.builder()
                        .addVertex("source", parallelism)
                        .addVertex("sink", parallelism)
                        .connect("source", "sink", ALL_TO_ALL, type)
                        .build());
    }

    /** Descriptors over round-robin placement on {@code workers} workers. */
    private static DeploymentDescriptors descriptors(
            ExecutionTopology topology, int workers, BlobStore blobs, OffloadOptions options) {
        return new DeploymentDescriptors(
                JOB,
                topology,
                new StaticShuffleDescriptors(topology.jobGraph(), workers),
                blobs,
                options);
    }

    /**
     * POINTWISE 4 → 2 (one consumer per group: not cached, encoded per descriptor) then 2 → 4 (two
     * consumers per group: cached, encoded once); the inputs are the same either way.
     */
    @Test
    void onlyLargerGroupsWithSeveralConsumers_areCached_smallOnesSharedByConsecutiveConsumers()
            throws IOException {
        ExecutionTopology topology =
                ExecutionTopology.of(
                        JobGraph.builder()
                                .addVertex("a", 4)
                                .addVertex("b", 2)
                                .addVertex("c", 4)
                                .connect(
                                        "a",
                                        "b",
                                        io.railyard.topology.DistributionPattern.POINTWISE,
                                        ResultPartitionType.BLOCKING)
                                .connect(
                                        "b",
                                        "c",
                                        io.railyard.topology.DistributionPattern.POINTWISE,
                                        ResultPartitionType.BLOCKING)
                                .build());
        DeploymentDescriptors descriptors =
                descriptors(topology, 3, new InMemoryBlobStore(), OffloadOptions.DEFAULT);

        TaskDeploymentDescriptor b0 = descriptors.create(4, 0);
        TaskDeploymentDescriptor b0Again = descriptors.create(4, 0);
        assertThat(descriptors.isCached(0)).as("a -> b group 0, one consumer").isFalse();
        assertThat(descriptors.encodedGroups()).isEqualTo(2);
        assertThat(b0Again).isEqualTo(b0);

        for (int task = 6; task < 10; task++) {
            descriptors.create(task, 0);
        }
        assertThat(descriptors.isCached(2))
                .as("b -> c group 0: two consumers, 1 partition")
                .isFalse();
        assertThat(descriptors.isCached(3)).isFalse();
        assertThat(descriptors.encodedGroups())
                .as("two b -> c groups, once each: their consumers come one after another")
                .isEqualTo(4);

        assertThat(descriptors.create(6, 1)).isNotNull();
        assertThat(descriptors.encodedGroups())
                .as("c0 again, after c3: encoded again")
                .isEqualTo(5);
    }

    @Test
    void sinkDescriptor_withOffload_isSmall_andTheGroupIsEncodedOnceForAllSinks()
            throws IOException {
        ExecutionTopology topology = twoVertices(10_000, ResultPartitionType.BLOCKING);
        StaticShuffleDescriptors shuffle = new StaticShuffleDescriptors(topology.jobGraph(), 1_000);
        InMemoryBlobStore blobs = new InMemoryBlobStore();
        DeploymentDescriptors descriptors =
                new DeploymentDescriptors(JOB, topology, shuffle, blobs, OffloadOptions.DEFAULT);

        long sinkBytes = 0;
        for (int task = 10_000; task < 20_000; task++) {
            sinkBytes += descriptors.create(task, 0).encode().length;
        }
        TaskDeploymentDescriptor sink = descriptors.create(12_345, 0);

        assertThat(descriptors.encodedGroups()).isEqualTo(1);
        assertThat(blobs.puts()).isEqualTo(1);
        assertThat(sink.inputs()).singleElement().isInstanceOf(InputDescriptor.Offloaded.class);
        assertThat(sink.encode().length).isLessThan(256);
        assertThat(sinkBytes / 10_000).isLessThan(256);
        // before compression: at most 4 bytes per shuffle descriptor over 1,000 workers
        assertThat(descriptors.rawBytes()).isLessThanOrEqualTo(4L * 10_000);
        assertThat(TaskDeploymentDescriptor.decode(sink.encode())).isEqualTo(sink);
        descriptors.close();
    }

    /**
     * Round-robin placement makes consecutive producers' workers differ by one, which the DELTAS
     * column writes in a byte; random placement over 1,000 workers costs its entropy before
     * compression, 10 bits a descriptor (PACKED), and is not deflated.
     */
    @Test
    void randomPlacementOverAThousandWorkers_costsTenBitsADescriptor() {
        ExecutionTopology topology = twoVertices(10_000, ResultPartitionType.BLOCKING);
        StaticShuffleDescriptors random =
                StaticShuffleDescriptors.randomPlacement(topology.jobGraph(), 1_000, 7);

        GroupDescriptors.Encoded encoded = GroupDescriptors.encode(topology, 0, random, true);

        assertThat(encoded.rawPayloadBytes()).isBetween(10_000 * 10 / 8, 10_000 * 10 / 8 + 16);
        assertThat(encoded.bytes()[3]).isEqualTo((byte) Envelope.CODEC_NONE);
        GroupDescriptors decoded = GroupDescriptors.decode(encoded.bytes());
        for (int i = 0; i < 10_000; i++) {
            assertThat(decoded.worker(i)).isEqualTo(random.workerOfTask(i));
        }
    }

    @Test
    void withoutOffload_theSameBytesAreSharedInline_andDecodeOnTheWorker() throws IOException {
        ExecutionTopology topology = twoVertices(2_000, ResultPartitionType.PIPELINED);
        StaticShuffleDescriptors shuffle = new StaticShuffleDescriptors(topology.jobGraph(), 100);
        DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        JOB, topology, shuffle, new InMemoryBlobStore(), OffloadOptions.NEVER);

        InputDescriptor a = descriptors.create(2_000, 0).inputs().get(0);
        InputDescriptor b = descriptors.create(3_999, 0).inputs().get(0);

        assertThat(a).isInstanceOf(InputDescriptor.Inline.class);
        assertThat(b).isInstanceOf(InputDescriptor.Inline.class);
        byte[] bytes = ((InputDescriptor.Inline) a).encodedGroup();
        assertThat(bytes).isSameAs(((InputDescriptor.Inline) b).encodedGroup());
        GroupDescriptors group = GroupDescriptors.decode(bytes);
        assertThat(group.size()).isEqualTo(2_000);
        for (int i = 0; i < group.size(); i++) {
            assertThat(group.worker(i)).isEqualTo(i % 100);
            assertThat(group.producerAttempt(i)).isZero();
        }
    }

    @Test
    void newProducerAttempt_invalidatesTheGroupAndItsBlob_andTheNextDescriptorCarriesIt()
            throws IOException {
        ExecutionTopology topology = twoVertices(3_000, ResultPartitionType.BLOCKING);
        StaticShuffleDescriptors shuffle = new StaticShuffleDescriptors(topology.jobGraph(), 10);
        InMemoryBlobStore blobs = new InMemoryBlobStore();
        DeploymentDescriptors descriptors =
                new DeploymentDescriptors(JOB, topology, shuffle, blobs, OffloadOptions.DEFAULT);
        BlobKey before = blobKey(descriptors.create(3_000, 0));

        shuffle.setProducerAttempt(17, 1);
        descriptors.invalidatePartition(17);

        assertThat(descriptors.isCached(0)).isFalse();
        assertThat(blobs.referenceCount(before)).isZero();
        assertThat(blobs.numBlobs()).isZero();
        BlobKey after = blobKey(descriptors.create(3_000, 1));
        assertThat(after).isNotEqualTo(before);
        GroupDescriptors group =
                new WorkerDescriptorCache(blobs).resolve(InputDescriptor.offloaded(0, 0, 1, after));
        assertThat(group.producerAttempt(17)).isEqualTo(1);
        assertThat(group.producerAttempt(16)).isZero();
        descriptors.close();
        assertThat(blobs.numBlobs()).isZero();
    }

    @Test
    void workerCache_fetchesEachOffloadedGroupOnce() throws IOException {
        ExecutionTopology topology = twoVertices(3_000, ResultPartitionType.BLOCKING);
        InMemoryBlobStore blobs = new InMemoryBlobStore();
        DeploymentDescriptors descriptors =
                descriptors(topology, 10, blobs, OffloadOptions.DEFAULT);
        WorkerDescriptorCache worker = new WorkerDescriptorCache(blobs);

        for (int task = 3_000; task < 6_000; task++) {
            byte[] shipped = descriptors.create(task, 0).encode();
            InputDescriptor input = TaskDeploymentDescriptor.decode(shipped).inputs().get(0);
            assertThat(worker.resolve(input).size()).isEqualTo(3_000);
        }

        assertThat(worker.fetches()).isEqualTo(1);
        assertThat(blobs.gets()).isEqualTo(1);
        descriptors.close();
    }

    /** The job's secret reaches every worker inside its descriptors, and nowhere in their text. */
    @Test
    void everyDescriptor_carriesTheJobsSecret_andHidesIt() throws IOException {
        ExecutionTopology topology = twoVertices(4, ResultPartitionType.BLOCKING);
        JobSecret secret = JobSecret.random();
        DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        JOB,
                        secret,
                        topology,
                        new StaticShuffleDescriptors(topology.jobGraph(), 2),
                        new InMemoryBlobStore(),
                        OffloadOptions.DEFAULT);
        for (int task = 0; task < 8; task++) {
            TaskDeploymentDescriptor shipped =
                    TaskDeploymentDescriptor.decode(descriptors.create(task, 0).encode());
            assertThat(shipped.secret()).as("task %s", task).isEqualTo(secret);
            assertThat(shipped.secret().bytes()).isEqualTo(secret.bytes());
        }
        String hex = java.util.HexFormat.of().formatHex(secret.bytes());
        assertThat(descriptors.create(5, 0).toString()).doesNotContain(hex).contains("hidden");
        assertThat(descriptors.secret()).isEqualTo(secret);
        assertThat(
                        descriptors(topology, 2, new InMemoryBlobStore(), OffloadOptions.DEFAULT)
                                .secret())
                .as("another job draws its own")
                .isNotEqualTo(secret);
    }

    @Test
    void producedPartitions_listSubpartitionsAndType() throws IOException {
        ExecutionTopology topology = twoVertices(7, ResultPartitionType.HYBRID_FULL);
        DeploymentDescriptors descriptors =
                descriptors(topology, 3, new InMemoryBlobStore(), OffloadOptions.DEFAULT);

        TaskDeploymentDescriptor source = descriptors.create(2, 4);

        assertThat(source.attempt()).isEqualTo(4);
        assertThat(source.inputs()).isEmpty();
        assertThat(source.produced())
                .containsExactly(new ProducedPartition(2, 0, 7, ResultPartitionType.HYBRID_FULL));
    }

    @Test
    void badArguments_areRejectedWithNames() {
        ExecutionTopology topology = twoVertices(3, ResultPartitionType.BLOCKING);
        DeploymentDescriptors descriptors =
                descriptors(topology, 3, new InMemoryBlobStore(), OffloadOptions.DEFAULT);

        assertThatThrownBy(() -> descriptors.create(6, 0))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("task (6)");
        assertThatThrownBy(() -> descriptors.create(0, -1))
                .hasMessage("attempt must be >= 0, was -1");
        assertThatThrownBy(() -> new OffloadOptions(true, 0, 1, true))
                .hasMessage("edgeThreshold must be >= 1, was 0");
        assertThatThrownBy(() -> new StaticShuffleDescriptors(topology.jobGraph(), 0))
                .hasMessageContaining("numWorkers must be in [1, 1048576], was 0");
        assertThatThrownBy(() -> new BlobKey("../etc/passwd"))
                .hasMessageContaining("a blob key is 64 lower-case hex digits");
        assertThatThrownBy(() -> new BlobKey("A".repeat(64)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BlobKey("a".repeat(63) + "\0"))
                .hasMessageContaining("\\u0000");
    }

    /** The blob key of {@code descriptor}'s first input, which must be offloaded. */
    private static BlobKey blobKey(TaskDeploymentDescriptor descriptor) {
        InputDescriptor input = descriptor.inputs().get(0);
        assertThat(input).isInstanceOf(InputDescriptor.Offloaded.class);
        return ((InputDescriptor.Offloaded) input).key();
    }
}
