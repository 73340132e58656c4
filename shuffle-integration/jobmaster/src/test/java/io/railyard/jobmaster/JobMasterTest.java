package io.railyard.jobmaster;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.deployment.GroupDescriptors;
import io.railyard.deployment.InMemoryBlobStore;
import io.railyard.deployment.InputDescriptor;
import io.railyard.deployment.JobId;
import io.railyard.deployment.JobSecret;
import io.railyard.deployment.OffloadOptions;
import io.railyard.deployment.SliceBudget;
import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.deployment.WorkerDescriptorCache;
import io.railyard.deployment.WorkerTable;
import io.railyard.failover.FailureHandling;
import io.railyard.failover.FailureHandlings;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The JobManager core drives deployment, failover and release through a worker gateway. */
class JobMasterTest {
    private static final int P = 4;
    private static final int WORKERS = 3;
    private static final JobId JOB = new JobId(1, 2);
    private static final JobSecret SECRET = JobSecret.of(new byte[JobSecret.BYTES]);

    /** What the JobMaster asked of the workers, in order. */
    private static final class RecordingGateway implements WorkerGateway {
        final List<TaskDeploymentDescriptor> deployed = new ArrayList<>();
        final List<Integer> deployedOn = new ArrayList<>();
        final List<String> cancelled = new ArrayList<>();
        final List<PartitionId> released = new ArrayList<>();

        @Override
        public void deploy(int worker, byte[] descriptor) {
            deployed.add(TaskDeploymentDescriptor.decode(descriptor));
            deployedOn.add(worker);
        }

        @Override
        public void cancel(int worker, int task, int attempt) {
            cancelled.add(task + "." + attempt + "@" + worker);
        }

        @Override
        public void releasePartition(int worker, PartitionId partition) {
            released.add(partition);
        }

        List<Integer> tasks() {
            return deployed.stream().map(TaskDeploymentDescriptor::task).toList();
        }

        void clear() {
            deployed.clear();
            deployedOn.clear();
            cancelled.clear();
            released.clear();
        }
    }

    private final RecordingGateway gateway = new RecordingGateway();
    private final RuntimeException failure = new IllegalStateException("task failed");
    private final InMemoryBlobStore blobs = new InMemoryBlobStore();

    private static JobGraph twoVertices(ResultPartitionType type) {
        return JobGraph.builder()
                .addVertex("source", P)
                .addVertex("sink", P)
                .connect("source", "sink", ALL_TO_ALL, type)
                .build();
    }

    private JobMaster master(JobGraph graph, RestartBackoffPolicy policy) {
        WorkerTable workers = new WorkerTable(List.of("w0:1", "w1:1", "w2:1"));
        return JobMaster.builder(graph, workers, gateway, JobMasterTest::noDeployFails)
                .jobId(JOB)
                .secret(SECRET)
                .placement(task -> task % WORKERS)
                .restartPolicy(policy)
                .blobs(blobs, OffloadOptions.NEVER)
                .build();
    }

    /** This gateway's deploys do not fail (JobMasterDeployFailureTest has those that do). */
    private static void noDeployFails(int task, int attempt, FailureHandling handling) {
        throw new AssertionError("task " + task + " could not be deployed", handling.cause());
    }

    private static RestartBackoffPolicy retries() {
        return RestartBackoffPolicy.fixedDelay(3, Duration.ZERO);
    }

    @Test
    void blocking_deploysSourcesFirst_thenSinksThatNameTheirProducers() throws IOException {
        JobMaster master = master(twoVertices(ResultPartitionType.BLOCKING), retries());

        master.start();
        assertThat(gateway.tasks()).containsExactly(0, 1, 2, 3);
        assertThat(gateway.deployedOn).containsExactly(0, 1, 2, 0);
        assertThat(gateway.deployed).allMatch(d -> d.attempt() == 0 && d.inputs().isEmpty());

        gateway.clear();
        for (int source = 0; source < P; source++) {
            assertThat(master.onTaskFinished(source, 0)).isTrue();
        }
        assertThat(gateway.tasks()).containsExactly(4, 5, 6, 7);
        for (TaskDeploymentDescriptor sink : gateway.deployed) {
            InputDescriptor input = sink.inputs().get(0);
            assertThat(input.firstSubpartition()).isEqualTo(sink.subtask());
            GroupDescriptors group = resolve(input);
            for (int i = 0; i < group.size(); i++) {
                assertThat(group.worker(i)).isEqualTo((group.firstPartition() + i) % WORKERS);
                assertThat(group.producerAttempt(i)).isZero();
            }
        }
    }

    @Test
    void pipelined_placesTheWholeRegionBeforeEncodingAnyDescriptor() throws IOException {
        JobMaster master = master(twoVertices(ResultPartitionType.PIPELINED), retries());

        master.start(); // would throw if a sink's group named an unplaced source

        assertThat(gateway.tasks()).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
    }

