package io.railyard.jobmaster;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.spy;

import io.railyard.deployment.BlobStore;
import io.railyard.deployment.InMemoryBlobStore;
import io.railyard.deployment.InputDescriptor;
import io.railyard.deployment.JobId;
import io.railyard.deployment.OffloadOptions;
import io.railyard.deployment.SliceBudget;
import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.deployment.WorkerDescriptorCache;
import io.railyard.deployment.WorkerTable;
import io.railyard.failover.FailureHandling;
import io.railyard.failover.FailureHandlings;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mockito.stubbing.Answer;

/**
 * A deploy that fails half way — the gateway refuses a task, the blob store refuses a group, a
 * worker is gone in the middle of a sliced deploy — ends in a restart of the failed task's region
 * (the rest goes on) or in a failed job with the cause: never a region the scheduler believes
 * running while some of its tasks were never deployed.
 */
class JobMasterDeployFailureTest {
    private static final int P = 4;
    private static final WorkerTable WORKERS = new WorkerTable(List.of("w0:1", "w1:1", "w2:1"));

    /** What reached the workers: deployed attempts as "task.attempt", cancels likewise. */
    private final List<String> deployed = new ArrayList<>();

    private final List<String> cancelled = new ArrayList<>();
    private final List<TaskDeploymentDescriptor> descriptors = new ArrayList<>();
    private final List<FailureHandling> decisions = new ArrayList<>();
    private final List<MainThreadExecutor.Step> steps = new ArrayList<>();
    private final WorkerGateway gateway = mock(WorkerGateway.class);

    private final Answer<Void> ship =
            call -> {
                TaskDeploymentDescriptor d = TaskDeploymentDescriptor.decode(call.getArgument(1));
                descriptors.add(d);
                deployed.add(d.task() + "." + d.attempt());
                return null;
            };

    JobMasterDeployFailureTest() throws IOException {
        doAnswer(ship).when(gateway).deploy(anyInt(), any());
        doAnswer(
                        call -> {
                            cancelled.add(call.getArgument(1) + "." + call.getArgument(2));
                            return null;
                        })
                .when(gateway)
                .cancel(anyInt(), anyInt(), anyInt());
    }

    private static JobGraph graph(ResultPartitionType type) {
        return JobGraph.builder()
                .addVertex("source", P)
                .addVertex("sink", P)
                .connect("source", "sink", ALL_TO_ALL, type)
                .build();
    }

    private JobMaster.Builder builder(JobGraph graph, RestartBackoffPolicy policy) {
        return JobMaster.builder(graph, WORKERS, gateway, (t, a, h) -> decisions.add(h))
                .jobId(new JobId(1, 2))
                .placement(task -> task % WORKERS.size())
                .restartPolicy(policy);
    }

    @Test
    void aDeployTheGatewayRefuses_restartsThatTasksRegion_andTheOthersAreStillDeployed()
            throws IOException {
        IOException refused = new IOException("connection to w1 reset");
        doThrow(refused).doAnswer(ship).when(gateway).deploy(eq(1), any());
        JobGraph pairs = // four regions, source#i -> sink#i each
                JobGraph.builder()
                        .addVertex("source", P)
                        .addVertex("sink", P)
                        .connect("source", "sink", POINTWISE, ResultPartitionType.BLOCKING)
                        .build();
        JobMaster master =
                builder(pairs, retries(3))
                        .blobs(new InMemoryBlobStore(), OffloadOptions.NEVER)
                        .build();

        master.start();

        assertThat(deployed)
                .as("the sources after it went on")
                .containsExactly("0.0", "2.0", "3.0");
        assertThat(decisions).hasSize(1);
        FailureHandling.Restart restart = FailureHandlings.restart(decisions.get(0));
        assertThat(restart.cause()).isSameAs(refused);
        assertThat(restart.tasks().contains(1) && restart.tasks().contains(5)).isTrue();
        assertThat(restart.tasks().numTasks()).as("source#1 and its sink").isEqualTo(2);
        assertThat(master.attempt(1)).isEqualTo(1);

        master.restart(restart);
        assertThat(deployed).containsExactly("0.0", "2.0", "3.0", "1.1");
        for (int source = 0; source < P; source++) {
            master.onTaskFinished(source, master.attempt(source));
        }
        assertThat(deployed).endsWith("4.0", "5.1", "6.0", "7.0");
        assertThat(decisions).hasSize(1);
    }

