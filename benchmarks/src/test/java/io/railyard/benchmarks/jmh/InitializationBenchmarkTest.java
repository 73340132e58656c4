package io.railyard.benchmarks.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.IdleJobMaster;
import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.jobmaster.JobMaster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** CI twin of {@link InitializationBenchmark}: the same procedure at P = 100, checked. */
class InitializationBenchmarkTest {

    /** Regions of each shape at P = 100; the 4-stage job's 400 tasks are singleton regions. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "BLOCKING, 200",
        "PIPELINED, 1",
        "HYBRID_FULL, 200",
        "POINTWISE_CHAIN, 125",
        "FOUR_STAGE, 400"
    })
    void initialize_buildsEveryStructure_andDeploysNothing(Shape shape, int regions) {
        JobMaster job = IdleJobMaster.of(shape.job(100));

        assertThat(job.scheduler().regions().numRegions()).isEqualTo(regions);
        assertThat(job.scheduler().strategy().isScheduled(0)).isFalse();
        assertThat(job.attempt(0)).isZero();
        assertThat(job.descriptors().numTasks()).isEqualTo(shape.job(100).numTasks());
        assertThat(job.shuffleMaster().workerOfTask(0)).as("nothing placed").isEqualTo(-1);
    }

    @Test
    void benchmark_startsUnderJmh() throws Exception {
        JmhSmoke.assertStart(new String[] {"shape", "FOUR_STAGE"}, InitializationBenchmark.class);
    }
}