    @Test
    void lostPartition_restartsItsProducer_withTheNextAttemptInEveryDescriptor()
            throws IOException {
        JobMaster master = master(twoVertices(ResultPartitionType.BLOCKING), retries());
        master.start();
        for (int source = 0; source < P; source++) {
            master.onTaskFinished(source, 0);
        }
        gateway.clear();

        FailureHandling handling = master.onTaskFailed(5, 0, failure, new PartitionId(2, 0));

        assertThat(handling).isInstanceOf(FailureHandling.Restart.class);
        assertThat(FailureHandlings.restart(handling).tasks().contains(2))
                .as("the producer restarts")
                .isTrue();
        assertThat(gateway.released).contains(new PartitionId(2, 0));
        assertThat(gateway.cancelled).contains("2.0@2", "5.0@2");
        assertThat(master.descriptors().isCached(0)).as("the group's cache entry").isFalse();
        assertThat(master.shuffleMaster().workerOfTask(2)).isEqualTo(-1);

        gateway.clear();
        master.restart(FailureHandlings.restart(handling));
        assertThat(gateway.tasks()).containsExactly(2);
        assertThat(gateway.deployed.get(0).attempt()).isEqualTo(1);

        gateway.clear();
        master.onTaskFinished(2, 1);
        assertThat(gateway.tasks()).isNotEmpty();
        for (TaskDeploymentDescriptor sink : gateway.deployed) {
            GroupDescriptors group = resolve(sink.inputs().get(0));
            assertThat(group.producerAttempt(2 - group.firstPartition())).isEqualTo(1);
        }
    }

    /**
     * Two decisions before either restart runs: the first (a sink) is taken over by the second (a
     * lost partition: its producer and every sink). The first restart must not deploy the sink
     * while its producer is cancelled and unplaced, waiting for the second (found by the engine's
     * property test: the descriptor named worker -1).
     */
    @Test
    void aRestartTakenOverByALaterDecision_leavesItsRegionsToThatDecision() throws IOException {
        JobMaster master = master(twoVertices(ResultPartitionType.BLOCKING), retries());
        master.start();
        for (int source = 0; source < P; source++) {
            master.onTaskFinished(source, 0);
        }
        FailureHandling sinkFailed = master.onTaskFailed(5, 0, failure);
        FailureHandling partitionLost = master.onTaskFailed(6, 0, failure, new PartitionId(2, 0));
        assertThat(FailureHandlings.restart(partitionLost).tasks().contains(5))
                .as("taken over")
                .isTrue();
        gateway.clear();

        master.restart(FailureHandlings.restart(sinkFailed));

        assertThat(gateway.tasks()).as("nothing of the first decision is left to deploy").isEmpty();
        master.restart(FailureHandlings.restart(partitionLost));
        assertThat(gateway.tasks()).containsExactly(2);
        master.onTaskFinished(2, 1);
        assertThat(gateway.tasks()).containsExactly(2, 4, 5, 6, 7);
        assertThat(master.attempt(5)).isEqualTo(2);
    }

    @Test
    void anOlderAttemptsPartition_isNotReportedLost() throws IOException {
        JobMaster master = master(twoVertices(ResultPartitionType.BLOCKING), retries());
        master.start();
        for (int source = 0; source < P; source++) {
            master.onTaskFinished(source, 0);
        }
        FailureHandling first = master.onTaskFailed(5, 0, failure, new PartitionId(2, 0));
        master.restart(FailureHandlings.restart(first));
        master.onTaskFinished(2, 1);

        // The sink's new attempt fails naming partition 2 as the old attempt wrote it.
        FailureHandling second =
                master.onTaskFailed(5, master.attempt(5), failure, new PartitionId(2, 0));

        assertThat(FailureHandlings.restart(second).tasks().contains(2))
                .as("producer of the current attempt")
                .isFalse();
        assertThat(FailureHandlings.restart(second).tasks().contains(5)).isTrue();
    }

    @Test
    void finishedConsumers_releaseTheirProducersPartitions() throws IOException {
        JobMaster master = master(twoVertices(ResultPartitionType.BLOCKING), retries());
        master.start();
        for (int source = 0; source < P; source++) {
            master.onTaskFinished(source, 0);
        }
        gateway.clear();
        for (int sink = P; sink < 2 * P; sink++) {
            master.onTaskFinished(sink, 0);
        }

        assertThat(gateway.released)
                .containsExactlyInAnyOrder(
                        new PartitionId(0, 0),
                        new PartitionId(1, 0),
                        new PartitionId(2, 0),
                        new PartitionId(3, 0));
        assertThat(master.descriptors().isCached(0)).isFalse();
    }

