package io.railyard.local;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Back-pressure and admission with many live tasks on one thread (issue 35): 400 tasks of one
 * all-to-all edge on one worker whose 400 slots run on a single task thread, in network memory that
 * holds every gate's guarantee but the writers of only a fraction of the sources at once. A
 * pipelined producer must wait for its consumers (who share its thread) and for memory other
 * producers give back; hybrid producers spill; blocking sinks wait for every source. Every exchange
 * must finish exactly, without a restart and within the watchdog (a deadlock would end it as a
 * timeout), leaving no page, file or partition behind.
 *
 * <p>Seeded mutation: with a sink's start that waits for spare pages as a source's does, and
 * without end (the no-inputs condition of {@code TaskShuffle.tryStart}'s spare-page wait removed
 * and {@code TaskRun.mayAwaitSpare} always true), the PIPELINED row hangs — the first sources hold
 * every page waiting for sinks that wait for pages — and times out. With the first alone it
 * finishes, slowly (about 22 s: each sink's start then waits out the 1 s patience).
 */
class ManyTasksPerThreadEngineTest {
    private static final int PARALLELISM = 200;

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(
            value = ResultPartitionType.class,
            names = {"PIPELINED", "HYBRID_FULL", "HYBRID_SELECTIVE", "BLOCKING"})
    void fourHundredTasksOnOneThread_inTightMemory_runExactly(ResultPartitionType type)
            throws Exception {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", PARALLELISM)
                        .addVertex("sink", PARALLELISM)
                        .connect("source", "sink", ALL_TO_ALL, type)
                        .build();
        // Every gate's page (200) and the IO thread's pledge fit; the writers (4 + 2 pages each,
        // 1,200 for all) do not: about 50 of them at once.
        ShuffleOptions options =
                ShuffleOptions.builder()
                        .pageSizeBytes(1024)
                        .gatePages(1)
                        .sortBufferPages(4)
                        .totalPages(17 + PARALLELISM + 300)
                        .build();
        ForwardingJob job = ForwardingJob.of(graph, 400, 16, 35);
        try (LocalEngine engine =
                new LocalEngine(dir, 1, 2 * PARALLELISM, 1, options, PartitionKind.SORT, null)) {
            JobResult result =
                    engine.run(graph, job, RestartBackoffPolicy.noRestart(), Duration.ofMinutes(3));

            assertThat(result.outcome()).as("%s", result.outcome()).isEqualTo(JobResult.FINISHED);
            assertThat(result.committedTotal()).isEqualTo(job.expectedReceived()[1]);
            assertThat(result.stats().restarts()).isZero();
            assertThat(result.leaks().isClean()).as("%s", result.leaks()).isTrue();
        }
    }
}
