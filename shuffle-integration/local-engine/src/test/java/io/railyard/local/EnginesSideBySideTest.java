package io.railyard.local;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several engines in one process at once (an embedder running two jobs, or tests in parallel), on
 * one parent directory: each sweeps stale directories when it starts, and must not take the other's
 * — which belongs to a live process, this one — for stale. Both jobs run exactly, under task
 * failures, and leave nothing.
 */
class EnginesSideBySideTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(512).build();

    @TempDir Path parent;

    @Test
    void twoEngines_onOneParent_runTheirJobsAtOnce_exactly() throws Exception {
        JobGraph blocking = graph(ResultPartitionType.BLOCKING);
        JobGraph hybrid = graph(ResultPartitionType.HYBRID_FULL);
        ForwardingJob first = ForwardingJob.of(blocking, 20_000, 64, 1).failing(1, 0, 0, 100);
        ForwardingJob second = ForwardingJob.of(hybrid, 20_000, 64, 2).failing(1, 2, 0, 100);
        try (LocalEngine one = new LocalEngine(parent, 2, 4, OPTIONS, PartitionKind.SORT);
                LocalEngine two = new LocalEngine(parent, 2, 4, OPTIONS, PartitionKind.HASH)) {
            try (Stream<Path> dirs = Files.list(parent)) {
                assertThat(dirs.filter(Files::isDirectory))
                        .as("each engine's directory")
                        .hasSize(2);
            }
            CompletableFuture<JobResult> a =
                    CompletableFuture.supplyAsync(() -> run(one, blocking, first));
            CompletableFuture<JobResult> b =
                    CompletableFuture.supplyAsync(() -> run(two, hybrid, second));
            assertExact(a.get(2, TimeUnit.MINUTES), first);
            assertExact(b.get(2, TimeUnit.MINUTES), second);
        }
        try (Stream<Path> left = Files.list(parent)) {
            assertThat(left).as("left under the parent").isEmpty();
        }
    }

    /** Runs {@code job} with a policy of its own: a policy is confined to one job's thread. */
    private static JobResult run(LocalEngine engine, JobGraph graph, ForwardingJob job) {
        try {
            RestartBackoffPolicy policy =
                    RestartBackoffPolicy.fixedDelay(100, Duration.ofMillis(1));
            return engine.run(graph, job, policy, Duration.ofSeconds(90));
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    private static void assertExact(JobResult result, ForwardingJob job) {
        assertThat(result.outcome()).as("outcome").isEqualTo(JobResult.FINISHED);
        assertThat(result.committed().get(1)).isEqualTo(job.expectedReceived()[1]);
        assertThat(result.stats().restarts()).as("restarts (failures injected)").isPositive();
        assertThat(result.leaks().pages()).as("pages left").isZero();
        assertThat(result.leaks().files()).as("files left").isZero();
    }

    private static JobGraph graph(ResultPartitionType type) {
        return JobGraph.builder()
                .addVertex("source", 4)
                .addVertex("sink", 4)
                .connect("source", "sink", ALL_TO_ALL, type)
                .build();
    }
}
