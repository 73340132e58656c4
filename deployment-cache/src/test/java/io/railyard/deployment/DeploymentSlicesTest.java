package io.railyard.deployment;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import io.railyard.topology.RandomJobGraphs;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Deploying in slices: same tasks, same bytes as one loop; bounded slices; interleaving. */
class DeploymentSlicesTest {
    private static final JobId JOB = new JobId(0x1234, 0x5678);
    // One secret for every cache of a test: descriptors of two caches are compared byte for byte.
    private static final JobSecret SECRET = JobSecret.of(new byte[JobSecret.BYTES]);

    private static ExecutionTopology allToAll(int parallelism) {
        return ExecutionTopology.of(
                JobGraph.builder()
                        .addVertex("source", parallelism)
                        .addVertex("sink", parallelism)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .build());
    }

    private static DeploymentDescriptors descriptors(ExecutionTopology topology) {
        return new DeploymentDescriptors(
                JOB,
                SECRET,
                topology,
                StaticShuffleDescriptors.randomPlacement(topology.jobGraph(), 37, 7L),
                new InMemoryBlobStore(),
                new OffloadOptions(true, 64L * 64L, 1 << 20, true));
    }

    /** What one loop over every task ships, in order. */
    private static List<byte[]> oneLoop(ExecutionTopology topology) throws IOException {
        List<byte[]> shipped = new ArrayList<>();
        try (DeploymentDescriptors descriptors = descriptors(topology)) {
            for (int task = 0; task < topology.jobGraph().numTasks(); task++) {
                shipped.add(descriptors.create(task, task % 3).encode());
            }
        }
        return shipped;
    }

    /** Records what the slices ship, checking tasks arrive in order, each once. */
    private static final class Recorder implements DeploymentSlices.DescriptorConsumer {
        final List<byte[]> shipped = new ArrayList<>();

