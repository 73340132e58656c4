package io.railyard.local;

import static io.railyard.topology.DistributionPattern.POINTWISE;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.topology.JobGraphBuilder;
import io.railyard.topology.ResultPartitionType;
import io.railyard.worker.TaskCode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.IntStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reliability row 12, end to end on the local engine: repeated TaskExecutor loss on a chain of
 * regions, each region's attempt count equal to the closed form (as Flink's {@code
 * BatchFineGrainedRecoveryITCase}). The scenario and its derivation are those of the failover
 * module's {@code WorkerLossBacktrackingTest}, here with real partitions on one real worker of one
 * slot: a chain of {@code N} BLOCKING stages of parallelism 1; stage {@code k}'s first run throws;
 * its second run loses the worker ({@link LocalEngine#loseWorker}: every partition on it released
 * and reported lost, the running task fails); later runs forward their records.
 *
 * <p>Region {@code r} ends at attempt {@code N + r + 1} (the {@code N} worker losses restart the
 * whole chain, each of the throws of stages {@code 0..r} restarts {@code r} with everything
 * downstream), after {@code N - r + 2} runs; {@code 2N} restarts; the output is exact and nothing
 * is left behind.
 */
class WorkerLossChainEngineTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(256).build();

    @TempDir Path dir;

    private static JobGraph chain(int stages) {
        JobGraphBuilder builder = JobGraph.builder();
        for (int s = 0; s < stages; s++) {
            builder.addVertex("s" + s, 1);
        }
        for (int s = 1; s < stages; s++) {
            builder.connect("s" + (s - 1), "s" + s, POINTWISE, ResultPartitionType.BLOCKING);
        }
        return builder.build();
    }

    @ParameterizedTest(name = "{0} stages")
    @ValueSource(ints = {1, 2, 4})
    void repeatedWorkerLoss_onAChain_givesEveryRegionItsClosedFormAttempt(int n) throws Exception {
        JobGraph graph = chain(n);
        ForwardingJob job = ForwardingJob.of(graph, 500, 32, 23);
        AtomicIntegerArray runs = new AtomicIntegerArray(n);
        AtomicIntegerArray lastAttempt = new AtomicIntegerArray(n);
        try (LocalEngine engine = new LocalEngine(dir, 1, 1, OPTIONS, PartitionKind.SORT)) {
            TaskCode.Factory failing =
                    (vertex, subtask, attempt) -> {
                        TaskCode code = job.create(vertex, subtask, attempt);
                        return Steps.first(
                                context -> {
                                    lastAttempt.set(vertex, attempt);
                                    int run = runs.incrementAndGet(vertex);
                                    if (run == 1) {
                                        throw new IllegalStateException("s" + vertex + " throws");
                                    }
                                    if (run == 2) {
                                        engine.loseWorker(0).get(10, TimeUnit.SECONDS);
                                    }
                                },
                                code); // on a lost worker: fails at once
                    };
            JobResult result =
                    engine.run(
                            graph,
                            failing,
                            RestartBackoffPolicy.fixedDelay(2 * n, Duration.ZERO),
                            Duration.ofSeconds(60));

            assertThat(result.outcome()).as("outcome").isEqualTo(JobResult.FINISHED);
            int[] attempts = IntStream.range(0, n).map(lastAttempt::get).toArray();
            int[] runCounts = IntStream.range(0, n).map(runs::get).toArray();
            assertThat(attempts)
                    .as("final attempt per region")
                    .containsExactly(IntStream.range(0, n).map(r -> n + r + 1).toArray());
            assertThat(runCounts)
                    .as("runs per region")
                    .containsExactly(IntStream.range(0, n).map(r -> n - r + 2).toArray());
            assertThat(result.stats().restarts()).isEqualTo(2 * n);
            assertThat(result.committed().get(n - 1)).isEqualTo(job.expectedReceived()[n - 1]);
            assertThat(result.leaks().pages()).as("pages left").isZero();
            assertThat(result.leaks().files()).as("files left").isZero();
            assertThat(result.leaks().partitions()).as("partitions nobody released").isZero();
        }
    }
}
