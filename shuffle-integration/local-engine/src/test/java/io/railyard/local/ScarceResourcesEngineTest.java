package io.railyard.local;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scarce memory and slots on the local engine: a job that can never fit in a worker's network
 * memory is refused before anything is deployed, in one line naming what does not fit, the pages it
 * needs and those there are (before, each task failed with an {@code
 * InsufficientNetworkMemoryException} and was restarted until the back-off gave up); a pipelined
 * region with more tasks than the worker has slots still runs, exactly.
 */
class ScarceResourcesEngineTest {
    /** 256 pages of 4 KiB; the IO thread pledges 17, so tasks can pledge 239. */
    private static final ShuffleOptions SMALL =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(256).build();

    @TempDir Path dir;

    @Test
    void aTaskWhoseWritersCanNeverFit_isRefusedBeforeDeploying_namingItAndThePages()
            throws Exception {
        JobGraph graph = // a hash writer pledges a page per subpartition (300) and one to compress
                JobGraph.builder()
                        .addVertex("source", 1)
                        .addVertex("sink", 300)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .build();
        try (LocalEngine engine = new LocalEngine(dir, 2, 2, SMALL, PartitionKind.HASH)) {
            long idle = engine.pagesInUse();

            assertRefused(engine, graph)
                    .hasMessage(
                            "task source#0 can never run: its writers and gates pledge 301 pages"
                                    + " of a worker's network memory, which can pledge 239 of 256"
                                    + " pages; raise shuffle.network.memory.total (now 1 MiB) or lower"
                                    + " the parallelism of its consumers");
            assertThat(engine.pagesInUse()).isEqualTo(idle);
            assertThat(partitionFiles()).as("nothing deployed").isZero();
        }
    }

    /**
     * A pipelined region whose writers' sum does not fit a worker at once (16 writers of 32 pages,
     * 512 pages, 239 a worker can pledge): a writer holds its guarantee only while it writes, so
     * the producers that cannot make their partitions when deployed make them once others finished.
     * Refused before the tasks were cooperative; it runs, exactly, without a restart.
     */
    @Test
    void aPipelinedRegionWhoseWritersDoNotFitAtOnce_runsExactly() throws Exception {
        ShuffleOptions bigWriters = SMALL.toBuilder().sortBufferPages(30).build(); // 32 each
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("map", 16)
                        .addVertex("sink", 16)
                        .connect("map", "sink", ALL_TO_ALL, ResultPartitionType.PIPELINED)
                        .build();
        assertRunsExactly(new LocalEngine(dir, 2, 8, bigWriters, PartitionKind.SORT), graph);
    }

