package io.railyard.shuffle.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.local.LocalEngine.BlockingShuffle;
import io.railyard.topology.JobGraph;
import io.railyard.topology.RandomJobGraphs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random job graphs (every pattern and partition type, datasets with several consumer vertices) run
 * end to end, without and with a task failing mid-way: every sink receives exactly what the
 * sources' records reach it with, and no page, file or partition is left.
 */
class LocalEnginePropertyTest {
    private static final RandomJobGraphs.Shape SHAPE = new RandomJobGraphs.Shape(6, 6);
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(1024).build();

    @TempDir Path dir;

    private static boolean runnable(JobGraph graph) {
        try {
            LocalEngine.checkRunnable(graph);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 30);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void randomJobs_deliverExactly_withAndWithoutAFailure(long seed) throws Exception {
        JobGraph graph = RandomJobGraphs.generate(seed, SHAPE);
        assumeTrue(runnable(graph), "a dataset whose consumers cannot share its partitions");
        SplittableRandom random = new SplittableRandom(seed);
        ForwardingJob job = ForwardingJob.of(graph, 300, 32, seed);
        int v = random.nextInt(graph.numJobVertices());
        ForwardingJob failing =
                job.failing(v, random.nextInt(graph.parallelism(v)), 0, random.nextInt(100));
        // Enough slots for any pipelined region: tasks wait for slots, never for each other.
        try (LocalEngine engine =
                new LocalEngine(dir, 2, graph.numTasks(), OPTIONS, BlockingShuffle.SORT)) {
            for (ForwardingJob run : new ForwardingJob[] {job, failing}) {
                JobResult result =
                        engine.run(
                                graph,
                                run,
                                RestartBackoffPolicy.fixedDelay(10, Duration.ZERO),
                                Duration.ofSeconds(60));

                assertThat(result.state())
                        .as("seed %s, cause %s", seed, result.cause())
                        .isEqualTo(JobResult.State.FINISHED);
                Tally[] expected = run.expectedReceived();
                for (int sink : result.committed().keySet()) {
                    assertThat(result.committed().get(sink))
                            .as("seed %s, sink vertex %s", seed, sink)
                            .isEqualTo(expected[sink]);
                }
                assertThat(result.leakedPages()).as("pages left").isZero();
                assertThat(result.leakedFiles()).as("files left").isZero();
                assertThat(result.partitionsLeft()).as("partitions left").isZero();
            }
        }
    }
}
