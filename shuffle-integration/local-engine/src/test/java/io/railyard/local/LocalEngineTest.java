package io.railyard.local;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.failover.JobFailedException;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import io.railyard.worker.TaskCode;
import io.railyard.worker.TaskContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Jobs run end to end on the local engine: the JobMaster deploys through the gateway, tasks write
 * and read real partitions, failures go through failover; every record arrives exactly once and
 * nothing is left behind.
 */
class LocalEngineTest {
    /**
     * The engine under test: in-process reads here; {@code *OverTcpTest} runs every test again with
     * every read over TCP.
     */
    LocalEngine engine(
            Path parent, int workers, int slots, ShuffleOptions options, PartitionKind blocking)
            throws IOException {
        return new LocalEngine(parent, workers, slots, options, blocking);
    }

    /**
     * Whether two runs of one job read exactly the same bytes from disk. In-process they do; over
     * TCP a data server's gate (fewer pages than a task's) reads a frame that found no room again
     * at its next turn, as often as timing has it, and the disk counter counts both reads.
     */
    boolean readsAreRepeatable() {
        return true;
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(512).build();

    /** A byte inside the first frame's payload (frame headers are 24 bytes). */
    private static final long FIRST_FRAME_PAYLOAD_BYTE = 40;

    @TempDir Path dir;

    private static JobGraph twoVertices(ResultPartitionType type) {
        return JobGraph.builder()
                .addVertex("source", 4)
                .addVertex("sink", 4)
                .connect("source", "sink", ALL_TO_ALL, type)
                .build();
    }

    /**
     * {@code job}'s code, but sink 0's first attempt loses worker 0 before it reads. Sink 0 runs on
     * worker 0 (placement is round-robin in deployment order), so it fails, whatever its gate has
     * already buffered.
     */
    static TaskCode.Factory losingWorker0(LocalEngine engine, ForwardingJob job) {
        return (vertex, subtask, attempt) -> {
            TaskCode code = job.create(vertex, subtask, attempt);
            if (vertex != 1 || subtask != 0 || attempt != 0) {
                return code;
            }
            return Steps.first(context -> engine.loseWorker(0).get(10, TimeUnit.SECONDS), code);
        };
    }

    private static void assertExact(JobResult result, ForwardingJob job, int sink) {
        assertThat(result.outcome()).as("outcome").isEqualTo(JobResult.FINISHED);
        assertThat(result.committed().get(sink)).isEqualTo(job.expectedReceived()[sink]);
        assertThat(result.leaks().pages()).as("pages left").isZero();
        assertThat(result.leaks().files()).as("files left").isZero();
        assertThat(result.leaks().partitions()).as("partitions nobody released").isZero();
    }

    /** Runs {@code job} on 2 workers of {@code slots} slots: exact after exactly one restart. */
    private void assertExactAfterOneRestart(JobGraph graph, ForwardingJob job, int slots)
            throws Exception {
        try (LocalEngine engine = engine(dir, 2, slots, OPTIONS, PartitionKind.SORT)) {
            JobResult result =
                    engine.run(
                            graph, job, RestartBackoffPolicy.fixedDelay(3, Duration.ZERO), TIMEOUT);

            assertExact(result, job, 1);
            assertThat(result.stats().restarts()).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(ResultPartitionType.class)
    void sourceToSink_deliversEveryRecordOnce(ResultPartitionType type) throws Exception {
        JobGraph graph = twoVertices(type);
        ForwardingJob job = ForwardingJob.of(graph, 2_000, 64, 11);
        try (LocalEngine engine = engine(dir, 2, 4, OPTIONS, PartitionKind.SORT)) {
            JobResult result = engine.run(graph, job, RestartBackoffPolicy.noRestart(), TIMEOUT);

            assertExact(result, job, 1);
            assertThat(result.stats().restarts()).isZero();
            assertThat(result.stats().tasksDeployed()).isEqualTo(8);
        }
    }

    @Test
    void hashShuffle_deliversEveryRecordOnce() throws Exception {
        JobGraph graph = twoVertices(ResultPartitionType.BLOCKING);
        ForwardingJob job = ForwardingJob.of(graph, 2_000, 64, 12);
        try (LocalEngine engine = engine(dir, 2, 2, OPTIONS, PartitionKind.HASH)) {
            assertExact(engine.run(graph, job, RestartBackoffPolicy.noRestart(), TIMEOUT), job, 1);
        }
    }

    /**
     * A consumer whose gate has fewer pages than channels reads sort partitions that producers on
     * the other workers wrote: in-process, its worker's IO thread reads them, and so do the
     * producers' workers' IO threads for their own consumers. Each IO thread serves only the gates
     * of its worker; when the producer's worker's IO thread served the consumer's waiting channels
     * out of turn (joining them to a read of the same file), the consumer waited for ever with its
     * gate's pages held, or lost records. Found by {@link LocalEnginePropertyTest} at small pools.
     */
    @Test
    void aGateWithFewerPagesThanChannels_readingOtherWorkersPartitions_receivesEveryRecord()
            throws Exception {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 6)
                        .addVertex("sink", 2)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .build();
        ShuffleOptions small =
                ShuffleOptions.builder()
                        .pageSizeBytes(256)
                        .sortBufferPages(1)
                        .writeBatchPages(2)
                        .readBatchPages(1)
                        .gatePages(2)
                        .compression(ShuffleOptions.Compression.NONE)
                        .totalPages(40)
                        .build();
        ForwardingJob job = ForwardingJob.of(graph, 300, 32, 29);
        try (LocalEngine engine = engine(dir, 3, 1, small, PartitionKind.SORT)) {
            assertExact(engine.run(graph, job, RestartBackoffPolicy.noRestart(), TIMEOUT), job, 1);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = ResultPartitionType.class,
            names = {"BLOCKING", "HYBRID_FULL", "HYBRID_SELECTIVE"})
    void aSinkFailingMidway_isRestarted_andItsPartialOutputNeverCounts(ResultPartitionType type)
            throws Exception {
        JobGraph graph = twoVertices(type);
        ForwardingJob job = ForwardingJob.of(graph, 2_000, 64, 13).failing(1, 2, 0, 1_000);
        assertExactAfterOneRestart(graph, job, 4);
    }

    @Test
    void aSourceFailingMidway_isRestarted_withItsConsumers() throws Exception {
        JobGraph graph = twoVertices(ResultPartitionType.BLOCKING);
        ForwardingJob job = ForwardingJob.of(graph, 2_000, 64, 14).failing(0, 1, 0, 500);
        assertExactAfterOneRestart(graph, job, 2);
    }

    /** What happens to a partition's file before it is read. */
    enum Damage {
        /** The file is deleted (reliability row 21). */
        DELETED,
        /** A byte of its first frame is flipped: its checksum no longer matches (row 20). */
        CORRUPTED
    }

    /**
     * A producer's partition file deleted or corrupted before its consumer reads it: the consumer's
     * failure names the partition and its attempt, failover restarts the producer, and the output
     * is still exact (no garbage record reaches a sink).
     */
    @ParameterizedTest
    @EnumSource(Damage.class)
    void aPartitionFileDamagedBeforeItIsRead_restartsItsProducer_andTheOutputIsExact(Damage damage)
            throws Exception {
        JobGraph graph = twoVertices(ResultPartitionType.BLOCKING);
        ForwardingJob job = ForwardingJob.of(graph, 2_000, 64, 16);
        List<Path> damaged = new ArrayList<>();
        TaskCode.Factory damaging =
                (vertex, subtask, attempt) -> {
                    if (vertex == 1 && subtask == 0 && attempt == 0) {
                        // Deployed once every source finished, before any consumer reads.
                        damaged.addAll(damageFilesOf("p1.a0", damage));
                    }
                    return job.create(vertex, subtask, attempt);
                };
        try (LocalEngine engine = engine(dir, 1, 1, OPTIONS, PartitionKind.SORT)) {
            JobResult result =
                    engine.run(
                            graph,
                            damaging,
                            RestartBackoffPolicy.fixedDelay(3, Duration.ZERO),
                            TIMEOUT);

            assertThat(damaged).as("the partition's files").isNotEmpty();
            assertExact(result, job, 1);
            assertThat(result.stats().restarts()).isEqualTo(1);
        }
    }

    private List<Path> damageFilesOf(String partition, Damage damage) {
        try (Stream<Path> files = Files.walk(dir)) {
            List<Path> found =
                    files.filter(f -> f.getFileName().toString().startsWith(partition + "."))
                            .toList();
            for (Path file : found) {
                if (damage == Damage.DELETED) {
                    Files.delete(file);
                } else {
                    flipByte(file, FIRST_FRAME_PAYLOAD_BYTE);
                }
            }
            return found;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void flipByte(Path file, long at) throws IOException {
        try (FileChannel channel =
                FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            assertThat(channel.read(one, at)).as("a byte at %s of %s", at, file).isEqualTo(1);
            one.put(0, (byte) ~one.get(0));
            one.rewind();
            channel.write(one, at);
        }
    }

    /**
     * A worker lost with the partitions of the sources it ran, once every source finished
     * (reliability row 21): the consumers reading them fail naming them, failover restarts those
     * producers, and the output is still exact.
     */
    @ParameterizedTest
    @EnumSource(
            value = ResultPartitionType.class,
            names = {"BLOCKING", "HYBRID_FULL"})
    void aWorkerLostWithItsPartitions_isRecoveredFrom_exactly(ResultPartitionType type)
            throws Exception {
        JobGraph graph = twoVertices(type);
        ForwardingJob job = ForwardingJob.of(graph, 2_000, 64, 17);
        try (LocalEngine engine = engine(dir, 2, 4, OPTIONS, PartitionKind.SORT)) {
            JobResult result =
                    engine.run(
                            graph,
                            losingWorker0(engine, job),
                            RestartBackoffPolicy.fixedDelay(5, Duration.ZERO),
                            TIMEOUT);

            assertExact(result, job, 1);
            assertThat(result.stats().restarts()).isPositive();
        }
    }

    @Test
    void whenThePolicyGivesUp_theJobFailsWithTheCause_andNothingIsLeft() throws Exception {
        JobGraph graph = twoVertices(ResultPartitionType.BLOCKING);
        ForwardingJob job = ForwardingJob.of(graph, 2_000, 64, 15).failing(1, 0, 0, 10);
        try (LocalEngine engine = engine(dir, 2, 4, OPTIONS, PartitionKind.SORT)) {
            JobResult result = engine.run(graph, job, RestartBackoffPolicy.noRestart(), TIMEOUT);

            assertThat(result.outcome()).isInstanceOf(JobResult.Failed.class);
            assertThat(((JobResult.Failed) result.outcome()).cause())
                    .isInstanceOf(JobFailedException.class)
                    .cause()
                    .isInstanceOf(ForwardingJob.InjectedFailure.class)
                    .hasMessageContaining("at record 10");
            assertThat(result.leaks().pages()).isZero();
            assertThat(result.leaks().files()).isZero();
            assertThat(result.leaks().partitions()).isZero();
        }
    }

    @Test
    void aKindReadableWhileWritten_isRefusedForBlockingResults() {
        for (PartitionKind kind : PartitionKind.values()) {
            if (kind.isReadableWhileWritten()) {
                org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                        .isThrownBy(() -> new LocalEngine(dir, 1, 1, OPTIONS, kind))
                        .withMessage(
                                "the partition kind of BLOCKING results must be SORT or HASH, was "
                                        + kind);
            }
        }
    }

    @Test
    void aDatasetItsConsumersCannotShare_isRefusedNamingTheEdges() throws Exception {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 4)
                        .addVertex("a", 4)
                        .addVertex("b", 2)
                        .addDataSet("out", "source", ResultPartitionType.BLOCKING)
                        .addEdge("out", "a", ALL_TO_ALL)
                        .addEdge("out", "b", ALL_TO_ALL)
                        .build();
        try (LocalEngine engine = engine(dir, 1, 1, OPTIONS, PartitionKind.SORT)) {
            org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                    .isThrownBy(
                            () ->
                                    engine.run(
                                            graph,
                                            ForwardingJob.of(graph, 1, 8, 1),
                                            RestartBackoffPolicy.noRestart(),
                                            TIMEOUT))
                    .withMessageContaining("one partition per producer cannot feed both");
        }
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> new LocalEngine(dir, 0, 1, OPTIONS, PartitionKind.SORT))
                .withMessage("workers must be >= 1, was 0");
    }

    /**
     * A source vertex's subtask counts follow {@link ForwardingJob#withSource}: the sink receives
     * exactly the oracle's count and checksum, which differ from the unskewed job's.
     */
    @Test
    void aSkewedSource_deliversItsOwnCounts_andTheOracleFollows() throws Exception {
        JobGraph graph = twoVertices(ResultPartitionType.BLOCKING);
        ForwardingJob plain = ForwardingJob.of(graph, 1_000, 64, 18);
        ForwardingJob skewed = plain.withSource(0, new ForwardingJob.SourceRecords(500, 1, 5_000));
        try (LocalEngine engine = engine(dir, 2, 4, OPTIONS, PartitionKind.SORT)) {
            JobResult result = engine.run(graph, skewed, RestartBackoffPolicy.noRestart(), TIMEOUT);

            assertExact(result, skewed, 1);
            assertThat(result.committed().get(1).records()).isEqualTo(5_000 + 3 * 500);
            assertThat(skewed.expectedReceived()[1]).isNotEqualTo(plain.expectedReceived()[1]);
        }
        assertThat(skewed.recordsOf(0, 0)).isEqualTo(5_000);
        assertThat(skewed.recordsOf(0, 3)).isEqualTo(500);
        assertThat(skewed.recordsOf(1, 0)).as("a vertex with inputs generates nothing").isZero();
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> plain.withSource(1, ForwardingJob.SourceRecords.uniform(1)))
                .withMessageContaining("vertex 'sink' has inputs");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> plain.withSource(0, new ForwardingJob.SourceRecords(1, 5, 2)))
                .withMessageContaining("fewer than 5 hot subtasks");
    }

    /**
     * A skewed source under a fail rate: a hot subtask's attempts fail anywhere in its own larger
     * count, and the restarts still deliver exactly the skewed oracle.
     */
    @Test
    void aSkewedSourceWithFailures_isStillExact() throws Exception {
        JobGraph graph = twoVertices(ResultPartitionType.HYBRID_FULL);
        ForwardingJob job =
                ForwardingJob.of(graph, 200, 32, 19)
                        .withSource(0, new ForwardingJob.SourceRecords(200, 2, 2_000))
                        .failingAtRate(0.3);
        try (LocalEngine engine = engine(dir, 2, 4, OPTIONS, PartitionKind.SORT)) {
            JobResult result =
                    engine.run(
                            graph,
                            job,
                            RestartBackoffPolicy.fixedDelay(50, Duration.ZERO),
                            TIMEOUT);

            assertExact(result, job, 1);
        }
    }

    /**
     * What the shuffle layers moved: a blocking job writes its records to disk and reads them back
     * from disk, nothing from memory; a pipelined job with memory to spare reads everything from
     * memory and writes nothing.
     */
    @Test
    void shuffleBytes_blockingGoesThroughDisk_pipelinedThroughMemory() throws Exception {
        ShuffleOptions ample =
                ShuffleOptions.builder().pageSizeBytes(4096).totalPages(4096).build();
        long recordBytes = 4L * 2_000 * 64;
        for (ResultPartitionType type :
                new ResultPartitionType[] {
                    ResultPartitionType.BLOCKING, ResultPartitionType.PIPELINED
                }) {
            JobGraph graph = twoVertices(type);
            ForwardingJob job = ForwardingJob.of(graph, 2_000, 64, 20);
            try (LocalEngine engine = engine(dir, 2, 4, ample, PartitionKind.SORT)) {
                JobResult first = engine.run(graph, job, RestartBackoffPolicy.noRestart(), TIMEOUT);
                JobResult second =
                        engine.run(graph, job, RestartBackoffPolicy.noRestart(), TIMEOUT);

                assertExact(second, job, 1);
                JobResult.ShuffleBytes bytes = second.shuffle();
                if (readsAreRepeatable()) {
                    assertThat(first.shuffle())
                            .as("per job, not since the engine started")
                            .isEqualTo(bytes);
                } else {
                    assertThat(bytes.writtenToDisk()).isEqualTo(first.shuffle().writtenToDisk());
                    assertThat(bytes.readFromDisk())
                            .as("per job, not since the engine started")
                            .isLessThanOrEqualTo(first.shuffle().readFromDisk() * 3 / 2);
                }
                if (type == ResultPartitionType.BLOCKING) {
                    assertThat(bytes.writtenToDisk()).isGreaterThanOrEqualTo(recordBytes);
                    assertThat(bytes.readFromDisk()).isGreaterThanOrEqualTo(recordBytes);
                    assertThat(bytes.readFromMemory()).isZero();
                } else {
                    assertThat(bytes.writtenToDisk()).isZero();
                    assertThat(bytes.readFromDisk()).isZero();
                    assertThat(bytes.readFromMemory()).isGreaterThanOrEqualTo(recordBytes);
                }
            }
        }
    }

    /**
     * Slow consumers with little memory: a pipelined producer waits for them (bounded in memory,
     * nothing reaches disk) where a hybrid-selective producer spills what they have not read yet.
     */
    @Test
    void slowConsumers_holdBackPipelinedProducers_whereHybridSelectiveOnesSpill() throws Exception {
        ShuffleOptions tight =
                ShuffleOptions.builder()
                        .pageSizeBytes(4096)
                        .totalPages(512)
                        .sortBufferPages(8)
                        .gatePages(8)
                        .build();
        List<JobResult.ShuffleBytes> moved = new ArrayList<>();
        for (ResultPartitionType type :
                List.of(ResultPartitionType.PIPELINED, ResultPartitionType.HYBRID_SELECTIVE)) {
            JobGraph graph = twoVertices(type);
            ForwardingJob job = ForwardingJob.of(graph, 20_000, 64, 22);
            TaskCode.Factory slowSinks =
                    (vertex, subtask, attempt) -> {
                        TaskCode code = job.create(vertex, subtask, attempt);
                        return vertex == 0
                                ? code
                                : Steps.withContext(code, LocalEngineTest::slowInputs);
                    };
            try (LocalEngine engine = engine(dir, 2, 4, tight, PartitionKind.SORT)) {
                JobResult result =
                        engine.run(graph, slowSinks, RestartBackoffPolicy.noRestart(), TIMEOUT);

                assertExact(result, job, 1);
                moved.add(result.shuffle());
            }
        }
        assertThat(moved.get(0).writtenToDisk()).as("pipelined: written to disk").isZero();
        assertThat(moved.get(1).writtenToDisk()).as("hybrid-selective: spilled").isPositive();
    }

    /** A context whose inputs pause 1 ms every 200 records: a slow consumer. */
    private static TaskContext slowInputs(TaskContext context) {
        int[] records = {0};
        return new ObservedInputs(
                context,
                (channel, record) -> {
                    if (++records[0] % 200 == 0) {
                        sleepMillis(1);
                    }
                });
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The most slots busy at once: every slot, when the sources wait for each other to run at the
     * same time; one, on a single slot.
     */
    @Test
    void maxSlotsBusy_countsTheSlotsRunningTasksAtOnce() throws Exception {
        JobGraph graph = twoVertices(ResultPartitionType.BLOCKING);
        ForwardingJob job = ForwardingJob.of(graph, 500, 64, 21);
        CountDownLatch sourcesRunning = new CountDownLatch(4);
        TaskCode.Factory meeting =
                (vertex, subtask, attempt) -> {
                    TaskCode code = job.create(vertex, subtask, attempt);
                    if (vertex != 0) {
                        return code;
                    }
                    return Steps.first(
                            context -> {
                                sourcesRunning.countDown();
                                assertThat(sourcesRunning.await(30, TimeUnit.SECONDS)).isTrue();
                            },
                            code);
                };
        try (LocalEngine engine = engine(dir, 2, 2, OPTIONS, PartitionKind.SORT)) {
            JobResult result =
                    engine.run(graph, meeting, RestartBackoffPolicy.noRestart(), TIMEOUT);

            assertExact(result, job, 1);
            assertThat(result.stats().maxSlotsBusy()).isEqualTo(4);
        }
        try (LocalEngine engine = engine(dir, 1, 1, OPTIONS, PartitionKind.SORT)) {
            JobResult result = engine.run(graph, job, RestartBackoffPolicy.noRestart(), TIMEOUT);

            assertExact(result, job, 1);
            assertThat(result.stats().maxSlotsBusy()).isEqualTo(1);
        }
    }

    /**
     * {@link LocalEngine#progress()} while a job runs: the sources and one sink finished and that
     * sink's records committed, while the other sink still runs on its slot; null before and after.
     */
    @Test
    void progress_showsFinishedTasksAndCommittedRecords_whileTheJobRuns() throws Exception {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 2)
                        .addVertex("early", 1)
                        .addVertex("late", 1)
                        .connect("source", "early", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .connect("source", "late", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .build();
        ForwardingJob job = ForwardingJob.of(graph, 700, 32, 22);
        long early = job.expectedReceived()[1].records();
        CountDownLatch release = new CountDownLatch(1);
        TaskCode.Factory holding =
                (vertex, subtask, attempt) -> {
                    TaskCode code = job.create(vertex, subtask, attempt);
                    if (vertex != 2) {
                        return code;
                    }
                    return Steps.first(
                            context -> assertThat(release.await(30, TimeUnit.SECONDS)).isTrue(),
                            code);
                };
        try (LocalEngine engine = engine(dir, 2, 2, OPTIONS, PartitionKind.SORT)) {
            assertThat(engine.progress()).isNull();
            List<LocalEngine.Progress> seen = new ArrayList<>(); // the watcher's; read after join
            Thread watcher =
                    new Thread(
                            () -> {
                                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                                while (System.nanoTime() < deadline) {
                                    LocalEngine.Progress now = engine.progress();
                                    if (now != null) {
                                        seen.add(now);
                                        // The early sink's slot is free once its thread returns.
                                        if (now.tasksFinished() == 3 && now.slotsBusy() == 1) {
                                            release.countDown();
                                            return;
                                        }
                                    }
                                    try {
                                        Thread.sleep(1);
                                    } catch (InterruptedException e) {
                                        return;
                                    }
                                }
                            });
            watcher.start();
            JobResult result =
                    engine.run(graph, holding, RestartBackoffPolicy.noRestart(), TIMEOUT);
            watcher.join();

            assertExact(result, job, 2);
            assertThat(engine.progress()).isNull();
            LocalEngine.Progress last = seen.get(seen.size() - 1);
            assertThat(last.tasksFinished()).isEqualTo(3);
            assertThat(last.tasks()).isEqualTo(4);
            assertThat(last.recordsCommitted()).isEqualTo(early).isEqualTo(2 * 700);
            assertThat(last.slotsBusy()).as("the late sink holds its slot").isEqualTo(1);
            assertThat(last.restarts()).isZero();
            assertThat(seen)
                    .allSatisfy(p -> assertThat(p.recordsCommitted()).isLessThanOrEqualTo(early));
        }
    }
}