    @Test
    void aDeployTheGatewayRefuses_withNoRestartLeft_failsTheJobWithItsCause() throws IOException {
        IOException refused = new IOException("connection to w1 reset");
        doThrow(refused).when(gateway).deploy(eq(1), any());
        JobMaster master =
                builder(graph(ResultPartitionType.BLOCKING), RestartBackoffPolicy.noRestart())
                        .blobs(new InMemoryBlobStore(), OffloadOptions.NEVER)
                        .build();

        master.start();

        assertThat(decisions).hasSize(1);
        FailureHandling.FailJob failJob = FailureHandlings.failJob(decisions.get(0));
        assertThat(failJob.failure()).hasRootCause(refused);
        assertThat(master.isJobFailed()).isTrue();
        assertThat(cancelled).as("every deployed attempt").contains("0.0", "2.0", "3.0");
        assertThat(master.hasPendingDeployments()).isFalse();
    }

    @Test
    void aGroupTheBlobStoreRefuses_restartsTheConsumerThatNeededIt_andIsOffloadedOnItsRestart()
            throws IOException {
        InMemoryBlobStore store = new InMemoryBlobStore();
        BlobStore blobs = spy(store);
        IOException full = new IOException("No space left on device");
        doThrow(full).doCallRealMethod().when(blobs).put(any(), any());
        OffloadOptions always = new OffloadOptions(true, 1, 1 << 20, true);
        JobMaster master =
                builder(graph(ResultPartitionType.BLOCKING), retries(3))
                        .blobs(blobs, always)
                        .build();
        master.start();

        for (int source = 0; source < P; source++) {
            master.onTaskFinished(source, 0);
        }

        assertThat(deployed).as("the sinks after it went on").endsWith("5.0", "6.0", "7.0");
        assertThat(decisions).hasSize(1);
        FailureHandling.Restart restart = FailureHandlings.restart(decisions.get(0));
        assertThat(restart.cause()).hasRootCause(full).hasMessageContaining("group");
        assertThat(restart.tasks().contains(4)).isTrue();
        master.restart(restart);
        assertThat(deployed).endsWith("4.1");
        WorkerDescriptorCache worker = new WorkerDescriptorCache(store);
        for (TaskDeploymentDescriptor sink : descriptors.subList(P, descriptors.size())) {
            InputDescriptor input = sink.inputs().get(0);
            assertThat(input).isInstanceOf(InputDescriptor.Offloaded.class);
            assertThat(worker.resolve(input).size()).isEqualTo(P);
        }
        master.close();
        assertThat(store.numBlobs()).as("the job's references are dropped").isZero();
    }

    @Test
    void aWorkerGoneInTheMiddleOfASlicedDeploy_restartsTheRegionUntilThePolicyGivesUp()
            throws IOException {
        IOException gone = new IOException("w1 is gone");
        doThrow(gone).when(gateway).deploy(eq(1), any());
        JobMaster master =
                builder(graph(ResultPartitionType.PIPELINED), retries(2))
                        .blobs(new InMemoryBlobStore(), OffloadOptions.NEVER)
                        .deployInSlices(SliceBudget.ofTasks(2), steps::add)
                        .build();

        master.start();
        runSteps();
        for (int round = 0; round < 2; round++) {
            assertThat(decisions).as("round %s", round).hasSize(round + 1);
            master.restart(FailureHandlings.restart(decisions.get(round)));
            runSteps();
        }

        assertThat(decisions).hasSize(3);
        assertThat(FailureHandlings.failJob(decisions.get(2)).failure()).hasRootCause(gone);
        assertThat(deployed)
                .as("task 1 on w1 stops each round")
                .containsExactly("0.0", "0.1", "0.2");
        assertThat(cancelled).contains("0.0", "0.1", "0.2");
        assertThat(master.hasPendingDeployments()).isFalse();
        assertThat(steps).isEmpty();
    }

    private void runSteps() throws IOException {
        while (!steps.isEmpty()) {
            steps.remove(0).run();
        }
    }

    private static RestartBackoffPolicy retries(int restarts) {
        return RestartBackoffPolicy.fixedDelay(restarts, Duration.ZERO);
    }
}
