package io.railyard.jobmaster;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.failover.FailureHandling;
import io.railyard.failover.FailureHandlings;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.failover.RestartSet;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import io.railyard.topology.ResultPartitionType;
import it.unimi.dsi.fastutil.ints.IntList;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The scheduler core's own contract: what its actions hear after each event and in which order,
 * pipelined partitions released with their region, and its thread confinement.
 */
class JobSchedulerTest {
    private static final int P = 3;
    private final List<String> heard = new ArrayList<>();
    private final Exception failure = new IllegalStateException("task failed");

    /** source (P) -> sink (P), all-to-all, of {@code type}. */
    private static JobGraph twoVertices(ResultPartitionType type) {
        return JobGraph.builder()
                .addVertex("source", P)
                .addVertex("sink", P)
                .connect("source", "sink", ALL_TO_ALL, type)
                .build();
    }

    private JobScheduler scheduler(JobGraph graph, RestartBackoffPolicy policy) {
        return new JobScheduler(graph, policy, new Recording(heard, region -> {}));
    }

    private static RestartBackoffPolicy retries() {
        return RestartBackoffPolicy.fixedDelay(5, Duration.ZERO);
    }

    @Test
    void blockingJob_deploysByRegion_andReleasesWhatItsConsumersFinished() {
        JobScheduler scheduler = scheduler(twoVertices(ResultPartitionType.BLOCKING), retries());

        scheduler.start();
        assertThat(heard).containsExactly("deploy [0, 1, 2]");
        heard.clear();
        for (int source = 0; source < P; source++) {
            scheduler.onTaskFinished(source, 0);
        }
        assertThat(heard).containsExactly("deploy [3, 4, 5]");
        heard.clear();
        for (int sink = P; sink < 2 * P; sink++) {
            scheduler.onTaskFinished(sink, 0);
        }

        assertThat(heard).as("the sources' partitions, once every sink finished").hasSize(1);
        assertThat(heard.get(0)).isEqualTo("release [0, 3)");
    }

    @Test
    void pipelinedPartitions_areReleasedWhenTheirWholeRegionFinished() {
        JobScheduler scheduler = scheduler(twoVertices(ResultPartitionType.PIPELINED), retries());
        scheduler.start();
        assertThat(heard).containsExactly("deploy [0]");
        heard.clear();

        for (int task = 0; task < 2 * P - 1; task++) {
            scheduler.onTaskFinished(task, 0);
        }
        assertThat(heard).as("one task of the region still runs").isEmpty();
        scheduler.onTaskFinished(2 * P - 1, 0);

        assertThat(heard).containsExactly("release [0, 3)");
    }

    @Test
    void aRestart_stopsItsSetFirst_thenTheRestartDeploysIt_withTheNextAttempt() {
        JobScheduler scheduler = scheduler(twoVertices(ResultPartitionType.BLOCKING), retries());
        scheduler.start();
        for (int source = 0; source < P; source++) {
            scheduler.onTaskFinished(source, 0);
        }
        heard.clear();

        FailureHandling handling =
                scheduler.onTaskFailed(4, 0, failure, new PartitionId(1, 0)); // source#1's
        FailureHandling.Restart restart = FailureHandlings.restart(handling);

        assertThat(heard).containsExactly("stop " + restart.tasks());
        assertThat(scheduler.attempt(1)).isEqualTo(1);
        heard.clear();
        scheduler.restart(restart);
        assertThat(heard).containsExactly("deploy [1]");
        heard.clear();
        scheduler.onTaskFinished(1, 1);
        assertThat(heard)
                .as("the sinks, with their producer back")
                .containsExactly("deploy [3, 4, 5]");
    }

    @Test
    void whenThePolicyGivesUp_everythingStops_andEveryTrackedPartitionIsReleased() {
        JobScheduler scheduler =
                scheduler(
                        twoVertices(ResultPartitionType.BLOCKING),
                        RestartBackoffPolicy.noRestart());
        scheduler.start();
        scheduler.onTaskFinished(0, 0);
        heard.clear();

        FailureHandling handling = scheduler.onTaskFailed(1, 0, failure);

        assertThat(FailureHandlings.failJob(handling).failure()).hasCause(failure);
        assertThat(heard).containsExactly("stopAll", "release [0, 3)");
        assertThat(scheduler.isJobFailed()).isTrue();
        assertThat(scheduler.onTaskFinished(2, 0)).as("a late event of the failed job").isFalse();
    }

    @Test
    void anEventFromAnotherThread_failsNamingBothThreads() throws Exception {
        JobScheduler scheduler = scheduler(twoVertices(ResultPartitionType.BLOCKING), retries());
        scheduler.start();
        CompletableFuture<Boolean> elsewhere = new CompletableFuture<>();
        Thread other =
                new Thread(
                        () -> {
                            try {
                                elsewhere.complete(scheduler.onTaskFinished(0, 0));
                            } catch (RuntimeException e) {
                                elsewhere.completeExceptionally(e);
                            }
                        },
                        "not-the-main-thread");
        other.start();
        other.join();

        assertThatThrownBy(elsewhere::get)
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'" + Thread.currentThread().getName() + "'")
                .hasMessageContaining("'not-the-main-thread'");
        assertThat(scheduler.onTaskFinished(0, 0)).as("nothing was applied").isTrue();
    }

    @Test
    void anActionCallingBack_failsAtOnce() {
        JobGraph graph = twoVertices(ResultPartitionType.BLOCKING);
        JobScheduler[] self = new JobScheduler[1];
        self[0] =
                new JobScheduler(
                        graph,
                        retries(),
                        new Recording(heard, regions -> self[0].onTaskFinished(0, 0)));

        assertThatThrownBy(() -> self[0].start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("called back from inside one of its own callbacks");
    }

    /** Writes every action down as a line; {@code onDeploy} runs inside deploy. */
    private static final class Recording implements JobScheduler.Actions {
        private final List<String> heard;
        private final Consumer<IntList> onDeploy;

        Recording(List<String> heard, Consumer<IntList> onDeploy) {
            this.heard = heard;
            this.onDeploy = onDeploy;
        }

        @Override
        public void deploy(IntList regions) {
            heard.add("deploy " + regions);
            onDeploy.accept(regions);
        }

        @Override
        public void release(int from, int to) {
            heard.add("release [" + from + ", " + to + ")");
        }

        @Override
        public void stop(RestartSet tasks) {
            heard.add("stop " + tasks);
        }

        @Override
        public void stopAll() {
            heard.add("stopAll");
        }
    }
}
