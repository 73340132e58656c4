package io.railyard.benchmarks.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.FailoverProcedures;
import io.railyard.benchmarks.procedures.FailoverProcedures.Failure;
import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * CI twins of {@link TasksToRestartBenchmark} and {@link PartitionReleaseBenchmark}: the same
 * procedures at P = 100 with their answers checked, the allocation of one restart computation at P
 * = 10,000 (nothing proportional to the job), and short JMH runs that prove the benchmarks start.
 */
class FailoverBenchmarksTest {
    private static final int P = 100;

    private static PipelinedRegions regionsOf(Shape shape, int parallelism) {
        return PipelinedRegions.build(ExecutionTopology.of(shape.job(parallelism)));
    }

    /**
     * The chain's a#50 shares a region with a#51 and b#25; b#25 feeds c#50 and c#51, whose region
     * holds d#38 too: 6 tasks.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "BLOCKING_SOURCE, 101",
        "BLOCKING_SINK, 1",
        "PIPELINED_ANY, 200",
        "HYBRID_FULL_SOURCE, 101",
        "POINTWISE_CHAIN_SOURCE, 6"
    })
    void tasksToRestart_givesTheExpectedCount(Failure failure, int expectedTasks) {
        FailoverProcedures.Restart restart =
                new FailoverProcedures.Restart(regionsOf(failure.shape(), P), failure);

        assertThat(restart.tasksToRestart()).isEqualTo(expectedTasks);
        assertThat(restart.tasksToRestart()).isEqualTo(expectedTasks); // reused set, same answer
    }

    /** The chain's sinks d(75) finish regions {c, d}, which read all 50 partitions of b. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"BLOCKING, 100", "HYBRID_FULL, 100", "POINTWISE_CHAIN, 50"})
    void partitionRelease_releasesWhatTheSinksRead(Shape shape, int expectedPartitions) {
        FailoverProcedures.Release release = new FailoverProcedures.Release(regionsOf(shape, P));

        assertThat(release.finishSinks()).isEqualTo(expectedPartitions);
    }

    /** At 10k × 10k a call restarts 10,001 tasks and allocates (almost) nothing. */
    @Test
    void tasksToRestart_allocatesNothingProportionalToTheJob() {
        FailoverProcedures.Restart restart =
                new FailoverProcedures.Restart(
                        regionsOf(Shape.BLOCKING, 10_000), Failure.BLOCKING_SOURCE);
        for (int i = 0; i < 50; i++) {
            restart.tasksToRestart(); // grow the reused set, let the JIT settle
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int calls = 100;
        long restarted = 0;
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < calls; i++) {
            restarted += restart.tasksToRestart();
        }
        long perCall = (threads.getCurrentThreadAllocatedBytes() - before) / calls;

        assertThat(restarted).isEqualTo(10_001L * calls);
        // A structure per task or per region would be >= 10,000 bytes.
        assertThat(perCall).isLessThan(64);
    }

    @Test
    void benchmarks_startUnderJmh() throws Exception {
        JmhSmoke.assertStart(
                new String[] {"failure", "POINTWISE_CHAIN_SOURCE"}, TasksToRestartBenchmark.class);
        JmhSmoke.assertStart(
                new String[] {"shape", "POINTWISE_CHAIN"}, PartitionReleaseBenchmark.class);
    }
}
