package io.railyard.worker;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.worker.ShuffleEnvironmentTest.RUNNING;
import static io.railyard.worker.ShuffleEnvironmentTest.readAll;
import static io.railyard.worker.ShuffleEnvironmentTest.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.deployment.InMemoryBlobStore;
import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.InsufficientNetworkMemoryException;
import io.railyard.shuffle.buffer.NetworkBufferPool;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task the worker's network memory cannot take now waits for memory to come back instead of
 * failing at once (issue 34, item 5; ARCHITECTURE.md, reliability row 46): its gates and blocking
 * writers when it starts, its partitions readable while written when it is deployed; it gives up
 * with the shortage once nothing came back for the wait it was given, leaving nothing pledged, and
 * its cancellation ends the wait. Every task of these jobs runs on the one worker; a "hog" owner
 * holds the memory the task needs until the test gives it back.
 */
class TaskShuffleMemoryWaitTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(256).build();
    private static final Duration LONG_WAIT = Duration.ofSeconds(30);

    @TempDir Path dir;
    private ShuffleEnvironment worker;
    private NetworkBufferPool pool;

    @BeforeEach
    void setUp() throws Exception {
        ShuffleWorker shuffle = new ShuffleWorker(OPTIONS, dir.resolve("w0"));
        worker =
                new ShuffleEnvironment(
                        0,
                        shuffle,
                        PartitionKind.SORT,
                        new InMemoryBlobStore(),
                        (holder, id, waiter) -> {
                            throw new AssertionError("one worker: nothing is remote");
                        });
        pool = shuffle.bufferPool();
    }

    @AfterEach
    void tearDown() throws Exception {
        worker.partitions().releaseAll();
        worker.shuffle().close();
    }

    @Test
    void aSinkWhoseGateCannotBePledged_waits_andStartsOnceAGuaranteeComesBack() throws Exception {
        List<TaskDeploymentDescriptor> tasks = descriptors(ResultPartitionType.BLOCKING);
        runSources(tasks);
        BufferOwner hog = hogAllButPages(0);

        TaskShuffle sink = worker.deploy(tasks.get(2), RUNNING);
        CompletableFuture<List<InputGate>> started = startOnAThread(sink, LONG_WAIT);

        Thread.sleep(300);
        assertThat(started).as("waits while the memory is held").isNotDone();
        hog.close();
        List<InputGate> gates = started.get(10, TimeUnit.SECONDS);

        assertThat(gates).hasSize(1);
        assertThat(readAll(gates.get(0))).containsExactlyInAnyOrder("0 to 0", "1 to 0");
        sink.close();
    }

    @Test
    void aHybridProducerDeployedWithoutMemory_createsItsPartitionWhenItStarts() throws Exception {
        List<TaskDeploymentDescriptor> tasks = descriptors(ResultPartitionType.HYBRID_FULL);
        int pledgedBefore = pool.guaranteedPages();
        BufferOwner hog = hogAllButPages(0);

        TaskShuffle source = worker.deploy(tasks.get(0), RUNNING);
        assertThat(worker.partitions().size()).as("nothing registered at deployment").isZero();
        assertThat(pool.guaranteedPages()).isEqualTo(pledgedBefore + hog.guaranteedPages());

        CompletableFuture<List<InputGate>> started = startOnAThread(source, LONG_WAIT);
        Thread.sleep(300);
        assertThat(started).isNotDone();
        hog.close();
        assertThat(started.get(10, TimeUnit.SECONDS)).isEmpty();
        assertThat(worker.partitions().size()).as("registered once started").isOne();

        source.output(0).emit(utf8("0 to 0"), 0);
        source.output(0).emit(utf8("0 to 1"), 1);
        source.finish();
        source.close();
        TaskShuffle other = worker.deploy(tasks.get(1), RUNNING);
        other.start(LONG_WAIT);
        other.finish();
        other.close();
        TaskShuffle sink = worker.deploy(tasks.get(2), RUNNING);
        assertThat(readAll(sink.start(LONG_WAIT).get(0))).containsExactly("0 to 0");
        sink.close();
    }

    @Test
    void noMemoryComingBack_failsAfterTheWait_leavingNothingPledgedOrWritten() throws Exception {
        List<TaskDeploymentDescriptor> tasks = chainDescriptors();
        TaskShuffle source = worker.deploy(tasks.get(0), RUNNING);
        source.start(LONG_WAIT);
        source.output(0).emit(utf8("record"), 0);
        source.finish();
        source.close();
        int pledgedBefore = pool.guaranteedPages();
        // Room for the map's sort writer, not for its gate as well: it creates one, then fails.
        int writer = worker.shuffle().writerPages(PartitionKind.SORT, 1);
        BufferOwner hog = hogAllButPages(writer);
        long filesBefore = files();

        TaskShuffle map = worker.deploy(tasks.get(1), RUNNING);
        assertThatThrownBy(() -> map.start(Duration.ofMillis(300)))
                .isInstanceOf(InsufficientNetworkMemoryException.class)
                .hasMessageContaining("input gate 't1.a0.in0'")
                .hasMessageEndingWith(
                        "; waited 300 ms and no network memory of the worker came back");

        assertThat(pool.guaranteedPages()).isEqualTo(pledgedBefore + hog.guaranteedPages());
        assertThat(files()).as("the map's sort file is gone").isEqualTo(filesBefore);
        map.close();
        hog.close();
    }

    @Test
    void aCancelledAttempt_stopsWaitingForMemory() throws Exception {
        List<TaskDeploymentDescriptor> tasks = descriptors(ResultPartitionType.BLOCKING);
        runSources(tasks);
        BufferOwner hog = hogAllButPages(0);
        CompletableFuture<Void> cancelled = new CompletableFuture<>();
        TaskShuffle.Attempt attempt =
                new TaskShuffle.Attempt() {
                    @Override
                    public boolean isCancelled() {
                        return cancelled.isDone();
                    }

                    @Override
                    public void checkNotCancelled() {
                        if (cancelled.isDone()) {
                            throw new CancellationException("cancelled by the test");
                        }
                    }
                };
        TaskShuffle sink = worker.deploy(tasks.get(2), attempt);
        CompletableFuture<List<InputGate>> started = startOnAThread(sink, LONG_WAIT);
        Thread.sleep(100);

        cancelled.complete(null);

        assertThatThrownBy(() -> started.get(5, TimeUnit.SECONDS))
                .isInstanceOf(CancellationException.class) // get() throws it unwrapped
                .hasMessage("cancelled by the test");
        sink.close();
        hog.close();
    }

    // ---- helpers ----

    /** A guarantee of everything the pool can still pledge but {@code pages}. */
    private BufferOwner hogAllButPages(int pages) {
        return pool.register("hog", pool.pledgeablePages() - pages, "test.hog", null);
    }

    /** Runs sources 0 and 1 of a source → sink job: source i sends "i to j" to sink j. */
    private void runSources(List<TaskDeploymentDescriptor> tasks) throws Exception {
        for (int source = 0; source < 2; source++) {
            TaskShuffle shuffle = worker.deploy(tasks.get(source), RUNNING);
            shuffle.start(LONG_WAIT);
            for (int sink = 0; sink < 2; sink++) {
                shuffle.output(0).emit(utf8(source + " to " + sink), sink);
            }
            shuffle.finish();
            shuffle.close();
        }
    }

    private static CompletableFuture<List<InputGate>> startOnAThread(
            TaskShuffle task, Duration wait) {
        CompletableFuture<List<InputGate>> started = new CompletableFuture<>();
        Thread thread =
                new Thread(
                        () -> {
                            try {
                                started.complete(task.start(wait));
                            } catch (Throwable e) {
                                started.completeExceptionally(e);
                            }
                        },
                        "railyard-test-start");
        thread.setDaemon(true);
        thread.start();
        return started;
    }

    /** source (2) → sink (2), all-to-all of {@code type}, every task on worker 0. */
    private static List<TaskDeploymentDescriptor> descriptors(ResultPartitionType type)
            throws Exception {
        return ShuffleEnvironmentTest.descriptors(
                JobGraph.builder()
                        .addVertex("source", 2)
                        .addVertex("sink", 2)
                        .connect("source", "sink", ALL_TO_ALL, type)
                        .build(),
                1);
    }

    /** source (1) → map (1) → sink (1), BLOCKING: the map starts a writer and a gate. */
    private static List<TaskDeploymentDescriptor> chainDescriptors() throws Exception {
        return ShuffleEnvironmentTest.descriptors(
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
