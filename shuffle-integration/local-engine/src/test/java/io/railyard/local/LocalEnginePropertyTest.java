package io.railyard.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.railyard.deployment.OffloadOptions;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.failover.RestartOracle;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.topology.RandomJobGraphs;
import io.railyard.topology.ResultPartitionType;
import io.railyard.worker.Tally;
import io.railyard.worker.TaskCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random job graphs (every pattern and partition type, datasets with several consumer vertices) run
 * end to end under each kind of {@link Fault}: every sink receives exactly what the sources'
 * records reach it with, no page, file or partition is left, and a single task failure restarts
 * what region failover prescribes (checked against {@link RestartOracle}, which computes regions
 * and restart sets on the expanded task graph independently of the code under test).
 */
class LocalEnginePropertyTest {
    /**
     * The engine under test: in-process reads here; {@code *OverTcpTest} runs every test again with
     * every read over TCP.
     */
    LocalEngine engine(
            Path parent, int workers, int slots, ShuffleOptions options, PartitionKind blocking)
            throws IOException {
        return new LocalEngine(parent, workers, slots, options, blocking);
    }

    private static final RandomJobGraphs.Shape SHAPE = new RandomJobGraphs.Shape(6, 6);
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(1024).build();

    /** What goes wrong during the run. */
    enum Fault {
        /** Nothing. */
        NONE,
        /** One task attempt throws at one of its first records. */
        TASK_FAILURE,
        /**
         * The file of producer subtask 0's first-attempt BLOCKING partition is deleted when
         * consumer subtask 0 of its dataset is deployed, before anyone reads it: whoever reads it
         * finds it lost.
         */
        LOST_PARTITION,
        /** A worker is lost with its partitions and running tasks when a consumer is deployed. */
        LOST_WORKER,
        /**
         * All three in one run (reliability row 35): a task failure, a lost BLOCKING partition and
         * then a lost worker.
         */
        ALL
    }

    @TempDir Path dir;

