package io.railyard.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.deployment.OffloadOptions;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.failover.RestartOracle;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.worker.Tally;
import io.railyard.worker.TaskCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random job graphs (every pattern and partition type, datasets with several consumer vertices) run
 * end to end under each kind of {@link Fault}, every seed under every fault: no case is skipped.
 *
 * <ul>
 *   <li>Graphs: {@link RunnableJobGraphs#draw} repairs what the engine would refuse; a fault that
 *       loses a BLOCKING partition gets a BLOCKING edge across regions.
 *   <li>Engines ({@link PropertyCase.Engine}): 1 to 3 workers; 1 or 2 slots per worker in two cases
 *       of three — fewer than the tasks of a pipelined region, which the engine runs anyway:
 *       consumers queue for slots (their producers' sort buffers then hold a pipelined partition
 *       whole, or each would wait a second for a consumer without a slot) — else a slot per task;
 *       pools of exactly the guarantees that may coexist in half the cases, up to four times that
 *       in the others, pages of 256 B to 4 KiB, gates of 1 to 8 pages (over TCP, more than the
 *       workers); SORT or HASH for BLOCKING results; restarts after 0 to 5 ms; every group's
 *       descriptors offloaded, so that blobs left would show.
 *   <li>Oracle: every sink vertex commits exactly what the sources' records reach it with, and
 *       every task's last attempt receives, key by key, exactly the records its inputs' routing
 *       sends it ({@link RoutingOracle}, independent of the engine's groups and writers); what the
 *       sinks' tasks return adds up to what the engine committed. No page, file, partition or blob
 *       is left.
 *   <li>Faults strike: the injected task failure lies within what the task handles and happens
 *       once, and the restart set is what region failover prescribes ({@link RestartOracle}, which
 *       computes regions and restart sets on the expanded task graph independently of the code
 *       under test); the lost file exists when it is deleted; the lost worker is the one its
 *       trigger runs on; a run without a fault never restarts.
 * </ul>
 *
 * <p>What the cases covered is printed after the class ({@link Coverage}).
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

    static final int SEEDS = 24;
    private static final Pattern SLOT_THREAD = Pattern.compile("railyard-w(\\d+)-t\\d+");
    private static final Map<Class<?>, Coverage> COVERAGE = new ConcurrentHashMap<>();

    /** What goes wrong during the run. */
    enum Fault {
        /** Nothing. */
        NONE,
        /** One task attempt throws at one of the records it handles. */
        TASK_FAILURE,
        /**
         * The file of producer subtask 0's first-attempt BLOCKING partition is deleted when
         * consumer subtask 0 of its dataset is deployed, before anyone reads it: whoever reads it
         * finds it lost.
         */
        LOST_PARTITION,
        /**
         * A worker is lost with its partitions and running tasks: the one a consumer runs on, as
         * its first attempt starts, before it reads.
         */
        LOST_WORKER,
        /**
         * All three in one run (reliability row 35): a task failure, and at one consumer a lost
         * BLOCKING partition file when it is deployed and its worker lost as it starts. One may
         * forestall another (the counts are printed); the run restarts at least once.
         */
        ALL;

        boolean failsTask() {
            return this == TASK_FAILURE || this == ALL;
        }

        boolean losesPartition() {
            return this == LOST_PARTITION || this == ALL;
        }

        boolean losesWorker() {
            return this == LOST_WORKER || this == ALL;
        }
    }

    @TempDir Path dir;

    static Stream<Arguments> runs() {
        return IntStream.rangeClosed(1, SEEDS)
                .boxed()
                .flatMap(seed -> Arrays.stream(Fault.values()).map(f -> Arguments.of(seed, f)));
    }

    @ParameterizedTest(name = "seed {0}, {1}")
    @MethodSource("runs")
    void everyRecordReachesTheTaskItsKeyRoutesTo_exactlyOnce_underEveryFault(long seed, Fault fault)
            throws Exception {
        PropertyCase c = PropertyCase.draw(seed, fault);
        PropertyCase.Engine setup = c.engine();
        Observed seen = new Observed(c.graph().numTasks());
        try (LocalEngine engine =
                engine(dir, setup.workers(), setup.slots(), setup.options(), setup.blocking())) {
            JobResult result = run(engine, c, seen);

            assertDeliveredAsRouted(c, seen, result);
            assertThat(result.leaks().pages()).as("pages left").isZero();
            assertThat(result.leaks().files()).as("files left").isZero();
            assertThat(result.leaks().partitions()).as("partitions left").isZero();
            assertThat(result.leaks().blobs()).as("blobs left (descriptors offloaded)").isZero();
            assertTheFaultStruck(c, seen, result);
            COVERAGE.computeIfAbsent(getClass(), k -> new Coverage()).add(c, seen, result);
        }
    }

    /**
     * Runs the case on {@code engine}: restarts after the case's delay, every group's descriptors
     * offloaded (so that blobs left would show); a timeout names the case.
     */
    private JobResult run(LocalEngine engine, PropertyCase c, Observed seen) throws Exception {
        try {
            return engine.run(
                    c.graph(),
                    instrumented(c, seen, engine),
                    RestartBackoffPolicy.fixedDelay(20, c.engine().restartDelay()),
                    Duration.ofSeconds(60),
                    new OffloadOptions(true, 1, 1, true));
        } catch (TimeoutException e) {
            throw new AssertionError(c.describe() + ": " + e.getMessage(), e);
        }
    }

    @AfterAll
    static void reportCoverage(TestInfo info) {
        Coverage coverage = COVERAGE.remove(info.getTestClass().orElseThrow());
        if (coverage != null) {
            System.out.println(info.getDisplayName() + " covered: " + coverage);
            coverage.assertVaried();
        }
    }

    /**
     * The job's code, observed: every attempt's last-deployed number, what each task's highest
     * attempt that returned received per key and returned, every injected failure; and the fault,
     * set off by the trigger's subtask 0's attempt 0 — its lost file deleted when it is deployed
     * (the factory runs on the job's main thread), its worker lost as it starts.
     */
    private TaskCode.Factory instrumented(PropertyCase c, Observed seen, LocalEngine engine) {
        return (vertex, subtask, attempt) -> {
            int task = c.graph().task(vertex, subtask);
            seen.lastAttempt.accumulateAndGet(task, attempt, Math::max);
            boolean triggered = vertex == c.trigger() && subtask == 0 && attempt == 0;
            String lostFile = c.lostFile();
            if (triggered && lostFile != null) {
                seen.filesDeleted.addAndGet(delete(lostFile));
            }
            TaskCode code = c.job().create(vertex, subtask, attempt);
            boolean losesWorker = triggered && c.fault().losesWorker();
            TaskCode observed = observe(task, attempt, code, seen);
            if (!losesWorker) {
                return observed;
            }
            return Steps.first(
                    context -> {
                        seen.workersLost.incrementAndGet();
                        engine.loseWorker(workerOfThisThread()).get(30, TimeUnit.SECONDS);
                    },
                    observed);
        };
    }

    /**
     * {@code code}, counting per key what its inputs deliver over all its steps, and keeping what
     * it returned once done.
     */
    private static TaskCode observe(int task, int attempt, TaskCode code, Observed seen) {
        Map<Integer, Tally> byKey = new HashMap<>();
        RecordDecoder.RecordSink counting =
                (channel, record) ->
                        byKey.merge(
                                RoutingOracle.key(record), RoutingOracle.one(record), Tally::plus);
        return context -> {
            TaskCode.Step step;
            try {
                step = code.run(new ObservedInputs(context, counting));
            } catch (ForwardingJob.InjectedFailure e) {
                seen.injectedFailures.incrementAndGet();
                throw e;
            } catch (Exception | Error e) {
                if (seen.failures.size() < 20) {
                    seen.failures.add("task " + task + " attempt " + attempt + ": " + e);
                }
                throw e;
            }
            if (step instanceof TaskCode.Step.Done done) {
                seen.lastReturned.merge(
                        task,
                        new Returned(attempt, byKey, done.tally()),
                        (old, now) -> now.attempt() > old.attempt() ? now : old);
            }
            return step;
        };
    }

    /** The worker whose slot runs this thread ({@code LocalEngine}'s slot threads name it). */
    private static int workerOfThisThread() {
        Matcher slot = SLOT_THREAD.matcher(Thread.currentThread().getName());
        if (!slot.matches()) {
            throw new AssertionError("not a slot thread: " + Thread.currentThread().getName());
        }
        return Integer.parseInt(slot.group(1));
    }

    /**
     * Every task's last attempt received, key by key, what its inputs route to it, and returned its
     * tally; every sink vertex committed what the sources' records reach it with, which is what its
     * tasks returned.
     */
    private static void assertDeliveredAsRouted(PropertyCase c, Observed seen, JobResult result) {
        String what = c.describe();
        assertThat(result.outcome())
                .as("%s: outcome; task failures seen: %s", what, seen.failures)
                .isEqualTo(JobResult.FINISHED);
        JobGraph graph = c.graph();
        Tally[] returnedByVertex = new Tally[graph.numJobVertices()];
        Arrays.fill(returnedByVertex, Tally.ZERO);
        for (int t = 0; t < graph.numTasks(); t++) {
            Returned last = seen.lastReturned.get(t);
            if (last == null) {
                throw new AssertionError(what + ": task " + graph.taskName(t) + " never returned");
            }
            if (graph.numInputEdges(graph.vertexOfTask(t)) > 0) {
                assertThat(RoutingOracle.differences(c.oracle().expected(t), last.byKey(), 5))
                        .as(
                                "%s: what task %s (attempt %s) received, per key, against its"
                                        + " routing",
                                what, graph.taskName(t), last.attempt())
                        .isEmpty();
            }
            assertThat(last.tally())
                    .as("%s: what task %s returned", what, graph.taskName(t))
                    .isEqualTo(c.oracle().expectedTotal(t));
            int v = graph.vertexOfTask(t);
            returnedByVertex[v] = returnedByVertex[v].plus(last.tally());
        }
        Tally[] expected = c.job().expectedReceived();
        assertThat(result.committed().keySet())
                .as("%s: sink vertices", what)
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, graph.numJobVertices())
                                .filter(v -> graph.numProducedDataSets(v) == 0)
                                .boxed()
                                .toList());
        for (int sink : result.committed().keySet()) {
            assertThat(result.committed().get(sink))
                    .as("%s: sink vertex %s committed", what, sink)
                    .isEqualTo(expected[sink])
                    .isEqualTo(returnedByVertex[sink]);
        }
    }

    /** The fault happened, and restarted what it must. */
    private static void assertTheFaultStruck(PropertyCase c, Observed seen, JobResult result) {
        String what = c.describe();
        int restarts = result.stats().restarts();
        assertThat(result.stats().maxSlotsBusy())
                .as("%s: most slots busy at once", what)
                .isBetween(1, c.engine().workers() * c.engine().slots());
        switch (c.fault()) {
            case NONE ->
                    assertThat(restarts)
                            .as("%s: restarts; task failures seen: %s", what, seen.failures)
                            .isZero();
            case TASK_FAILURE -> {
                assertThat(seen.injectedFailures).as("%s: injected failures", what).hasValue(1);
                assertRestartedAsRegionFailoverPrescribes(c, result, seen.lastAttempt);
            }
            case LOST_PARTITION -> {
                assertThat(seen.filesDeleted).as("%s: files deleted", what).hasValue(1);
                assertThat(restarts).as("%s: restarts", what).isPositive();
            }
            case LOST_WORKER -> {
                assertThat(seen.workersLost).as("%s: workers lost", what).hasValue(1);
                assertThat(restarts).as("%s: restarts", what).isPositive();
            }
            case ALL -> assertThat(restarts).as("%s: restarts", what).isPositive();
        }
    }

    /**
     * After one failure and one restart, the tasks whose last attempt is 1 are the restart set
     * (every task in it gets a new attempt, deployed now or later). It must hold at least what
     * failover restarts when every reconsumable partition is still readable, and at most what it
     * restarts when none is: which ones are readable at that instant depends on the timing.
     */
    private static void assertRestartedAsRegionFailoverPrescribes(
            PropertyCase c, JobResult result, AtomicIntegerArray lastAttempt) {
        JobGraph graph = c.graph();
        int failedTask = c.failingTask();
        List<Integer> restarted =
                IntStream.range(0, graph.numTasks())
                        .filter(t -> lastAttempt.get(t) > 0)
                        .boxed()
                        .toList();
        assertThat(result.stats().restarts())
                .as("%s: one injected failure; %s", c.describe(), result)
                .isEqualTo(1);
        RestartOracle oracle = new RestartOracle(graph);
        assertThat(restarted)
                .as("%s: restart set of task %s", c.describe(), failedTask)
                .containsAll(
                        Arrays.stream(oracle.tasksToRestart(failedTask, p -> true))
                                .boxed()
                                .toList());
        assertThat(Arrays.stream(oracle.tasksToRestart(failedTask, p -> false)).boxed().toList())
                .as("%s: restart set of task %s", c.describe(), failedTask)
                .containsAll(restarted);
    }

    /**
     * Deletes the files named {@code fileName} in the engine's workers' directories; how many there
     * were. Lists only those directories, which live as long as the engine: a walk of the whole
     * tree fails when the engine deletes a released partition's file under it.
     */
    private int delete(String fileName) {
        int deleted = 0;
        try (DirectoryStream<Path> engines = Files.newDirectoryStream(dir, "railyard-local-*")) {
            for (Path engine : engines) {
                try (DirectoryStream<Path> workers = Files.newDirectoryStream(engine, "worker-*")) {
                    for (Path worker : workers) {
                        deleted += Files.deleteIfExists(worker.resolve(fileName)) ? 1 : 0;
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return deleted;
    }

    /** What one case's attempts did. Thread-safe. */
    private static final class Observed {
        final AtomicIntegerArray lastAttempt; // per task, the highest attempt deployed
        final Map<Integer, Returned> lastReturned = new ConcurrentHashMap<>();
        final AtomicInteger injectedFailures = new AtomicInteger();
        final AtomicInteger filesDeleted = new AtomicInteger();
        final AtomicInteger workersLost = new AtomicInteger();
        final Queue<String> failures = new ConcurrentLinkedQueue<>(); // the first 20 others

        Observed(int tasks) {
            this.lastAttempt = new AtomicIntegerArray(tasks);
        }
    }

    /** What attempt {@code attempt} of a task received per key and returned. */
    private record Returned(int attempt, Map<Integer, Tally> byKey, Tally tally) {}

    /** What the cases of one test class covered, per fault and in all. Thread-safe. */
    private static final class Coverage {
        private final Map<Fault, int[]> byFault = new java.util.EnumMap<>(Fault.class);
        private int slotsBelowTasks; // slots per worker < the job's tasks
        private int slotsBelowLargestRegion; // workers × slots < the largest region's tasks
        private int minimumPools;
        private int hash;
        private int delayed;
        private int tasks;

        /** Counts case {@code c}. */
        synchronized void add(PropertyCase c, Observed seen, JobResult result) {
            // cases, cases restarted, restarts, injected failures, files deleted, workers lost,
            // cases where all three struck
            int[] counts = byFault.computeIfAbsent(c.fault(), f -> new int[7]);
            counts[0]++;
            counts[1] += result.stats().restarts() > 0 ? 1 : 0;
            counts[2] += result.stats().restarts();
            counts[3] += seen.injectedFailures.get();
            counts[4] += seen.filesDeleted.get();
            counts[5] += seen.workersLost.get();
            boolean allThree =
                    seen.injectedFailures.get() > 0
                            && seen.filesDeleted.get() > 0
                            && seen.workersLost.get() > 0;
            counts[6] += allThree ? 1 : 0;
            PropertyCase.Engine engine = c.engine();
            slotsBelowTasks += engine.slots() < c.graph().numTasks() ? 1 : 0;
            if (engine.workers() * engine.slots() < RunnableJobGraphs.largestRegion(c.graph())) {
                slotsBelowLargestRegion++;
            }
            minimumPools += engine.minimumPool() ? 1 : 0;
            hash += engine.blocking() == PartitionKind.HASH ? 1 : 0;
            delayed += engine.restartDelay().isZero() ? 0 : 1;
            tasks += c.graph().numTasks();
        }

        /**
         * When every case ran: each dimension the cases vary was met (a change to the drawing that
         * lost one fails here).
         */
        synchronized void assertVaried() {
            int cases = byFault.values().stream().mapToInt(counts -> counts[0]).sum();
            if (cases < SEEDS * Fault.values().length) {
                return; // a subset ran
            }
            assertThat(slotsBelowLargestRegion)
                    .as("cases with fewer slots than a region")
                    .isPositive();
            assertThat(byFault.get(Fault.ALL)[6])
                    .as("ALL cases where all three struck")
                    .isPositive();
            assertThat(minimumPools).as("cases at the minimum pool").isPositive();
            assertThat(hash).as("cases with HASH partitions").isPositive();
            assertThat(delayed).as("cases with a restart delay").isPositive();
        }

        @Override
        public synchronized String toString() {
            StringBuilder out = new StringBuilder();
            byFault.forEach(
                    (fault, n) ->
                            out.append(
                                    String.format(
                                            "%n  %s: %d cases ran, %d restarted (%d restarts),"
                                                    + " %d task failures injected, %d files"
                                                    + " deleted, %d workers lost%s",
                                            fault,
                                            n[0],
                                            n[1],
                                            n[2],
                                            n[3],
                                            n[4],
                                            n[5],
                                            fault == Fault.ALL
                                                    ? "; all three in " + n[6] + " cases"
                                                    : "")));
            int cases = byFault.values().stream().mapToInt(counts -> counts[0]).sum();
            return out.append(
                            String.format(
                                    "%n  all: %d cases, %d tasks; fewer slots per worker than"
                                            + " tasks in %d, fewer slots in all than the"
                                            + " largest region in %d, the minimum pool in %d,"
                                            + " HASH in %d, a restart delay in %d",
                                    cases,
                                    tasks,
                                    slotsBelowTasks,
                                    slotsBelowLargestRegion,
                                    minimumPools,
                                    hash,
                                    delayed))
                    .toString();
        }
    }
}