    /**
     * Two hybrid partitions one sink reads, whose writers do not fit the one worker at once (142
     * pages each, 239 it can pledge): the second source makes its partition once the first finished
     * (lowering its guarantee to 0). Refused before; it runs, exactly.
     */
    @Test
    void hybridPartitionsOneConsumerReadsThatDoNotFitAtOnce_runExactly() throws Exception {
        ShuffleOptions bigWriters = SMALL.toBuilder().sortBufferPages(140).build();
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 2)
                        .addVertex("sink", 1)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.HYBRID_FULL)
                        .build();
        assertRunsExactly(new LocalEngine(dir, 1, 2, bigWriters, PartitionKind.SORT), graph);
    }

    /** Runs a forwarding job of {@code graph} on {@code engine}: finished, exact, no restart. */
    private static void assertRunsExactly(LocalEngine engine, JobGraph graph) throws Exception {
        ForwardingJob job = ForwardingJob.of(graph, 3_000, 16, 3);
        try (engine) {
            JobResult result =
                    engine.run(graph, job, RestartBackoffPolicy.noRestart(), Duration.ofMinutes(2));

            assertThat(result.outcome()).as("%s", result.outcome()).isEqualTo(JobResult.FINISHED);
            assertThat(result.committedTotal())
                    .isEqualTo(job.expectedReceived()[graph.numJobVertices() - 1]);
            assertThat(result.stats().restarts()).isZero();
            assertThat(result.leaks().isClean()).as("%s", result.leaks()).isTrue();
        }
    }

    /**
     * Two hash writers of 121 pages each do not fit at once in 239 pledgeable pages; one does. With
     * two slots both sources start together: the second waits for the first one's memory instead of
     * failing (with no restart allowed, failing would fail the job).
     */
    @Test
    void blockingTasksThatFitOneAtATime_waitForMemory_andRunExactlyWithoutARestart()
            throws Exception {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 2)
                        .addVertex("sink", 120)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .build();
        ForwardingJob job = ForwardingJob.of(graph, 3_000, 16, 5);
        try (LocalEngine engine = new LocalEngine(dir, 1, 2, SMALL, PartitionKind.HASH)) {
            JobResult result =
                    engine.run(graph, job, RestartBackoffPolicy.noRestart(), Duration.ofMinutes(2));

            assertThat(result.outcome()).as("%s", result.outcome()).isEqualTo(JobResult.FINISHED);
            assertThat(result.committedTotal()).isEqualTo(job.expectedReceived()[1]);
            assertThat(result.stats().restarts()).isZero();
            assertThat(result.leaks().isClean()).as("%s", result.leaks()).isTrue();
        }
    }

    /**
     * Two independent hybrid chains on one worker: each producer's writer (142 pages) fits alone,
     * not both. The second producer cannot create its partition when it is deployed; it creates it
     * when it starts, once the first chain's partition is released, and its consumer waits for it.
     */
    @Test
    void aHybridProducerWithoutMemoryAtDeployment_createsItsPartitionOnceItComesBack()
            throws Exception {
        ShuffleOptions bigWriters = SMALL.toBuilder().sortBufferPages(140).build();
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 1)
                        .addVertex("a-sink", 1)
                        .addVertex("b", 1)
                        .addVertex("b-sink", 1)
                        .connect("a", "a-sink", ALL_TO_ALL, ResultPartitionType.HYBRID_FULL)
                        .connect("b", "b-sink", ALL_TO_ALL, ResultPartitionType.HYBRID_FULL)
                        .build();
        ForwardingJob job = ForwardingJob.of(graph, 3_000, 16, 9);
        try (LocalEngine engine = new LocalEngine(dir, 1, 2, bigWriters, PartitionKind.SORT)) {
            JobResult result =
                    engine.run(graph, job, RestartBackoffPolicy.noRestart(), Duration.ofMinutes(2));

            assertThat(result.outcome()).as("%s", result.outcome()).isEqualTo(JobResult.FINISHED);
            assertThat(result.committed().get(1)).isEqualTo(job.expectedReceived()[1]);
            assertThat(result.committed().get(3)).isEqualTo(job.expectedReceived()[3]);
            assertThat(result.stats().restarts()).isZero();
            assertThat(result.leaks().isClean()).as("%s", result.leaks()).isTrue();
        }
    }

    @Test
    void aPipelinedRegionWithMoreTasksThanSlots_runsExactly() throws Exception {
        JobGraph graph = // 12 tasks in one region, 2 slots on the one worker
                JobGraph.builder()
                        .addVertex("source", 6)
                        .addVertex("sink", 6)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.PIPELINED)
                        .build();
        ForwardingJob job = ForwardingJob.of(graph, 5_000, 32, 7);
        ShuffleOptions options =
                ShuffleOptions.builder().pageSizeBytes(4096).totalPages(1024).build();
        try (LocalEngine engine = new LocalEngine(dir, 1, 2, options, PartitionKind.SORT)) {
            JobResult result =
                    engine.run(graph, job, RestartBackoffPolicy.noRestart(), Duration.ofMinutes(2));

            assertThat(result.outcome()).isEqualTo(JobResult.FINISHED);
            assertThat(result.committedTotal()).isEqualTo(job.expectedReceived()[1]);
            assertThat(result.stats().maxSlotsBusy()).isEqualTo(2);
            assertThat(result.leaks().isClean()).as("%s", result.leaks()).isTrue();
        }
    }

    /**
     * Asserts that running {@code graph} on {@code engine} (a forwarding job, 100 restarts allowed)
     * is refused with an {@link IllegalArgumentException}, returned for its message.
     */
    private static AbstractThrowableAssert<?, ? extends Throwable> assertRefused(
            LocalEngine engine, JobGraph graph) {
        ForwardingJob job = ForwardingJob.of(graph, 1_000, 16, 3);
        return assertThatThrownBy(
                        () ->
                                engine.run(
                                        graph,
                                        job,
                                        RestartBackoffPolicy.fixedDelay(100, Duration.ZERO),
                                        Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private long partitionFiles() throws Exception {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> p.toString().contains("worker-") && Files.isRegularFile(p))
                    .count();
        }
    }
}