    private static boolean runnable(JobGraph graph) {
        try {
            LocalEngine.checkRunnable(graph);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static Stream<Arguments> runs() {
        return IntStream.rangeClosed(1, 40)
                .boxed()
                .flatMap(seed -> Arrays.stream(Fault.values()).map(f -> Arguments.of(seed, f)));
    }

    @ParameterizedTest(name = "seed {0}, {1}")
    @MethodSource("runs")
    void randomJobs_deliverExactly_underEveryFault(long seed, Fault fault) throws Exception {
        JobGraph graph = RandomJobGraphs.generate(seed, SHAPE);
        assumeTrue(runnable(graph), "a dataset whose consumers cannot share its partitions");
        SplittableRandom random = new SplittableRandom(seed);
        ForwardingJob base = ForwardingJob.of(graph, 300, 32, seed);
        int failedVertex = random.nextInt(graph.numJobVertices());
        int failedSubtask = random.nextInt(graph.parallelism(failedVertex));
        ForwardingJob job =
                fault == Fault.TASK_FAILURE || fault == Fault.ALL
                        ? base.failing(failedVertex, failedSubtask, 0, random.nextInt(3))
                        : base;
        int[] blockingEdge = edgesInto(graph, fault == Fault.LOST_PARTITION || fault == Fault.ALL);
        assumeTrue(blockingEdge.length > 0, "no edge to lose a partition of");
        int edge = blockingEdge[random.nextInt(blockingEdge.length)];
        int trigger = graph.edgeConsumer(edge);
        // Producer subtask 0's: every consumer 0 reads it (pointwise too), and it has finished when
        // consumer 0 is deployed (a pointwise consumer need not wait for the other producers).
        String lostFile = "p" + graph.firstPartition(graph.edgeDataSet(edge)) + ".a0.data";
        AtomicIntegerArray lastAttempt = new AtomicIntegerArray(graph.numTasks());
        // Enough slots for any pipelined region: tasks wait for slots, never for each other.
        try (LocalEngine engine = engine(dir, 2, graph.numTasks(), OPTIONS, PartitionKind.SORT)) {
            TaskCode.Factory code =
                    (vertex, subtask, attempt) -> {
                        lastAttempt.accumulateAndGet(
                                graph.firstTask(vertex) + subtask, attempt, Math::max);
                        if (vertex == trigger && subtask == 0 && attempt == 0) {
                            inject(fault, engine, lostFile);
                        }
                        return job.create(vertex, subtask, attempt);
                    };
            JobResult result =
                    engine.run(
                            graph,
                            code,
                            RestartBackoffPolicy.fixedDelay(10, Duration.ZERO),
                            Duration.ofSeconds(60),
                            // Every group's descriptors offloaded, so that blobs left would show.
                            new OffloadOptions(true, 1, 1, true));

            assertThat(result.outcome()).as("seed %s, outcome", seed).isEqualTo(JobResult.FINISHED);
            Tally[] expected = job.expectedReceived();
            for (int sink : result.committed().keySet()) {
                assertThat(result.committed().get(sink))
                        .as("seed %s, sink vertex %s", seed, sink)
                        .isEqualTo(expected[sink]);
            }
            assertThat(result.leaks().pages()).as("pages left").isZero();
            assertThat(result.leaks().files()).as("files left").isZero();
            assertThat(result.leaks().partitions()).as("partitions left").isZero();
            assertThat(result.leaks().blobs()).as("blobs left (descriptors offloaded)").isZero();
            if (fault == Fault.LOST_PARTITION) {
                assertThat(result.stats().restarts())
                        .as("restarts after losing " + lostFile)
                        .isPositive();
            }
            if (fault == Fault.TASK_FAILURE) {
                assertRestartedAsRegionFailoverPrescribes(
                        graph, graph.firstTask(failedVertex) + failedSubtask, result, lastAttempt);
            }
        }
    }

    /**
     * After one failure and one restart, the tasks whose last attempt is 1 are the restart set
     * (every task in it gets a new attempt, deployed now or later). It must hold at least what
     * failover restarts when every reconsumable partition is still readable, and at most what it
     * restarts when none is: which ones are readable at that instant depends on the timing.
     */
    private static void assertRestartedAsRegionFailoverPrescribes(
            JobGraph graph, int failedTask, JobResult result, AtomicIntegerArray lastAttempt) {
        int[] restarted =
                IntStream.range(0, graph.numTasks()).filter(t -> lastAttempt.get(t) > 0).toArray();
        if (restarted.length == 0) {
            // The failing task read fewer records than its failure point: nothing was injected.
            assertThat(result.stats().restarts()).isZero();
            return;
        }
        assertThat(result.stats().restarts()).as("one injected failure; %s", result).isEqualTo(1);
        RestartOracle oracle = new RestartOracle(graph);
        List<Integer> actual = Arrays.stream(restarted).boxed().toList();
        assertThat(actual)
                .as("restart set of task %s", failedTask)
                .containsAll(
                        Arrays.stream(oracle.tasksToRestart(failedTask, p -> true))
                                .boxed()
                                .toList());
        assertThat(Arrays.stream(oracle.tasksToRestart(failedTask, p -> false)).boxed().toList())
                .as("restart set of task %s", failedTask)
                .containsAll(actual);
    }

    /** The edges of {@code graph}, only the BLOCKING ones if {@code blocking}. */
    private static int[] edgesInto(JobGraph graph, boolean blocking) {
        return IntStream.range(0, graph.numEdges())
                .filter(
                        e ->
                                !blocking
                                        || graph.resultType(graph.edgeDataSet(e))
                                                == ResultPartitionType.BLOCKING)
                .toArray();
    }

    private void inject(Fault fault, LocalEngine engine, String lostFile) {
        switch (fault) {
            case LOST_PARTITION -> delete(lostFile, true);
            case LOST_WORKER -> loseWorkerLater(engine, 0);
            case ALL -> {
                delete(lostFile, false); // the task failure may have restarted its producer
                loseWorkerLater(engine, 1);
            }
            case NONE, TASK_FAILURE -> {}
        }
    }

    /** From the main thread (the factory runs there): the loss is processed after this event. */
    private static void loseWorkerLater(LocalEngine engine, int worker) {
        var unused = engine.loseWorker(worker);
    }

    private void delete(String fileName, boolean mustExist) {
        try (Stream<Path> files = Files.walk(dir)) {
            List<Path> found = files.filter(f -> f.endsWith(fileName)).toList();
            if (mustExist) {
                assertThat(found).as("the file of the partition to lose").hasSize(1);
            }
            for (Path file : found) {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
