package io.railyard.benchmarks.procedures;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.simulation.ShuffleMode;
import io.railyard.topology.JobGraph;
import io.railyard.topology.RandomJobGraphs;
import io.railyard.topology.ResultPartitionType;
import org.junit.jupiter.api.Test;

/**
 * {@code inspect --report}'s numbers ({@link JobReport}) on jobs small enough to count by hand:
 * regions, the largest region and restart set under each exchange mode, groups and connections,
 * what deployment ships and offloads, and the heap estimate's formula.
 */
class JobReportTest {

    /** a (2) → b (3) all-to-all, b → c (3) pointwise, both PIPELINED. */
    private static JobGraph pipelined() {
        return JobGraph.builder()
                .addVertex("a", 2)
                .addVertex("b", 3)
                .addVertex("c", 3)
                .connect("a", "b", ALL_TO_ALL, ResultPartitionType.PIPELINED)
                .connect("b", "c", POINTWISE, ResultPartitionType.PIPELINED)
                .build();
    }

    /** The same with a → b BLOCKING and b → c HYBRID_SELECTIVE. */
    private static JobGraph mixed() {
        return JobGraph.builder()
                .addVertex("a", 2)
                .addVertex("b", 3)
                .addVertex("c", 3)
                .connect("a", "b", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                .connect("b", "c", POINTWISE, ResultPartitionType.HYBRID_SELECTIVE)
                .build();
    }

    @Test
    void verticesEdgesAndGroups_areCounted() {
        JobReport report = JobReport.of(mixed(), 4);

        assertThat(report.vertices())
                .containsExactly(
                        new JobReport.Vertex("a", 2, 0, 2),
                        new JobReport.Vertex("b", 3, 1, 3),
                        new JobReport.Vertex("c", 3, 1, 3));
        assertThat(JobReport.of(pipelined(), 4).vertices())
                .extracting(JobReport.Vertex::regions)
                .containsExactly(1, 1, 1);
        assertThat(report.edges())
                .containsExactly(
                        new JobReport.Edge(
                                "a", "b", ALL_TO_ALL, ResultPartitionType.BLOCKING, 1, 6),
                        new JobReport.Edge(
                                "b", "c", POINTWISE, ResultPartitionType.HYBRID_SELECTIVE, 3, 3));
        assertThat(report.consumerGroups()).isEqualTo(4);
    }

    @Test
    void regionsAndTheLargestRestartSet_perExchangeMode() {
        JobReport report = JobReport.of(mixed(), 4);

        // As declared: 2 + 3 + 3 singleton regions. b#i fails: c#i reads its HYBRID_SELECTIVE
        // output, which cannot be read again, so c#i restarts too; a#0 fails: a#0, every b (its
        // BLOCKING consumers) and every c (consumers of the restarted b): 7.
        assertThat(report.failover().get(0))
                .isEqualTo(new JobReport.Failover(ShuffleMode.AS_DECLARED, 8, 1, "a#0", 7, "a#0"));
        // All blocking: the same regions; a#0 fails: a#0, every b, every c.
        assertThat(report.failover().get(1))
                .isEqualTo(new JobReport.Failover(ShuffleMode.BLOCKING, 8, 1, "a#0", 7, "a#0"));
        assertThat(report.failover().get(2).mode()).isEqualTo(ShuffleMode.HYBRID_FULL);
        assertThat(report.failover().get(2).regions()).isEqualTo(8);
    }

    @Test
    void aPipelinedJob_isOneRegionAsDeclared_andSplitsWhenItsExchangesAreBlocking() {
        JobReport report = JobReport.of(pipelined(), 4);

        assertThat(report.failover().get(0))
                .isEqualTo(new JobReport.Failover(ShuffleMode.AS_DECLARED, 1, 8, "a#0", 8, "a#0"));
        // PIPELINED edges keep their type in every mode (as Flink's batch-shuffle-mode does).
        assertThat(report.failover().get(1).regions()).isEqualTo(1);
    }

    @Test
    void deployment_countsEveryDescriptor_andOffloadsALargeGroupOncePerWorker() {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 4_200) // 4,200 x 1,000 connections: offloaded
                        .addVertex("sink", 1_000)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .build();
        JobReport.Deployment small = JobReport.of(mixed(), 4).deployment();
        JobReport.Deployment large = JobReport.of(graph, 4).deployment();

        assertThat(small.offloadedGroups()).isZero();
        assertThat(small.fetchedBytes()).isZero();
        assertThat(small.workersReached()).isBetween(1, 4);
        assertThat(small.descriptorBytes())
                .isGreaterThanOrEqualTo(8L * small.largestDescriptorBytes() / 2);

        assertThat(large.offloadedGroups()).as("the sinks' group of 4,200 partitions").isOne();
        assertThat(large.fetchedBytes())
                .as("fetched once by each worker running a sink")
                .isBetween(large.offloadedBytes(), 4 * large.offloadedBytes())
                .isEqualTo(
                        large.offloadedBytes() * (large.fetchedBytes() / large.offloadedBytes()));
        assertThat(large.workersReached()).isEqualTo(4);
        assertThat(large.maxWorkerBytes()).isGreaterThanOrEqualTo((long) large.meanWorkerBytes());
    }

    /**
     * The largest restart set found with one region per class standing for the others is the one
     * found by a failover from every region, on random graphs of every pattern and type.
     */
    @Test
    void theLargestRestartSetByClass_isTheLargestOverEveryRegion() {
        for (long seed = 0; seed < 300; seed++) {
            JobGraph graph = RandomJobGraphs.generate(seed);
            JobReport.Failover byClass = JobReport.failover(ShuffleMode.AS_DECLARED, graph, true);
            JobReport.Failover everyRegion =
                    JobReport.failover(ShuffleMode.AS_DECLARED, graph, false);
            assertThat(byClass.largestRestartTasks())
                    .as("seed %s", seed)
                    .isEqualTo(everyRegion.largestRestartTasks());
            assertThat(byClass.regions()).isEqualTo(everyRegion.regions());
        }
    }

    @Test
    void theHeapEstimate_isTheMeasuredBytesPerTaskTimesTheTasks() {
        JobReport.Heap heap = JobReport.of(pipelined(), 4).heap();

        assertThat(heap.railyardBytes())
                .isEqualTo(
                        JobReport.RAILYARD_FIXED_BYTES
                                + Math.round(8 * JobReport.RAILYARD_BYTES_PER_TASK));
        assertThat(heap.flinkBytes()).isEqualTo(Math.round(8 * JobReport.FLINK_BYTES_PER_TASK));
    }
}
