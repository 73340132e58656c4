package io.railyard.deployment;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.AdditionalAnswers.delegatesTo;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.RandomJobGraphs;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Slices encode large groups in steps ({@link GroupEncoding}): the same descriptors and blobs as
 * one loop of {@link DeploymentDescriptors#create}, nothing visible before a group is finished, an
 * invalidated group starts over, every slice within its budget, a failed put retried.
 */
class DeploymentSlicesGroupTest {
    private static final JobId JOB = new JobId(0x5118, 0x18);
    // One secret for every cache of a test: descriptors of two caches are compared byte for byte.
    private static final JobSecret SECRET = JobSecret.of(new byte[JobSecret.BYTES]);

    private static JobGraph allToAll(int sources, int sinks) {
        return JobGraph.builder()
                .addVertex("source", sources)
                .addVertex("sink", sinks)
                .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                .build();
    }

    /** Shapes with stepped groups: shared, one-consumer, two inputs, mixed with small groups. */
    private static JobGraph shape(String name) {
        return switch (name) {
            case "all-to-all 3000 x 40" -> allToAll(3_000, 40);
            case "all-to-all 500 x 1" -> allToAll(500, 1);
            case "pointwise 2000 -> 10" ->
                    JobGraph.builder()
                            .addVertex("source", 2_000)
                            .addVertex("sink", 10)
                            .connect("source", "sink", POINTWISE, ResultPartitionType.BLOCKING)
                            .build();
            case "two inputs" ->
                    JobGraph.builder()
                            .addVertex("a", 200)
                            .addVertex("b", 30)
                            .addVertex("c", 700)
                            .addVertex("join", 12)
                            .connect("a", "join", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                            .connect("b", "join", POINTWISE, ResultPartitionType.PIPELINED)
                            .connect("c", "join", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                            .build();
            default -> RandomJobGraphs.generate(name.hashCode(), new RandomJobGraphs.Shape(8, 400));
        };
    }

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        String[] shapes = {
            "all-to-all 3000 x 40",
            "all-to-all 500 x 1",
            "pointwise 2000 -> 10",
            "two inputs",
            "random 1",
            "random 2",
            "random 3"
        };
        for (String shape : shapes) {
            for (boolean compress : new boolean[] {true, false}) {
                for (boolean offload : new boolean[] {true, false}) {
                    cases.add(Arguments.of(shape, compress, offload));
                }
            }
        }
        return cases.stream();
    }

    private static OffloadOptions options(boolean compress, boolean offload) {
        // Offloading from 64 x 64 descriptors x consumers or 2 KiB: some groups go, some stay.
        return new OffloadOptions(offload, 64L * 64L, 2_048, compress);
    }

    /** A deployment: the placement, the store and the descriptors, with a random placement. */
    private static final class Deployment implements AutoCloseable {
        final StaticShuffleDescriptors shuffle;
        final InMemoryBlobStore blobs = new InMemoryBlobStore();
        final DeploymentDescriptors descriptors;

        Deployment(JobGraph graph, OffloadOptions options) {
            ExecutionTopology topology = ExecutionTopology.of(graph);
            shuffle = StaticShuffleDescriptors.randomPlacement(graph, 300, 18L);
            descriptors = new DeploymentDescriptors(JOB, SECRET, topology, shuffle, blobs, options);
        }

        /** One loop of create over [from, to): the oracle. */
        List<byte[]> oneLoop(int from, int to) throws IOException {
            List<byte[]> shipped = new ArrayList<>();
            for (int task = from; task < to; task++) {
                shipped.add(descriptors.create(task, task % 2).encode());
            }
            return shipped;
        }

        @Override
        public void close() throws IOException {
            descriptors.close();
        }
    }

    /** Runs every slice, checking the invariants after each; returns what was shipped. */
    private static List<byte[]> drain(DeploymentSlices slices, DeploymentDescriptors descriptors)
            throws IOException {
        List<byte[]> shipped = new ArrayList<>();
        boolean more = true;
        while (more) {
            more = slices.runSlice((task, attempt, bytes) -> shipped.add(bytes));
            descriptors.checkInvariants();
        }
        return shipped;
    }

    @ParameterizedTest(name = "{0}, compress {1}, offload {2}")
    @MethodSource("cases")
    void slices_sameDescriptorsBlobsAndCountsAsOneLoop(
            String shape, boolean compress, boolean offload) throws IOException {
        JobGraph graph = shape(shape);
        OffloadOptions options = options(compress, offload);
        for (int maxTasks : new int[] {1, 7, 300, 100_000}) {
            try (Deployment loop = new Deployment(graph, options);
                    Deployment sliced = new Deployment(graph, options)) {
                List<byte[]> expected = loop.oneLoop(0, graph.numTasks());
                DeploymentSlices slices =
                        DeploymentSlices.over(
                                sliced.descriptors,
                                0,
                                graph.numTasks(),
                                t -> t % 2,
                                SliceBudget.ofTasks(maxTasks));
                List<byte[]> shipped = drain(slices, sliced.descriptors);
                assertThat(shipped)
                        .as("%s tasks a slice", maxTasks)
                        .containsExactlyElementsOf(expected);
                assertThat(sliced.descriptors.encodedGroups())
                        .isEqualTo(loop.descriptors.encodedGroups());
                assertThat(sliced.descriptors.encodedBytes())
                        .isEqualTo(loop.descriptors.encodedBytes());
                assertThat(sliced.descriptors.rawBytes()).isEqualTo(loop.descriptors.rawBytes());
                assertThat(sliced.blobs.numBlobs()).isEqualTo(loop.blobs.numBlobs());
                assertThat(sliced.blobs.puts()).isEqualTo(loop.blobs.puts());
                assertThat(sliced.descriptors.pendingEncodings()).isZero();
                ExecutionTopology topology = ExecutionTopology.of(graph);
                for (int g = 0; g < topology.numGroups(); g++) {
                    if (loop.descriptors.isCached(g)) {
                        assertThat(sliced.descriptors.isCached(g)).as("group %s", g).isTrue();
                    }
                }
                if (maxTasks == 1 && shape.startsWith("all-to-all 3000")) {
                    assertThat(slices.groupEncodingUnits()).isPositive();
                }
            }
        }
    }

    @Test
    void groupSplitAcrossSlices_isInvisibleUntilFinished() throws IOException {
        JobGraph graph = allToAll(3_000, 3);
        try (Deployment d = new Deployment(graph, options(true, true))) {
            DeploymentSlices slices =
                    DeploymentSlices.over(
                            d.descriptors, 3_000, 3_003, t -> 0, SliceBudget.ofTasks(50));
            int stepped = 0;
            while (!d.descriptors.isCached(0)) {
                assertThat(slices.runSlice((task, attempt, bytes) -> {})).isTrue();
                d.descriptors.checkInvariants();
                if (!d.descriptors.isCached(0)) {
                    stepped++;
                    assertThat(d.descriptors.pendingEncodings()).isOne();
                    assertThat(d.blobs.numBlobs()).isZero();
                    assertThat(d.blobs.puts()).isZero();
                    assertThat(d.descriptors.encodedGroups()).isZero();
                    assertThat(slices.deployedTasks()).isZero();
                }
            }
            assertThat(stepped).as("slices that only stepped the group").isGreaterThan(10);
            assertThat(d.descriptors.pendingEncodings()).isZero();
            assertThat(d.blobs.numBlobs()).isOne();
            assertThat(d.descriptors.encodedGroups()).isOne();
            while (slices.runSlice((task, attempt, bytes) -> {})) {
                // drain
            }
            assertThat(slices.deployedTasks()).isEqualTo(3);
        }
    }

    /**
     * Partition 5 gets a new producer attempt after k slices, for every k while the group of its
     * consumers is being encoded: the sinks' descriptors must name the new attempt, with the bytes
     * a fresh one loop gives, whatever column or phase the encoding was in.
     */
    @Test
    void invalidationDuringEncoding_restartsIt_noStaleDescriptor() throws IOException {
        JobGraph graph = allToAll(400, 2);
        OffloadOptions options = options(true, true);
        int k = 0;
        boolean reachedTheEnd = false;
        while (!reachedTheEnd) {
            k++;
            try (Deployment d = new Deployment(graph, options);
                    Deployment oracle = new Deployment(graph, options)) {
                DeploymentSlices slices =
                        DeploymentSlices.over(
                                d.descriptors, 400, 402, t -> 0, SliceBudget.ofTasks(3));
                List<byte[]> shipped = new ArrayList<>();
                for (int i = 0; i < k && !d.descriptors.isCached(0); i++) {
                    slices.runSlice((task, attempt, bytes) -> shipped.add(bytes));
                }
                reachedTheEnd = d.descriptors.isCached(0);
                assertThat(shipped).isEmpty();
                d.shuffle.setProducerAttempt(5, 3);
                d.descriptors.invalidatePartition(5);
                d.descriptors.checkInvariants();
                assertThat(d.descriptors.pendingEncodings()).isZero();
                shipped.addAll(drain(slices, d.descriptors));
                oracle.shuffle.setProducerAttempt(5, 3);
                List<byte[]> expected = new ArrayList<>();
                for (int task = 400; task < 402; task++) {
                    expected.add(oracle.descriptors.create(task, 0).encode());
                }
                assertThat(shipped)
                        .as("invalidated after %s slices", k)
                        .containsExactlyElementsOf(expected);
                WorkerDescriptorCache worker = new WorkerDescriptorCache(d.blobs);
                InputDescriptor input =
                        TaskDeploymentDescriptor.decode(shipped.get(1)).inputs().get(0);
                assertThat(worker.resolve(input).producerAttempt(5)).isEqualTo(3);
            }
        }
        assertThat(k).as("slices the encoding took").isGreaterThan(20);
    }

    /** A source that counts its reads, to see how much group work each slice does. */
    private static final class CountingSource implements ShuffleDescriptorSource {
        final ShuffleDescriptorSource inner;
        long reads;
        Runnable onRead = () -> {};

        CountingSource(ShuffleDescriptorSource inner) {
            this.inner = inner;
        }

        @Override
        public WorkerTable workers() {
            return inner.workers();
        }

        @Override
        public int worker(int partition) {
            reads++;
            onRead.run();
            return inner.worker(partition);
        }

        @Override
        public int connectionIndex(int partition) {
            reads++;
            onRead.run();
            return inner.connectionIndex(partition);
        }

        @Override
        public int producerAttempt(int partition) {
            reads++;
            onRead.run();
            return inner.producerAttempt(partition);
        }
    }

    @Test
    void taskBudget_boundsTheGroupWorkOfEverySlice() throws IOException {
        JobGraph graph = allToAll(5_000, 20);
        ExecutionTopology topology = ExecutionTopology.of(graph);
        CountingSource source =
                new CountingSource(StaticShuffleDescriptors.randomPlacement(graph, 300, 4L));
        int maxTasks = 10;
        try (DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        JOB,
                        SECRET,
                        topology,
                        source,
                        new InMemoryBlobStore(),
                        options(true, true))) {
            DeploymentSlices slices =
                    DeploymentSlices.over(
                            descriptors,
                            0,
                            graph.numTasks(),
                            t -> 0,
                            SliceBudget.ofTasks(maxTasks));
            boolean more = true;
            int finishOnly = 0;
            while (more) {
                long readsBefore = source.reads;
                long unitsBefore = slices.groupEncodingUnits();
                long tasksBefore = slices.deployedTasks();
                long groupsBefore = descriptors.encodedGroups();
                more = slices.runSlice((task, attempt, bytes) -> {});
                long units = slices.groupEncodingUnits() - unitsBefore;
                long tasks = slices.deployedTasks() - tasksBefore;
                assertThat(source.reads - readsBefore)
                        .isLessThanOrEqualTo(units * GroupEncoding.VALUES_PER_UNIT);
                if (units + tasks > maxTasks) {
                    // the finish, not cut, alone in its slice
                    assertThat(tasks).isZero();
                    assertThat(descriptors.encodedGroups()).isEqualTo(groupsBefore + 1);
                    finishOnly++;
                }
            }
            assertThat(finishOnly).isOne();
            assertThat(source.reads).isEqualTo(3 * 5_000);
            assertThat(slices.groupEncodingUnits())
                    .isGreaterThan(5 * 5_000 / GroupEncoding.VALUES_PER_UNIT);
            assertThat(slices.mostSliceUnits()).isGreaterThan(maxTasks);
        }
    }

    /**
     * A manual clock that advances 10 ns per source read: a 100 µs budget stops a slice at the
     * first step that ends past 10,000 reads, so no slice reads more than 10,000 plus one step's.
     */
    @Test
    void timeBudget_isCheckedBetweenGroupSteps() throws IOException {
        JobGraph graph = allToAll(50_000, 2);
        CountingSource source =
                new CountingSource(StaticShuffleDescriptors.randomPlacement(graph, 300, 4L));
        long[] now = {0};
        source.onRead = () -> now[0] += 10;
        SliceBudget budget = new SliceBudget(1_000_000, 100_000, () -> now[0]);
        try (DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        JOB,
                        SECRET,
                        ExecutionTopology.of(graph),
                        source,
                        new InMemoryBlobStore(),
                        options(true, true))) {
            DeploymentSlices slices =
                    DeploymentSlices.over(descriptors, 50_000, 50_002, t -> 0, budget);
            long mostReads = 0;
            int sliceCount = 0;
            boolean more = true;
            while (more) {
                long before = source.reads;
                more = slices.runSlice((task, attempt, bytes) -> {});
                mostReads = Math.max(mostReads, source.reads - before);
                sliceCount++;
            }
            long step = (long) DeploymentDescriptors.MAX_STEP_UNITS * GroupEncoding.VALUES_PER_UNIT;
            assertThat(mostReads).isBetween(10_000L, 10_000 + step);
            assertThat(sliceCount).isGreaterThan(3 * 50_000 / (10_000 + (int) step));
        }
    }

    @Test
    void failingPut_leavesNothingVisible_andTheNextSliceRetriesOnlyThePut() throws IOException {
        JobGraph graph = allToAll(300, 2);
        InMemoryBlobStore real = new InMemoryBlobStore();
        BlobStore store = mock(BlobStore.class, delegatesTo(real));
        IOException diskFull = new IOException("No space left on device");
        doAnswer(
                        invocation -> {
                            throw diskFull;
                        })
                .doAnswer(delegatesTo(real))
                .when(store)
                .put(any(JobId.class), any(byte[].class));
        OffloadOptions always = new OffloadOptions(true, 1, 1 << 20, true);
        ExecutionTopology topology = ExecutionTopology.of(graph);
        CountingSource source =
                new CountingSource(StaticShuffleDescriptors.randomPlacement(graph, 300, 18L));
        List<byte[]> expected;
        try (DeploymentDescriptors oracle =
                new DeploymentDescriptors(
                        JOB, SECRET, topology, source, new InMemoryBlobStore(), always)) {
            expected = List.of(oracle.create(300, 0).encode(), oracle.create(301, 0).encode());
        }
        source.reads = 0;
        try (DeploymentDescriptors descriptors =
                new DeploymentDescriptors(JOB, SECRET, topology, source, store, always)) {
            DeploymentSlices slices =
                    DeploymentSlices.over(
                            descriptors, 300, 302, t -> 0, SliceBudget.ofTasks(1_000));
            List<byte[]> shipped = new ArrayList<>();
            DeploymentSlices.DescriptorConsumer ship = (task, attempt, bytes) -> shipped.add(bytes);
            IOException failure = null;
            while (failure == null && slices.hasMore()) {
                try {
                    slices.runSlice(ship);
                } catch (IOException e) {
                    failure = e;
                }
            }
            assertThat(failure)
                    .hasMessageContaining("group 0")
                    .hasMessageContaining("No space left on device")
                    .hasCause(diskFull);
            assertThat(descriptors.isCached(0)).isFalse();
            assertThat(real.numBlobs()).isZero();
            assertThat(descriptors.encodedGroups()).isZero();
            assertThat(descriptors.pendingEncodings()).isOne();
            assertThat(shipped).isEmpty();
            descriptors.checkInvariants();
            long readsBefore = source.reads;
            assertThat(readsBefore).isEqualTo(3 * 300);
            while (slices.runSlice(ship)) {
                // drain
            }
            assertThat(source.reads).as("the retry re-read nothing").isEqualTo(readsBefore);
            assertThat(shipped).containsExactlyElementsOf(expected);
            assertThat(descriptors.isCached(0)).isTrue();
            assertThat(descriptors.pendingEncodings()).isZero();
            assertThat(real.numBlobs()).isOne();
        }
    }

    @Test
    void failingSource_dropsTheHalfDoneEncoding_andTheNextSliceStartsOver() throws IOException {
        JobGraph graph = allToAll(300, 2);
        CountingSource source =
                new CountingSource(StaticShuffleDescriptors.randomPlacement(graph, 300, 18L));
        boolean[] fail = {false};
        source.onRead =
                () -> {
                    if (fail[0] && source.reads == 500) {
                        throw new IllegalStateException("shuffle master unavailable");
                    }
                };
        fail[0] = true;
        try (DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        JOB,
                        SECRET,
                        ExecutionTopology.of(graph),
                        source,
                        new InMemoryBlobStore(),
                        options(true, true))) {
            DeploymentSlices slices =
                    DeploymentSlices.over(descriptors, 300, 302, t -> 0, SliceBudget.ofTasks(5));
            assertThatThrownBy(
                            () -> {
                                while (slices.runSlice((task, attempt, bytes) -> {})) {
                                    // until the source fails
                                }
                            })
                    .hasMessage("shuffle master unavailable");
            assertThat(descriptors.pendingEncodings()).isZero();
            assertThat(descriptors.isCached(0)).isFalse();
            fail[0] = false;
            source.reads = 0;
            while (slices.runSlice((task, attempt, bytes) -> {})) {
                // drain
            }
            assertThat(source.reads).as("started over").isEqualTo(3 * 300);
            assertThat(slices.deployedTasks()).isEqualTo(2);
        }
    }

    @Test
    void close_discardsPendingEncodings() throws IOException {
        JobGraph graph = allToAll(3_000, 2);
        Deployment d = new Deployment(graph, options(true, true));
        DeploymentSlices slices =
                DeploymentSlices.over(d.descriptors, 3_000, 3_002, t -> 0, SliceBudget.ofTasks(20));
        for (int i = 0; i < 80; i++) { // into the deflate phase (about slices 47 to 122)
            slices.runSlice((task, attempt, bytes) -> {});
        }
        assertThat(d.descriptors.pendingEncodings()).isOne();
        d.close();
        assertThat(d.descriptors.pendingEncodings()).isZero();
        assertThat(d.blobs.numBlobs()).isZero();
    }
}