        @Override
        public void accept(int task, int attempt, byte[] descriptor) {
            assertThat(task).as("tasks in order, each once").isEqualTo(shipped.size());
            assertThat(attempt).isEqualTo(task % 3);
            shipped.add(descriptor);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void slices_onRandomJobs_shipEveryTaskOnce_withTheOneLoopBytes(long seed) throws IOException {
        ExecutionTopology topology = ExecutionTopology.of(RandomJobGraphs.generate(seed));
        int numTasks = topology.jobGraph().numTasks();
        int maxTasks = 1 + (int) (seed * 5 % 23);
        Recorder recorder = new Recorder();
        try (DeploymentDescriptors descriptors = descriptors(topology)) {
            DeploymentSlices slices =
                    DeploymentSlices.over(
                            descriptors, 0, numTasks, t -> t % 3, SliceBudget.ofTasks(maxTasks));
            int runs = 0;
            while (slices.runSlice(recorder)) {
                runs++;
                assertThat(slices.nextTask()).isEqualTo(recorder.shipped.size());
            }
            assertThat(slices.slices()).isEqualTo(runs + (numTasks == 0 ? 0 : 1));
            if (slices.groupEncodingUnits() == 0) { // else groups of 64 partitions took units
                assertThat(slices.slices()).isEqualTo((numTasks + maxTasks - 1) / maxTasks);
            }
            assertThat(slices.deployedTasks()).isEqualTo(numTasks);
            assertThat(slices.longestSliceTasks()).isLessThanOrEqualTo(maxTasks);
            assertThat(slices.hasMore()).isFalse();
            assertThat(slices.nextTask()).isEqualTo(-1);
        }
        assertThat(recorder.shipped)
                .as("seed %s, %s tasks a slice", seed, maxTasks)
                .containsExactlyElementsOf(oneLoop(topology));
    }

    @Test
    void taskBudget_boundsEverySlice_andTheLastSliceTakesTheRest() throws IOException {
        ExecutionTopology topology = allToAll(50); // 100 tasks
        List<Integer> perSlice = new ArrayList<>();
        try (DeploymentDescriptors descriptors = descriptors(topology)) {
            DeploymentSlices slices =
                    DeploymentSlices.over(descriptors, 0, 100, t -> 0, SliceBudget.ofTasks(30));
            boolean more = true;
            while (more) {
                long before = slices.deployedTasks();
                more = slices.runSlice((task, attempt, bytes) -> {});
                perSlice.add((int) (slices.deployedTasks() - before));
            }
            assertThat(slices.longestSliceTasks()).isEqualTo(30);
        }
        assertThat(perSlice).containsExactly(30, 30, 30, 10);
    }

    /**
     * A manual clock that advances 1,000 ns per descriptor shipped: a 100 µs budget stops a slice
     * at the first clock read at or past 100 tasks, i.e. after 7 strides of 16 = 112 tasks.
     */
    @Test
    void timeBudget_stopsASliceAtTheFirstClockReadPastTheBudget() throws IOException {
        ExecutionTopology topology = allToAll(200); // 400 tasks
        long[] now = {0};
        SliceBudget budget =
                SliceBudget.of(10_000, Duration.ofNanos(100_000)).withClock(() -> now[0]);
        List<Integer> perSlice = new ArrayList<>();
        try (DeploymentDescriptors descriptors = descriptors(topology)) {
            DeploymentSlices slices = DeploymentSlices.over(descriptors, 0, 400, t -> 0, budget);
            boolean more = true;
            while (more) {
                long before = slices.deployedTasks();
                more = slices.runSlice((task, attempt, bytes) -> now[0] += 1_000);
                perSlice.add((int) (slices.deployedTasks() - before));
            }
            assertThat(slices.longestSliceNanos()).isEqualTo(112_000);
        }
        assertThat(7 * DeploymentSlices.CLOCK_STRIDE).isEqualTo(112);
        assertThat(perSlice).containsExactly(112, 112, 112, 64);
    }

    /**
     * A main-thread executor runs one slice per turn: an event queued during deployment runs before
     * the next slice, and a producer restarted between slices is seen by later descriptors.
     */
    @Test
    void slices_interleaveWithOtherMainThreadEvents() throws IOException {
        ExecutionTopology topology = allToAll(40); // sources 0..39, sinks 40..79
        StaticShuffleDescriptors shuffle =
                StaticShuffleDescriptors.randomPlacement(topology.jobGraph(), 5, 3L);
        Queue<String> mainThread = new ArrayDeque<>();
        List<String> log = new ArrayList<>();
        try (DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        JOB,
                        SECRET,
                        topology,
                        shuffle,
                        new InMemoryBlobStore(),
                        OffloadOptions.NEVER)) {
            DeploymentSlices slices =
                    DeploymentSlices.over(descriptors, 0, 80, t -> 0, SliceBudget.ofTasks(20));
            List<TaskDeploymentDescriptor> sinks = new ArrayList<>();
            mainThread.add("deploy");
            mainThread.add("heartbeat");
            while (!mainThread.isEmpty()) {
                String event = mainThread.remove();
                log.add(event);
                if (event.equals("deploy")) {
                    boolean more =
                            slices.runSlice(
                                    (task, attempt, bytes) -> {
                                        if (task >= 40) {
                                            sinks.add(TaskDeploymentDescriptor.decode(bytes));
                                        }
                                        if (task == 59) { // arrives while the slice runs
                                            mainThread.add("restart source 3");
                                        }
                                    });
                    if (more) {
                        mainThread.add("deploy");
                    }
                } else if (event.equals("restart source 3")) {
                    shuffle.setProducerAttempt(3, 1);
                    descriptors.invalidatePartition(3);
                }
            }
            assertThat(log)
                    .containsExactly(
                            "deploy",
                            "heartbeat",
                            "deploy",
                            "deploy",
                            "restart source 3",
                            "deploy");
            WorkerDescriptorCache worker = new WorkerDescriptorCache(new InMemoryBlobStore());
            // sinks 40..59 shipped before the restart name attempt 0, sinks 60..79 attempt 1
            assertThat(worker.resolve(sinks.get(19).inputs().get(0)).producerAttempt(3)).isZero();
            assertThat(worker.resolve(sinks.get(20).inputs().get(0)).producerAttempt(3)).isOne();
        }
    }