    @Test
    void whenThePolicyGivesUp_everyPlacedTaskIsCancelled_andEveryPartitionReleased()
            throws IOException {
        JobMaster master =
                master(twoVertices(ResultPartitionType.BLOCKING), RestartBackoffPolicy.noRestart());
        master.start();
        master.onTaskFinished(0, 0);
        gateway.clear();

        FailureHandling handling = master.onTaskFailed(1, 0, failure);

        assertThat(handling).isInstanceOf(FailureHandling.FailJob.class);
        assertThat(master.isJobFailed()).isTrue();
        assertThat(FailureHandlings.failJob(handling).failure())
                .hasCause(failure)
                .hasMessageContaining("no restart");
        assertThat(gateway.cancelled).containsExactly("0.0@0", "1.0@1", "2.0@2", "3.0@0");
        assertThat(gateway.released).contains(new PartitionId(0, 0));
    }

    @Test
    void eventsFromAnotherThread_areRefused() throws Exception {
        JobMaster master = master(twoVertices(ResultPartitionType.BLOCKING), retries());
        CompletableFuture<Void> elsewhere =
                CompletableFuture.runAsync(
                        () -> {
                            try {
                                master.start();
                            } catch (IOException e) {
                                throw new IllegalStateException(e);
                            }
                        });

        assertThatThrownBy(elsewhere::get)
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseInstanceOf(IllegalStateException.class);
    }

    /** A graph of one PIPELINED region of 2 × {@code parallelism} tasks. */
    private static JobGraph pipelined(int parallelism) {
        return JobGraph.builder()
                .addVertex("source", parallelism)
                .addVertex("sink", parallelism)
                .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.PIPELINED)
                .build();
    }

    private JobMaster sliced(JobGraph graph, int tasksPerSlice, List<MainThreadExecutor.Step> q) {
        WorkerTable workers = new WorkerTable(List.of("w0:1", "w1:1", "w2:1"));
        return JobMaster.builder(graph, workers, gateway, JobMasterTest::noDeployFails)
                .jobId(JOB)
                .secret(SECRET)
                .placement(task -> task % WORKERS)
                .restartPolicy(retries())
                .blobs(blobs, OffloadOptions.NEVER)
                .deployInSlices(SliceBudget.ofTasks(tasksPerSlice), q::add)
                .build();
    }

    /** Runs the queued main-thread steps, the ones they queue included; how many ran. */
    private static int runSteps(List<MainThreadExecutor.Step> queue) throws IOException {
        int ran = 0;
        while (!queue.isEmpty()) {
            queue.remove(0).run();
            ran++;
        }
        return ran;
    }

    @Test
    void deployingInSlices_shipsTheSameDescriptors_aSliceAStep() throws IOException {
        JobGraph graph = pipelined(10);
        JobMaster oneGo = master(graph, retries());
        oneGo.start();
        List<TaskDeploymentDescriptor> expected = List.copyOf(gateway.deployed);
        List<Integer> expectedWorkers = List.copyOf(gateway.deployedOn);
        gateway.clear();
        List<MainThreadExecutor.Step> steps = new ArrayList<>();

        JobMaster master = sliced(graph, 3, steps);
        master.start();

        assertThat(gateway.tasks()).as("the first slice, within the event").hasSize(3);
        assertThat(master.hasPendingDeployments()).isTrue();
        assertThat(runSteps(steps)).as("17 tasks left, 3 a slice").isEqualTo(6);
        assertThat(master.hasPendingDeployments()).isFalse();
        assertThat(gateway.deployed).isEqualTo(expected);
        assertThat(gateway.deployedOn).isEqualTo(expectedWorkers);
    }

    @Test
    void aRestartBetweenSlices_dropsTheRestartedRegionsTasksNotDeployedYet() throws IOException {
        JobGraph graph = pipelined(4);
        List<MainThreadExecutor.Step> steps = new ArrayList<>();
        JobMaster master = sliced(graph, 2, steps);
        master.start();
        assertThat(gateway.tasks()).containsExactly(0, 1);

        FailureHandling handling = master.onTaskFailed(0, 0, failure);
        runSteps(steps);

        assertThat(gateway.tasks()).as("nothing of the stopped attempt").containsExactly(0, 1);
        assertThat(gateway.cancelled).contains("0.0@0", "1.0@1");
        gateway.clear();
        master.restart(FailureHandlings.restart(handling));
        runSteps(steps);
        assertThat(gateway.tasks()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(gateway.deployed).allMatch(d -> d.attempt() == 1);
    }

    private GroupDescriptors resolve(InputDescriptor input) throws IOException {
        return new WorkerDescriptorCache(blobs).resolve(input);
    }
}
