package io.railyard.failover;

import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import io.railyard.regions.scheduling.TestingRegionDeployer;
import io.railyard.topology.JobGraph;
import io.railyard.topology.JobGraphBuilder;
import io.railyard.topology.PartitionId;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reliability row 12: repeated TaskExecutor loss on a chain of regions, with each region's attempt
 * count checked against a closed form, as Flink's {@code BatchFineGrainedRecoveryITCase} does.
 *
 * <h2>Scenario</h2>
 *
 * A chain of {@code N} stages {@code s0 -> s1 -> ... -> s(N-1)}, each of parallelism 1, joined by
 * BLOCKING edges: {@code N} singleton regions, region {@code r} = stage {@code r}. One worker with
 * one slot holds every partition. Stage {@code k}'s first run throws (E_k); its second run loses
 * the worker under it (W_k): every partition on the worker is reported lost, then the task fails;
 * every later run finishes. A task whose input is not on the worker fails reading it (a lost
 * partition), as a consumer does on a real worker — with backtracking right, that never happens.
 *
 * <h2>Closed form</h2>
 *
 * <ul>
 *   <li>E_k restarts {@code {k, ..., N-1}}: s(k-1)'s partition is on the worker (k has not
 *       finished, so it is not released), and every consumer of a restarted region restarts.
 *   <li>W_k restarts all {@code N} regions: the worker held only s(k-1)'s partition, now lost, so
 *       s(k-1) reruns; s(k-2)'s was released when s(k-1) finished, so s(k-2) reruns too, and so on
 *       back to the source; the consumers downstream restart as for E_k.
 * </ul>
 *
 * So region {@code r}'s attempt — the restart decisions that include it — is {@code N + r + 1}: the
 * {@code N} worker losses plus E_0..E_r. It runs {@code N - r + 2} times: E_r, W_r, the run after
 * W_r, and one rerun for each worker loss of a later stage ({@code N - 1 - r}), never in between (a
 * downstream region restarted before it ran is not run for that attempt). The policy counts {@code
 * 2N} failures: a fixed-delay policy of {@code 2N} attempts lets the job finish.
 */
class WorkerLossBacktrackingTest {
    private final TestingRegionDeployer deployer = new TestingRegionDeployer();
    private final BitSet onWorker = new BitSet(); // partitions the one worker holds
    private int counted;

    private static JobGraph chain(int stages) {
        JobGraphBuilder builder = JobGraph.builder();
        for (int s = 0; s < stages; s++) {
            builder.addVertex("s" + s, 1);
        }
        for (int s = 1; s < stages; s++) {
            builder.connect("s" + (s - 1), "s" + s, POINTWISE, BLOCKING);
        }
        return builder.build();
    }

    @ParameterizedTest(name = "{0} stages")
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void repeatedWorkerLoss_backtracksToTheSource_andEveryAttemptCountIsTheClosedForm(int n) {
        JobGraph graph = chain(n);
        RegionInputs inputs = RegionInputs.of(PipelinedRegions.build(ExecutionTopology.of(graph)));
        RegionSchedulingStrategy strategy = new RegionSchedulingStrategy(inputs, deployer);
        RestartBackoffPolicy policy = RestartBackoffPolicy.fixedDelay(2 * n, Duration.ZERO);
        FailoverHandler handler =
                new FailoverHandler(
                        inputs,
                        strategy,
                        () -> {
                            counted++;
                            return policy.onFailure();
                        },
                        (from, to) -> onWorker.clear(from, to)); // released on the worker
        strategy.startScheduling();

        int[] runs = run(graph, inputs.regions(), handler);

        assertThat(handler.isJobFailed()).as("job failed: %s", handler.jobFailure()).isFalse();
        int[] expectedAttempts = IntStream.range(0, n).map(r -> n + r + 1).toArray();
        int[] expectedRuns = IntStream.range(0, n).map(r -> n - r + 2).toArray();
        int[] attempts = IntStream.range(0, n).map(handler::attempt).toArray();
        assertThat(attempts).as("attempt per region").containsExactly(expectedAttempts);
        assertThat(runs).as("runs per region").containsExactly(expectedRuns);
        assertThat(counted).as("failures counted").isEqualTo(2 * n);
        assertThat(onWorker.isEmpty()).as("every partition released at the end").isTrue();
    }

    /** Runs the job to its end as the class notes say; returns how often each stage ran. */
    private int[] run(JobGraph graph, PipelinedRegions regions, FailoverHandler handler) {
        int n = graph.numTasks();
        int[] runs = new int[n];
        BitSet done = new BitSet(n); // tasks whose current attempt finished
        ArrayDeque<int[]> slot = new ArrayDeque<>(); // {task, attempt}, in deployment order
        while (done.cardinality() < n) {
            for (int region : deployer.takeDeployed()) {
                int task = region; // a chain of singleton regions: region r is stage r's task
                assertThat(regions.regionOf(task)).isEqualTo(region);
                slot.add(new int[] {task, handler.attempt(task)});
            }
            int[] next = slot.poll();
            assertThat(next).as("nothing deployed, %s of %s finished", done, n).isNotNull();
            int task = next[0];
            if (next[1] != handler.attempt(task)) {
                continue; // cancelled by a restart before it ran
            }
            runs[task]++;
            FailureHandling handling = runOnce(graph, handler, task, runs[task]);
            if (handling == null) {
                done.set(task);
                continue;
            }
            assertThat(handling)
                    .as(graph.taskName(task))
                    .isInstanceOf(FailureHandling.Restart.class);
            FailureHandlings.restart(handling).tasks().forEachTask(done::clear);
            handler.restart(FailureHandlings.restart(handling));
        }
        return runs;
    }

    /** One run of {@code task}: its failure's handling, or null if it finished. */
    private @Nullable FailureHandling runOnce(
            JobGraph graph, FailoverHandler handler, int task, int run) {
        int attempt = handler.attempt(task);
        int input = task == 0 ? -1 : graph.firstPartition(task - 1); // s(k-1)'s partition
        if (input >= 0 && !onWorker.get(input)) {
            return handler.onTaskFailed(
                    task,
                    attempt,
                    new IllegalStateException("input lost"),
                    new PartitionId(input, handler.attempt(task - 1)));
        }
        if (run == 1) {
            return handler.onTaskFailed(task, attempt, new IllegalStateException("E"));
        }
        if (run == 2) {
            for (int p = onWorker.nextSetBit(0); p >= 0; p = onWorker.nextSetBit(p + 1)) {
                handler.onPartitionLost(new PartitionId(p, handler.attempt(graph.producerTask(p))));
            }
            onWorker.clear();
            return handler.onTaskFailed(task, attempt, new IllegalStateException("W"));
        }
        if (task < graph.numTasks() - 1) {
            onWorker.set(graph.firstPartition(task)); // written before it reports finished
        }
        assertThat(handler.onTaskFinished(task, attempt)).isTrue();
        return null;
    }
}