    @Test
    void failingConsumer_retriesTheFailedTaskFirst_andShipsEveryTaskOnce() throws IOException {
        ExecutionTopology topology = allToAll(30);
        List<Integer> shipped = new ArrayList<>();
        boolean[] failNext = {true};
        try (DeploymentDescriptors descriptors = descriptors(topology)) {
            DeploymentSlices slices =
                    DeploymentSlices.over(descriptors, 0, 60, t -> 0, SliceBudget.ofTasks(25));
            DeploymentSlices.DescriptorConsumer flaky =
                    (task, attempt, bytes) -> {
                        if (task == 33 && failNext[0]) {
                            failNext[0] = false;
                            throw new IOException("worker 4 unreachable");
                        }
                        shipped.add(task);
                    };
            assertThat(slices.runSlice(flaky)).isTrue();
            assertThatThrownBy(() -> slices.runSlice(flaky)).hasMessage("worker 4 unreachable");
            assertThat(slices.nextTask()).isEqualTo(33);
            assertThat(slices.deployedTasks()).isEqualTo(33);
            while (slices.runSlice(flaky)) {
                // drain
            }
            assertThat(slices.runSlice(flaky)).isFalse();
            assertThat(slices.slices()).isEqualTo(4); // 25, 8 then failure, 25, 2
        }
        List<Integer> expected = new ArrayList<>();
        for (int task = 0; task < 60; task++) {
            expected.add(task);
        }
        assertThat(shipped).containsExactlyElementsOf(expected);
    }

    @Test
    void overRanges_shipsTheRangesInOrder_skippingEmptyOnes() throws IOException {
        ExecutionTopology topology = allToAll(10);
        List<Integer> shipped = new ArrayList<>();
        try (DeploymentDescriptors descriptors = descriptors(topology)) {
            DeploymentSlices slices =
                    DeploymentSlices.overRanges(
                            descriptors,
                            new long[] {
                                PackedRange.EMPTY,
                                PackedRange.of(12, 15),
                                PackedRange.of(5, 5),
                                PackedRange.of(2, 4)
                            },
                            t -> 0,
                            SliceBudget.ofTasks(2));
            while (slices.runSlice((task, attempt, bytes) -> shipped.add(task))) {
                // drain
            }
            assertThat(slices.slices()).isEqualTo(3);
        }
        assertThat(shipped).containsExactly(12, 13, 14, 2, 3);
    }

    @Test
    void nothingToDeploy_runsNoSlice() throws IOException {
        try (DeploymentDescriptors descriptors = descriptors(allToAll(4))) {
            DeploymentSlices slices =
                    DeploymentSlices.over(descriptors, 3, 3, t -> 0, SliceBudget.DEFAULT);
            assertThat(slices.hasMore()).isFalse();
            assertThat(slices.runSlice((task, attempt, bytes) -> {})).isFalse();
            assertThat(slices.slices()).isZero();
        }
    }

    @Test
    void badBudgets_andRanges_areRejected_namingTheArgumentAndValue() throws IOException {
        assertThatThrownBy(() -> SliceBudget.ofTasks(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxTasks (descriptors per deployment slice) must be >= 1, was 0");
        assertThatThrownBy(() -> new SliceBudget(5, 0, System::nanoTime))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("maxNanos (time per deployment slice) must be >= 1 ns")
                .hasMessageEndingWith("was 0");
        assertThatThrownBy(() -> SliceBudget.of(5, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxTime (time per deployment slice) must be positive, was PT-0.001S");
        assertThatThrownBy(() -> SliceBudget.of(5, Duration.ofDays(365L * 1000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("maxTime (time per deployment slice) must be at most");
        try (DeploymentDescriptors descriptors = descriptors(allToAll(4))) {
            assertThatThrownBy(
                            () ->
                                    DeploymentSlices.over(
                                            descriptors, 2, 9, t -> 0, SliceBudget.DEFAULT))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "the tasks to deploy, [2, 9), are not within the job's tasks [0, 8)");
            assertThatThrownBy(
                            () ->
                                    DeploymentSlices.overRanges(
                                            descriptors,
                                            new long[] {PackedRange.of(0, 2), PackedRange.of(6, 9)},
                                            t -> 0,
                                            SliceBudget.DEFAULT))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "range 1 of the tasks to deploy, [6, 9), is not within the job's 8"
                                    + " tasks");
        }
    }
}
