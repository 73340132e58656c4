package io.railyard.benchmarks.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.benchmarks.procedures.RegionProcedures;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * CI twins of {@link BuildRegionsBenchmark}, {@link InitSchedulingBenchmark} and {@link
 * ScheduleDownstreamBenchmark}: the same procedures on every shape at P = 100, with their results
 * checked, and one short JMH run that proves the benchmarks start.
 */
class RegionBenchmarksTest {
    private static final int P = 100;

    private static PipelinedRegions regionsOf(Shape shape) {
        return RegionProcedures.buildRegions(ExecutionTopology.of(shape.job(P)));
    }

    /** Chain at P = 100: a(100) -> b(50) gives 50 regions, c(100) -> d(75) gives 75. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"BLOCKING, 200", "PIPELINED, 1", "HYBRID_FULL, 200", "POINTWISE_CHAIN, 125"})
    void buildRegions_givesTheExpectedRegions(Shape shape, int expectedRegions) {
        PipelinedRegions regions = regionsOf(shape);

        assertThat(regions.numRegions()).isEqualTo(expectedRegions);
        assertThat(regions.checkInvariants()).isTrue();
    }

    /**
     * A region's inputs count (consuming task, group) pairs: the chain's last region holds c#98 and
     * c#99, which both read b#49's partition.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"BLOCKING, 1", "PIPELINED, 0", "HYBRID_FULL, 1", "POINTWISE_CHAIN, 2"})
    void initScheduling_armsTheSinksCounters_deployingNothing(Shape shape, int sinkInputs) {
        PipelinedRegions regions = regionsOf(shape);
        RegionProcedures.CountingDeployer deployer = new RegionProcedures.CountingDeployer();

        RegionSchedulingStrategy strategy = RegionProcedures.initScheduling(regions, deployer);

        assertThat(deployer.deployedRegions()).isZero();
        assertThat(strategy.pendingInputs(regions.numRegions() - 1)).isEqualTo(sinkInputs);
    }

    /** Hybrid sinks are deployed at start with the sources, so nothing is left downstream. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"BLOCKING, 100", "PIPELINED, 0", "HYBRID_FULL, 0", "POINTWISE_CHAIN, 75"})
    void scheduleDownstream_deploysEverySinkRegion(Shape shape, int expectedDeployed) {
        RegionProcedures.Downstream downstream = new RegionProcedures.Downstream(regionsOf(shape));

        assertThat(downstream.finishLastSource()).isEqualTo(expectedDeployed);
    }

    @Test
    void benchmarks_startUnderJmh() throws Exception {
        JmhSmoke.assertStart(
                new String[] {"shape", "POINTWISE_CHAIN"},
                BuildRegionsBenchmark.class,
                InitSchedulingBenchmark.class,
                ScheduleDownstreamBenchmark.class);
    }
}
