package io.railyard.benchmarks.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.railyard.benchmarks.jmh.JmhSmoke;
import io.railyard.benchmarks.procedures.LongJobs;
import io.railyard.benchmarks.procedures.LongJobs.Exchange;
import io.railyard.benchmarks.procedures.LongJobs.Shape;
import io.railyard.benchmarks.procedures.RailyardBatchJobs;
import io.railyard.local.JobResult;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.worker.Tally;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.jobgraph.DistributionPattern;
import org.apache.flink.runtime.jobgraph.IntermediateDataSet;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The MiniCluster comparison's two sides run every job of {@link MiniClusterSideBySideBenchmark}
 * (shape × mode) at n = 10,000 longs per source subtask and agree: Flink's JobGraph really has the
 * mode's partition type and the shape's pattern, its job ends FINISHED, and both sides' sinks count
 * exactly the 4n records sent with the expected checksum; Railyard's job is FINISHED with nothing
 * leaked. One Railyard engine for the class; one MiniCluster per mode (Flink sets up hybrid shuffle
 * per cluster), each running both shapes.
 */
class MiniClusterSideBySideSmokeTest {
    private static final long N = 10_000;

    @TempDir static Path directory;

    private static RailyardBatchJobs railyard;

    @BeforeAll
    static void start() throws Exception {
        railyard = RailyardBatchJobs.start(directory, ShuffleOptions.Compression.NONE);
    }

    @AfterAll
    static void stop() throws Exception {
        railyard.close();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Exchange.class)
    void bothSides_deliverEveryRecordOnce(Exchange mode) throws Exception {
        Tally expected = LongJobs.expected(N);
        assertThat(expected.records()).isEqualTo(4 * N);
        try (FlinkBatchJobs flink =
                FlinkBatchJobs.start(directory, ShuffleOptions.Compression.NONE, mode)) {
            for (Shape shape : Shape.values()) {
                JobGraph jobGraph = FlinkBatchJobs.jobGraph(shape, mode, N);
                assertEdge(jobGraph, shape, mode);
                Tally fromFlink = flink.run(jobGraph);
                assertThat(
                                flink.cluster()
                                        .getJobStatus(jobGraph.getJobID())
                                        .get(1, TimeUnit.MINUTES))
                        .as("%s %s", shape, mode)
                        .isEqualTo(JobStatus.FINISHED);
                assertThat(fromFlink).as("Flink %s %s", shape, mode).isEqualTo(expected);
                assertThat(FlinkBatchJobs.check(fromFlink, expected)).isEqualTo(expected);

                JobResult result = railyard.run(shape, mode, N);
                assertThat(result.outcome())
                        .as("Railyard %s %s", shape, mode)
                        .isEqualTo(JobResult.FINISHED);
                assertThat(result.committedTotal())
                        .as("Railyard %s %s", shape, mode)
                        .isEqualTo(expected);
                assertThat(result.leaks().pages()).isZero();
                assertThat(result.leaks().files()).isZero();
                assertThat(result.leaks().partitions()).isZero();
                assertThat(RailyardBatchJobs.check(result, expected)).isEqualTo(fromFlink);
            }
        }
    }

    /**
     * The JMH benchmark starts on both systems and scores (in-process, one short iteration): one
     * row, the keyed hybrid-selective job at n = 10,000.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(SideBySide.class)
    void benchmark_startsUnderJmh(SideBySide system) throws Exception {
        JmhSmoke.assertStart(
                new String[] {
                    "system", system.name(),
                    "shape", Shape.KEYED_ALL_TO_ALL.name(),
                    "mode", Exchange.HYBRID_SELECTIVE.name(),
                    "recordsPerSubtask", Long.toString(N)
                },
                MiniClusterSideBySideBenchmark.class);
    }

    /**
     * The wide row's job ({@code -p subtasks}): a keyed all-to-all BLOCKING job of 100 × 100 on the
     * same 8 slots, Flink's gates capped as the benchmark caps them; both sides exact.
     */
    @Test
    void wideRow_bothSidesDeliverEveryRecordOnce() throws Exception {
        int subtasks = 100;
        long n = 1_000;
        Tally expected = LongJobs.expected(n, subtasks);
        try (FlinkBatchJobs flink =
                FlinkBatchJobs.start(
                        directory,
                        ShuffleOptions.Compression.NONE,
                        Exchange.BLOCKING,
                        MiniClusterSideBySideBenchmark.gateBuffers())) {
            assertThat(flink.run(Shape.KEYED_ALL_TO_ALL, n, subtasks)).isEqualTo(expected);
        }
        JobResult result = railyard.run(Shape.KEYED_ALL_TO_ALL, Exchange.BLOCKING, n, subtasks);
        assertThat(RailyardBatchJobs.check(result, expected)).isEqualTo(expected);
        assertThat(result.stats().maxSlotsBusy()).isLessThanOrEqualTo(LongJobs.SLOTS);
    }

    /** The checks fail on a wrong count: they are what the benchmark relies on per job. */
    @Test
    void checks_rejectAWrongTally() throws Exception {
        Tally expected = LongJobs.expected(N);
        Tally oneShort = new Tally(expected.records() - 1, expected.checksum());
        assertThatIllegalStateException()
                .isThrownBy(() -> FlinkBatchJobs.check(oneShort, expected))
                .withMessageContaining("expected " + expected);
        JobResult result = railyard.run(Shape.SOURCE_SINK, Exchange.BLOCKING, N - 1);
        assertThatIllegalStateException()
                .isThrownBy(() -> RailyardBatchJobs.check(result, expected))
                .withMessageContaining("Railyard's sinks committed");
    }

    /** Flink's JobGraph: source → sink, one dataset of the mode's type and the shape's pattern. */
    private static void assertEdge(JobGraph jobGraph, Shape shape, Exchange mode) {
        List<JobVertex> vertices = jobGraph.getVerticesSortedTopologicallyFromSources();
        assertThat(vertices).hasSize(2);
        assertThat(vertices).allMatch(v -> v.getParallelism() == LongJobs.PARALLELISM);
        List<IntermediateDataSet> produced = vertices.get(0).getProducedDataSets();
        assertThat(produced).hasSize(1);
        IntermediateDataSet dataSet = produced.get(0);
        assertThat(dataSet.getResultType()).isEqualTo(FlinkBatchJobs.partitionType(mode));
        assertThat(dataSet.getDistributionPattern())
                .isEqualTo(DistributionPattern.valueOf(shape.pattern().name()));
        assertThat(vertices.get(1).getInputs()).hasSize(1);
    }
}
