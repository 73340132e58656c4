package io.railyard.jobmaster;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.deployment.DeploymentDescriptors;
import io.railyard.deployment.InMemoryBlobStore;
import io.railyard.deployment.JobId;
import io.railyard.deployment.OffloadOptions;
import io.railyard.deployment.ShuffleDescriptorSource;
import io.railyard.deployment.SliceBudget;
import io.railyard.deployment.WorkerTable;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The queue behind sliced deployment: regions queued as runs, expanded when reached, filtered. */
class DeploymentQueueTest {
    private static final int SOURCES = 6;
    private static final WorkerTable WORKERS = new WorkerTable(List.of("w0:1"));

    private static final JobGraph GRAPH =
            JobGraph.builder()
                    .addVertex("source", SOURCES)
                    .addVertex("sink", SOURCES)
                    .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                    .build();
    private static final ExecutionTopology TOPOLOGY = ExecutionTopology.of(GRAPH);
    private static final PipelinedRegions REGIONS = PipelinedRegions.build(TOPOLOGY);

    private final int[] attempts = new int[2 * SOURCES];
    private final List<String> deployed = new ArrayList<>();
    private final DeploymentQueue queue =
            new DeploymentQueue(
                    descriptors(), REGIONS, task -> attempts[task], SliceBudget.ofTasks(2));

    /** Sources of a BLOCKING all-to-all job (singleton regions): descriptors naming no producer. */
    private static DeploymentDescriptors descriptors() {
        ShuffleDescriptorSource shuffle =
                new ShuffleDescriptorSource() {
                    @Override
                    public WorkerTable workers() {
                        return WORKERS;
                    }

                    @Override
                    public int worker(int partition) {
                        return 0;
                    }

                    @Override
                    public int connectionIndex(int partition) {
                        return 0;
                    }

                    @Override
                    public int producerAttempt(int partition) {
                        return 0;
                    }
                };
        return new DeploymentDescriptors(
                new JobId(1, 2), TOPOLOGY, shuffle, new InMemoryBlobStore(), OffloadOptions.NEVER);
    }

    private void drain() throws Exception {
        while (queue.runSlice((task, attempt, descriptor) -> deployed.add(task + "@" + attempt))) {
            // one slice a step, as the main thread runs them
        }
    }

    private void queueEverySource() {
        for (int task = 0; task < SOURCES; task++) {
            queue.add(REGIONS.regionOf(task), 0);
        }
    }

    @Test
    void consecutiveRegionsAtOneAttempt_deployInOrder() throws Exception {
        queueEverySource();

        drain();

        assertThat(deployed).containsExactly("0@0", "1@0", "2@0", "3@0", "4@0", "5@0");
    }

    @Test
    void aRestartedRegionInsideAMergedRange_isDropped_andTheRegionsAroundItDeploy()
            throws Exception {
        queueEverySource();
        assertThat(queue.runSlice((task, attempt, d) -> deployed.add(task + "@" + attempt)))
                .isTrue();
        assertThat(deployed).containsExactly("0@0", "1@0");

        attempts[3] = 1; // a restart decision took task 3's region to its next attempt
        queue.invalidate();
        drain();

        assertThat(deployed).containsExactly("0@0", "1@0", "2@0", "4@0", "5@0");
    }

    @Test
    void aRegionRestartedBeforeItIsExpanded_isDropped() throws Exception {
        queueEverySource();
        attempts[4] = 1; // restarted after it was queued: its restart queues it again
        queue.add(REGIONS.regionOf(4), 1);

        drain();

        assertThat(deployed).containsExactly("0@0", "1@0", "2@0", "3@0", "5@0", "4@1");
    }

    @Test
    void aTaskWhoseDeployFailed_staysNext_untilItsRestartDropsIt_andTheRestDeploys()
            throws Exception {
        queueEverySource();
        IOException refused = new IOException("refused");

        assertThatThrownBy(
                        () ->
                                queue.runSlice(
                                        (task, attempt, d) -> {
                                            if (task == 1) {
                                                throw refused;
                                            }
                                            deployed.add(task + "@" + attempt);
                                        }))
                .isInstanceOfSatisfying(
                        DeploymentQueue.FailedDeploy.class,
                        f -> {
                            assertThat(f.task).isEqualTo(1);
                            assertThat(f.attempt).isZero();
                            assertThat(f.failure).isSameAs(refused);
                        });
        assertThat(queue.hasMore()).as("nothing dropped yet").isTrue();
        attempts[1] = 1; // the failure's restart decision took task 1 to its next attempt
        queue.invalidate();
        drain();

        assertThat(deployed).containsExactly("0@0", "2@0", "3@0", "4@0", "5@0");
    }
}
