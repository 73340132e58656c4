package io.railyard.local;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import io.railyard.worker.Tally;
import io.railyard.worker.TaskCode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task whose code ignores its cancellation (it never reads, writes or checks {@code
 * isCancelled()}): the job still ends as a result once the cancel grace is over, everything else
 * released — the JobManager's thread stopped, its partition released, no file or blob left — and
 * the attempt still running is named in {@link JobResult.Leaks#tasksNotStopped()}; the pages it
 * holds come back when its code returns. Before, the engine threw an {@code IllegalStateException}
 * from {@code run}, past its own cleanup.
 */
class StuckTaskEngineTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(256).build();

    @TempDir Path dir;

    @Test
    void aTaskIgnoringItsCancellation_endsTheJobAsAResult_namingIt_withTheRestReleased()
            throws Exception {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 2)
                        .addVertex("sink", 2)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.PIPELINED)
                        .build();
        ForwardingJob job = ForwardingJob.of(graph, 1_000, 16, 5);
        CountDownLatch stuck = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        TaskCode.Factory code =
                (vertex, subtask, attempt) -> {
                    if (vertex == 0 && subtask == 1) {
                        return context -> {
                            stuck.countDown();
                            while (!letGo.await(10, TimeUnit.MILLISECONDS)) {
                                // busy elsewhere: never looks at its cancellation
                            }
                            return TaskCode.Step.done(Tally.ZERO);
                        };
                    }
                    if (vertex == 0) {
                        return context -> {
                            stuck.await();
                            throw new IllegalStateException("source#0 cannot read its input");
                        };
                    }
                    return job.create(vertex, subtask, attempt);
                };

        try (LocalEngine engine = new LocalEngine(dir, 2, 2, OPTIONS, PartitionKind.SORT)) {
            engine.cancelGrace(Duration.ofMillis(300));
            long idle = engine.pagesInUse(); // the read schedulers' own
            try {
                JobResult result =
                        engine.run(
                                graph,
                                code,
                                RestartBackoffPolicy.noRestart(),
                                Duration.ofMinutes(1));

                assertThat(result.outcome()).isInstanceOf(JobResult.Failed.class);
                assertThat(((JobResult.Failed) result.outcome()).cause())
                        .hasRootCauseMessage("source#0 cannot read its input");
                assertThat(result.leaks().tasksNotStopped())
                        .singleElement()
                        .asString()
                        .startsWith("task 1 (vertex 0, subtask 1) attempt 0")
                        .endsWith("(cancelled)");
                assertThat(result.leaks().files()).as("partition files").isZero();
                assertThat(result.leaks().blobs()).as("blobs").isZero();
                assertThat(result.leaks().isClean()).isFalse();
                assertThat(Thread.getAllStackTraces().keySet())
                        .as("the job's JobManager thread is stopped")
                        .noneMatch(
                                t -> t.isAlive() && t.getName().startsWith("railyard-jobmaster-"));
            } finally {
                letGo.countDown();
            }
            // Its pages (its writer's and gates' reservation) are its own until its code returns.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (engine.pagesInUse() > idle && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(engine.pagesInUse()).as("pages once it returned").isEqualTo(idle);
        }
    }
}
