package io.railyard.worker;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.worker.ShuffleEnvironmentTest.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.deployment.InMemoryBlobStore;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.NetworkBufferPool;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.AttemptId;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task the worker's network memory cannot take now waits for memory to come back instead of
 * failing at once (issue 34, item 5; ARCHITECTURE.md, reliability row 46) — without holding a
 * thread (issue 35): its gates and blocking writers when it starts, its partitions readable while
 * written when it is deployed; it gives up with the shortage once nothing came back for the
 * worker's memory wait, leaving nothing pledged, and its cancellation ends the wait. Every task of
 * these jobs runs on the one worker, whose slots run on one thread; a "hog" owner holds the memory
 * the task needs until the test gives it back.
 */
class TaskMemoryWaitTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(256).build();

    @TempDir Path dir;
    private ShuffleEnvironment environment;
    private NetworkBufferPool pool;
    private TaskSlots slots;
    private final Ends ends = new Ends();
    private final Map<Integer, List<String>> received = new ConcurrentHashMap<>();

    @BeforeEach
    void setUp() throws Exception {
        ShuffleWorker shuffle = new ShuffleWorker(OPTIONS, dir.resolve("w0"));
        environment =
                new ShuffleEnvironment(
                        0,
                        shuffle,
                        PartitionKind.SORT,
                        new InMemoryBlobStore(),
                        holder -> {
                            throw new AssertionError("one worker: nothing is remote");
                        });
        pool = shuffle.bufferPool();
        slots = new TaskSlots("railyard-test", 8, 1);
    }

    @AfterEach
    void tearDown() throws Exception {
        slots.close();
        environment.partitions().releaseAll();
        environment.shuffle().close();
    }

    @Test
    void aSinkWhoseGateCannotBePledged_waits_andStartsOnceAGuaranteeComesBack() throws Exception {
        Worker worker = worker();
        List<byte[]> tasks = descriptors(ResultPartitionType.BLOCKING);
        runSources(worker, tasks);
        BufferOwner hog = hogAllButPages(0);

        worker.deploy(tasks.get(2));

        Thread.sleep(300);
        assertThat(ends.of(2)).as("waits while the memory is held").isNotDone();
        assertThat(worker.describeTasks()).contains("starting: waiting for network memory");
        hog.close();
        assertThat(ends.of(2).get(10, TimeUnit.SECONDS)).isEqualTo("finished");
        assertThat(received.get(2)).containsExactlyInAnyOrder("0 to 0", "1 to 0");
    }

    @Test
    void aHybridProducerDeployedWithoutMemory_createsItsPartitionWhenItStarts() throws Exception {
        Worker worker = worker();
        List<byte[]> tasks = descriptors(ResultPartitionType.HYBRID_FULL);
        int pledgedBefore = pool.guaranteedPages();
        BufferOwner hog = hogAllButPages(0);

        worker.deploy(tasks.get(0));
        assertThat(environment.partitions().size()).as("nothing registered at deployment").isZero();
        assertThat(pool.guaranteedPages()).isEqualTo(pledgedBefore + hog.guaranteedPages());
        Thread.sleep(300);
        assertThat(ends.of(0)).isNotDone();
        hog.close();
        assertThat(ends.of(0).get(10, TimeUnit.SECONDS)).isEqualTo("finished");
        assertThat(environment.partitions().size()).as("registered once started").isOne();

        worker.deploy(tasks.get(1));
        worker.deploy(tasks.get(2));
        assertThat(ends.of(2).get(10, TimeUnit.SECONDS)).isEqualTo("finished");
        assertThat(received.get(2)).containsExactlyInAnyOrder("0 to 0", "1 to 0");
    }

    @Test
    void noMemoryComingBack_failsAfterTheWait_leavingNothingPledgedOrWritten() throws Exception {
        environment.memoryWait(Duration.ofMillis(300));
        Worker worker = worker();
        List<byte[]> tasks = chainDescriptors();
        worker.deploy(tasks.get(0));
        assertThat(ends.of(0).get(10, TimeUnit.SECONDS)).isEqualTo("finished");
        int pledgedBefore = pool.guaranteedPages();
        // Room for the map's sort writer, not for its gate as well: it creates one, then fails.
        int writer = environment.shuffle().writerPages(PartitionKind.SORT, 1);
        BufferOwner hog = hogAllButPages(writer);
        long filesBefore = files();

        long start = System.nanoTime();
        worker.deploy(tasks.get(1));

        assertThat(ends.of(1).get(10, TimeUnit.SECONDS))
                .startsWith("failed: ")
                .contains("input gate 't1.a0.in0'")
                .endsWith("; waited 300 ms and no network memory of the worker came back");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                .isGreaterThanOrEqualTo(300);
        assertThat(pool.guaranteedPages()).isEqualTo(pledgedBefore + hog.guaranteedPages());
        assertThat(files()).as("the map's sort file is gone").isEqualTo(filesBefore);
        hog.close();
    }

    @Test
    void aCancelledAttempt_stopsWaitingForMemory() throws Exception {
        Worker worker = worker();
        List<byte[]> tasks = descriptors(ResultPartitionType.BLOCKING);
        runSources(worker, tasks);
        BufferOwner hog = hogAllButPages(0);
        worker.deploy(tasks.get(2));
        Thread.sleep(100);

        assertThat(worker.stopTasks(Duration.ofSeconds(5))).as("tasks still running").isEmpty();

        assertThat(ends.of(2)).as("a cancelled attempt is not reported").isNotDone();
        hog.close();
    }

    // ---- helpers ----

    /** What each task's attempt 0 ended with: "finished", or "failed: " and the message. */
    private static final class Ends implements TaskListener {
        private final Map<Integer, CompletableFuture<String>> ends = new ConcurrentHashMap<>();

        CompletableFuture<String> of(int task) {
            return ends.computeIfAbsent(task, t -> new CompletableFuture<>());
        }

        @Override
        public void finished(AttemptId attempt, Tally tally) {
            of(attempt.task()).complete("finished");
        }

        @Override
        public void failed(AttemptId attempt, Throwable cause) {
            of(attempt.task()).complete("failed: " + cause.getMessage());
        }
    }

    /**
     * The worker: vertex 0 sends "s to j" to each subpartition j (s its subtask), every other
     * vertex collects what it reads by task (and forwards nothing).
     */
    private Worker worker() {
        return new Worker(environment, slots, this::code, ends);
    }

    private TaskCode code(int vertex, int subtask, int attempt) {
        if (vertex == 0) {
            return context -> {
                for (int j = 0; j < 2; j++) {
                    context.emit(0, utf8(subtask + " to " + j), j);
                }
                return TaskCode.Step.done(Tally.ZERO);
            };
        }
        return context -> {
            int task = vertex * 2 + subtask; // the jobs here have at most 2 subtasks per vertex
            List<String> into = received.computeIfAbsent(task, t -> new CopyOnWriteArrayList<>());
            boolean ended =
                    context.readInputs(
                            (channel, record) ->
                                    into.add(StandardCharsets.UTF_8.decode(record).toString()));
            return ended ? TaskCode.Step.done(Tally.ZERO) : TaskCode.Step.YIELD;
        };
    }

    /** A guarantee of everything the pool can still pledge but {@code pages}. */
    private BufferOwner hogAllButPages(int pages) {
        return pool.register("hog", pool.pledgeablePages() - pages, "test.hog", null);
    }

    /** Runs sources 0 and 1 of a source → sink job to their end. */
    private void runSources(Worker worker, List<byte[]> tasks) throws Exception {
        for (int source = 0; source < 2; source++) {
            worker.deploy(tasks.get(source));
            assertThat(ends.of(source).get(10, TimeUnit.SECONDS)).isEqualTo("finished");
        }
    }

    /** source (2) → sink (2), all-to-all of {@code type}, every task on worker 0. */
    private static List<byte[]> descriptors(ResultPartitionType type) throws Exception {
        return ShuffleEnvironmentTest.encoded(
                JobGraph.builder()
                        .addVertex("source", 2)
                        .addVertex("sink", 2)
                        .connect("source", "sink", ALL_TO_ALL, type)
                        .build(),
                1);
    }

    /** source (1) → map (1) → sink (1), BLOCKING: the map starts a writer and a gate. */
    private static List<byte[]> chainDescriptors() throws Exception {
        return ShuffleEnvironmentTest.encoded(
                JobGraph.builder()
                        .addVertex("source", 1)
                        .addVertex("map", 1)
                        .addVertex("sink", 1)
                        .connect("source", "map", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .connect("map", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .build(),
                1);
    }

    private long files() throws Exception {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).count();
        }
    }
}
