package io.railyard.worker;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.deployment.DeploymentDescriptors;
import io.railyard.deployment.InMemoryBlobStore;
import io.railyard.deployment.JobId;
import io.railyard.deployment.JobSecret;
import io.railyard.deployment.OffloadOptions;
import io.railyard.deployment.StaticShuffleDescriptors;
import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.groups.ExecutionTopology;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.ResultPartitionWriter;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import io.railyard.topology.ResultPartitionType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The descriptor adapter: a task's encoded deployment descriptor in, its writers and gates out — on
 * two workers, each reading its own partitions from its registry and the other's through the
 * locator, as a worker in another process will through the network.
 */
class ShuffleEnvironmentTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(256).build();
    private static final int P = 2;
    private final InMemoryBlobStore blobs = new InMemoryBlobStore();
    private final AtomicInteger remoteLookups = new AtomicInteger();
    private final List<ShuffleEnvironment> workers = new ArrayList<>();
    @TempDir Path dir;

    @BeforeEach
    void setUp() throws Exception {
        for (int w = 0; w < 2; w++) {
            ShuffleWorker shuffle = new ShuffleWorker(OPTIONS, dir.resolve("w" + w));
            workers.add(
                    new ShuffleEnvironment(w, shuffle, PartitionKind.SORT, blobs, this::remote));
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        for (ShuffleEnvironment worker : workers) {
            worker.partitions().releaseAll();
            worker.shuffle().close();
        }
    }

    private PartitionRegistry remote(int worker) {
        remoteLookups.incrementAndGet();
        return workers.get(worker).partitions();
    }

    /** source (P) -> sink (P), all-to-all of {@code type}; task t runs on worker t mod 2. */
    private static JobGraph job(ResultPartitionType type) {
        return JobGraph.builder()
                .addVertex("source", P)
                .addVertex("sink", P)
                .connect("source", "sink", ALL_TO_ALL, type)
                .build();
    }

    private static List<TaskDeploymentDescriptor> descriptors(JobGraph graph) throws Exception {
        return descriptors(graph, 2);
    }

    /**
     * Every task's descriptor (attempt 0) of {@code graph} on {@code workers} workers (task t on
     * worker t mod workers), through the bytes, as a worker receives them.
     */
    static List<TaskDeploymentDescriptor> descriptors(JobGraph graph, int workers)
            throws Exception {
        List<TaskDeploymentDescriptor> all = new ArrayList<>();
        for (byte[] bytes : encoded(graph, workers)) {
            all.add(TaskDeploymentDescriptor.decode(bytes));
        }
        return all;
    }

    /** Every task's encoded descriptor (attempt 0), as {@link #descriptors} places them. */
    static List<byte[]> encoded(JobGraph graph, int workers) throws Exception {
        DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        new JobId(1, 2),
                        ExecutionTopology.of(graph),
                        new StaticShuffleDescriptors(graph, workers),
                        new InMemoryBlobStore(),
                        OffloadOptions.NEVER);
        List<byte[]> all = new ArrayList<>();
        for (int task = 0; task < graph.numTasks(); task++) {
            all.add(descriptors.create(task, 0).encode());
        }
        return all;
    }

    /** An attempt that is never cancelled. */
    static final TaskShuffle.Attempt RUNNING =
            new TaskShuffle.Attempt() {
                @Override
                public boolean isCancelled() {
                    return false;
                }

                @Override
                public void checkNotCancelled() {}
            };

    @ParameterizedTest
    @EnumSource(
            value = ResultPartitionType.class,
            names = {"BLOCKING", "HYBRID_FULL"})
    void descriptorsIn_writersAndGatesOut_acrossWorkers(ResultPartitionType type) throws Exception {
        JobGraph graph = job(type);
        List<TaskDeploymentDescriptor> tasks = descriptors(graph);

        for (int source = 0; source < P; source++) {
            TaskShuffle shuffle = workers.get(source % 2).deploy(tasks.get(source), RUNNING);
            assertThat(shuffle.tryStart(false)).isInstanceOf(TaskShuffle.Start.Started.class);
            ResultPartitionWriter out = shuffle.output(0);
            assertThat(out.kind())
                    .isEqualTo(
                            type == ResultPartitionType.BLOCKING
                                    ? PartitionKind.SORT
                                    : PartitionKind.HYBRID_FULL);
            for (int sink = 0; sink < P; sink++) {
                out.emit(utf8("from " + source + " to " + sink), sink);
            }
            shuffle.finish();
            shuffle.close();
        }
        for (int sink = 0; sink < P; sink++) {
            int task = P + sink;
            TaskShuffle shuffle = workers.get(task % 2).deploy(tasks.get(task), RUNNING);
            List<InputGate> gates = shuffle.openInputGates();

            assertThat(gates).hasSize(1);
            assertThat(readAll(gates.get(0)))
                    .containsExactlyInAnyOrder("from 0 to " + sink, "from 1 to " + sink);
            shuffle.close();
        }
        assertThat(remoteLookups)
                .as("each sink reads one partition of the other worker")
                .hasValue(2);
    }

    /**
     * Pipelined sources on one worker start while, after their own writer's pledge, the pages
     * pledged to the pipelined writers running there stay spare (room for those writers' resident
     * regions); one beyond that waits for spare pages, and starts once a running writer finished.
     * Sinks do not wait so, and the count goes back to 0.
     */
    @Test
    void pipelinedSources_startWhileTheRunningWritersPledgeStaysSpare() throws Exception {
        int sources = 8;
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", sources)
                        .addVertex("sink", 1)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.PIPELINED)
                        .build();
        List<TaskDeploymentDescriptor> tasks = descriptors(graph, 1);
        ShuffleEnvironment worker = workers.get(0);
        int pages = worker.shuffle().writerPages(PartitionKind.PIPELINED, 1);
        List<TaskShuffle> started = new ArrayList<>();
        TaskShuffle waiting = null;
        TaskShuffle.Start.AwaitSpare wait = null;
        for (int source = 0; source < sources && waiting == null; source++) {
            TaskShuffle shuffle = worker.deploy(tasks.get(source), RUNNING);
            int spare = worker.shuffle().bufferPool().sparePages();
            int reserve = worker.streamingWriterPages();
            TaskShuffle.Start start = shuffle.tryStart(true);
            if (start instanceof TaskShuffle.Start.AwaitSpare spareWait) {
                assertThat(spare)
                        .as("fits alone, not beside the reserve")
                        .isBetween(pages, pages + reserve - 1);
                waiting = shuffle;
                wait = spareWait;
            } else {
                assertThat(start).isInstanceOf(TaskShuffle.Start.Started.class);
                assertThat(spare).isGreaterThanOrEqualTo(pages + reserve);
                started.add(shuffle);
            }
        }
        assertThat(waiting)
                .as("the pool of 256 pages cannot hold 8 writers beside their reserve")
                .isNotNull();
        assertThat(started).hasSizeGreaterThan(1);
        assertThat(wait.pages()).isEqualTo(pages + started.size() * pages);
        assertThat(worker.streamingWriterPages()).isEqualTo(started.size() * pages);

        TaskShuffle sink = worker.deploy(tasks.get(sources), RUNNING);
        assertThat(sink.tryStart(true))
                .as("a sink never waits for spare pages")
                .isInstanceOf(TaskShuffle.Start.Started.class);
        for (TaskShuffle done : started) {
            done.finish();
            done.close();
        }
        assertThat(worker.streamingWriterPages()).isZero();
        assertThat(waiting.tryStart(true)).isInstanceOf(TaskShuffle.Start.Started.class);
        assertThat(worker.streamingWriterPages()).isEqualTo(pages);
        waiting.close();
        sink.close();
        assertThat(worker.streamingWriterPages()).isZero();
    }

    @Test
    void aReleasedInput_failsTheGate_namingThePartition() throws Exception {
        JobGraph graph = job(ResultPartitionType.BLOCKING);
        List<TaskDeploymentDescriptor> tasks = descriptors(graph);
        for (int source = 0; source < P; source++) {
            TaskShuffle shuffle = workers.get(source % 2).deploy(tasks.get(source), RUNNING);
            assertThat(shuffle.tryStart(false)).isInstanceOf(TaskShuffle.Start.Started.class);
            shuffle.finish();
        }
        workers.get(1).partitions().release(new PartitionId(1, 0)); // on the other worker

        TaskShuffle sink = workers.get(0).deploy(tasks.get(2), RUNNING);

        assertThatThrownBy(sink::openInputGates)
                .isInstanceOf(PartitionLostException.class)
                .satisfies(
                        e ->
                                assertThat(((PartitionLostException) e).partitionId())
                                        .isEqualTo(new PartitionId(1, 0)));
        sink.close();
    }

    /**
     * With {@code ownDirectly}, a sink reads the source partition of its own worker directly and
     * the other worker's through the network reader — one gate, each record under the channel of
     * its partition (channel i reads source i).
     */
    @ParameterizedTest
    @EnumSource(
            value = ResultPartitionType.class,
            names = {"BLOCKING", "HYBRID_FULL"})
    void ownPartitionsDirectly_othersThroughTheNetwork_oneGate(ResultPartitionType type)
            throws Exception {
        List<List<PartitionId>> askedOverNetwork = new ArrayList<>();
        List<JobSecret> served = new ArrayList<>();
        List<JobSecret> proved = new ArrayList<>();
        List<ShuffleEnvironment> mixed = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            ShuffleEnvironment plain = workers.get(w);
            ShuffleNetwork network =
                    new ShuffleNetwork() {
                        @Override
                        public void serve(
                                JobId job, JobSecret secret, PartitionRegistry partitions) {
                            served.add(secret);
                        }

                        @Override
                        public InputGate openGate(
                                String name,
                                JobId job,
                                JobSecret secret,
                                int[] holders,
                                List<PartitionId> ids,
                                int subpartition) {
                            askedOverNetwork.add(ids);
                            proved.add(secret);
                            return readThroughTheirShuffle(name, holders, ids, subpartition);
                        }
                    };
            mixed.add(
                    new ShuffleEnvironment(
                            w,
                            plain.shuffle(),
                            PartitionKind.SORT,
                            blobs,
                            this::remote,
                            network,
                            true));
        }
        JobGraph graph = job(type);
        List<TaskDeploymentDescriptor> tasks = descriptors(graph);
        for (int source = 0; source < P; source++) {
            ShuffleEnvironment on = mixed.get(source % 2);
            TaskShuffle shuffle = on.deploy(tasks.get(source), RUNNING);
            assertThat(shuffle.tryStart(false)).isInstanceOf(TaskShuffle.Start.Started.class);
            for (int sink = 0; sink < P; sink++) {
                shuffle.output(0).emit(utf8("from " + source + " to " + sink), sink);
            }
            shuffle.finish();
            shuffle.close();
            // Registered on the mixed environment's registry: make the plain one see it too.
            PartitionId id = new PartitionId(source, 0);
            workers.get(source % 2)
                    .partitions()
                    .register(id, on.partitions().await(id, RUNNING), () -> false);
        }
        for (int sink = 0; sink < P; sink++) {
            int task = P + sink;
            TaskShuffle shuffle = mixed.get(task % 2).deploy(tasks.get(task), RUNNING);
            List<InputGate> gates = shuffle.openInputGates();

            assertThat(gates).hasSize(1);
            assertThat(gates.get(0).numChannels()).isEqualTo(P);
            Map<Integer, List<String>> byChannel = readByChannel(gates.get(0));
            for (int source = 0; source < P; source++) {
                assertThat(byChannel.get(source))
                        .as("channel %s", source)
                        .containsExactly("from " + source + " to " + sink);
            }
            shuffle.close();
        }
        assertThat(askedOverNetwork)
                .as("each sink asks the network for the other worker's partition only")
                .containsExactlyInAnyOrder(
                        List.of(new PartitionId(1, 0)), List.of(new PartitionId(0, 0)));
        JobSecret secret = tasks.get(0).secret();
        assertThat(served)
                .as("each deployment has the network serve its job with its descriptor's secret")
                .hasSize(2 * P)
                .containsOnly(secret);
        assertThat(proved).as("and each gate proves it").containsOnly(secret);
        for (ShuffleEnvironment environment : mixed) {
            environment.partitions().releaseAll();
        }
    }

    /**
     * Another worker's partitions, read by that worker's shuffle layer: the transport's part, which
     * TransportTest covers over real sockets.
     */
    private InputGate readThroughTheirShuffle(
            String name, int[] holders, List<PartitionId> ids, int subpartition) {
        List<ResultPartition> read = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            try {
                read.add(workers.get(holders[i]).partitions().await(ids.get(i), RUNNING));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return workers.get(holders[0]).shuffle().openGate(name, read, subpartition);
    }

    private static Map<Integer, List<String>> readByChannel(InputGate gate) throws Exception {
        Map<Integer, List<String>> records = new HashMap<>();
        RecordDecoder decoder = new RecordDecoder(gate.numChannels());
        while (!gate.isFinished()) {
            InputGate.Buffer buffer = gate.poll();
            if (buffer == null) {
                gate.availability().get(10, TimeUnit.SECONDS);
                continue;
            }
            try {
                decoder.decode(
                        buffer.channel(),
                        buffer.data(),
                        (channel, record) ->
                                records.computeIfAbsent(channel, c -> new ArrayList<>())
                                        .add(StandardCharsets.UTF_8.decode(record).toString()));
            } finally {
                buffer.recycle();
            }
        }
        return records;
    }

    static ByteBuffer utf8(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Every record {@code gate} delivers, as UTF-8 text, until it is finished. */
    static List<String> readAll(InputGate gate) throws Exception {
        List<String> records = new ArrayList<>();
        readByChannel(gate).values().forEach(records::addAll);
        return records;
    }
}
