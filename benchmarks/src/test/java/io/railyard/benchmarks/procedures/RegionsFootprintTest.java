package io.railyard.benchmarks.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Retained heap that pipelined regions add to their topology, as JOL counts it (deterministic, not
 * timed). Budget of issue 3: 256 KiB at 10k × 10k, the 20,000 singleton regions of the blocking job
 * included.
 */
class RegionsFootprintTest {

    static long regionBytes(Shape shape, int parallelism) {
        ExecutionTopology topology = ExecutionTopology.of(shape.job(parallelism));
        PipelinedRegions regions = PipelinedRegions.build(topology);
        return ScaleReport.retainedBytes(regions) - ScaleReport.retainedBytes(topology);
    }

    @ParameterizedTest
    @EnumSource(
            value = Shape.class,
            names = {"BLOCKING", "PIPELINED", "HYBRID_FULL"})
    void twoVertexJobs_10k_addAtMost256KiB_andNothingPerTask(Shape shape) {
        assertThat(regionBytes(shape, 10_000)).isLessThan(256 * 1024);
        assertThat(regionBytes(shape, 100_000)).isEqualTo(regionBytes(shape, 10));
    }

    /**
     * The chain's pointwise regions have unequal sizes, so they are stored per task: an int for the
     * region of each task and an int for each task in its region's member list, plus an int per
     * region. At P = 10,000 that is 35,000 tasks and 12,500 regions.
     */
    @ParameterizedTest
    @EnumSource(value = Shape.class, names = "POINTWISE_CHAIN")
    void pointwiseChain_staysWithinNineBytesPerTaskAndFourPerRegion(Shape shape) {
        int tasks = 35_000;
        int regions = 12_500;
        assertThat(regionBytes(shape, 10_000)).isLessThan(9L * tasks + 4L * regions + 4096);
    }
}
