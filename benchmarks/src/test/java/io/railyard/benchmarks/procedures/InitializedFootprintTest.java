package io.railyard.benchmarks.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.topology.JobGraph;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bytes per task of the whole initialised JobManager state (the {@code JobMaster} that {@link
 * IdleJobMaster} builds: topology, regions, scheduling, failover, shuffle master and descriptor
 * cache), as JOL counts them — deterministic, not timed. The marginal bytes per task between P =
 * 10,000 and P = 100,000 is what a million-task job pays per task (issue 18: ≤ 16 B per task;
 * measured at P = 1,000,000: BLOCKING and HYBRID_FULL 2.8, PIPELINED 1.7, FOUR_STAGE 6.0,
 * POINTWISE_CHAIN 14.6). Each budget is the measured figure plus about a quarter, so that any
 * per-task int that comes back (4 bytes) fails.
 */
class InitializedFootprintTest {

    @ParameterizedTest(name = "{0}: at most {1} B per task")
    @CsvSource({
        "BLOCKING, 3.5",
        "HYBRID_FULL, 3.5",
        "PIPELINED, 2.0",
        "FOUR_STAGE, 6.5",
        "POINTWISE_CHAIN, 15.5",
    })
    void marginalBytesPerTask_stayWithinTheBudget(Shape shape, double budget) {
        JobGraph small = shape.job(10_000);
        JobGraph large = shape.job(100_000);
        long smallBytes = ScaleReport.retainedBytes(IdleJobMaster.of(small));
        long largeBytes = ScaleReport.retainedBytes(IdleJobMaster.of(large));

        double perTask = (double) (largeBytes - smallBytes) / (large.numTasks() - small.numTasks());

        assertThat(perTask).as("%s: marginal bytes per task", shape).isLessThanOrEqualTo(budget);
        assertThat((double) largeBytes / large.numTasks())
                .as("%s at P = 100,000: bytes per task, fixed part included", shape)
                .isLessThanOrEqualTo(16.0);
    }
}
