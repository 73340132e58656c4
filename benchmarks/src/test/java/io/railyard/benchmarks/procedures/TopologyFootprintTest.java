package io.railyard.benchmarks.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.DistributionPattern;
import io.railyard.topology.ResultPartitionType;
import org.junit.jupiter.api.Test;

/**
 * Retained heap of the topology with groups, as JOL counts it (deterministic, not timed): the
 * budgets of issue 2 are 256 KiB at 10k × 10k and 2 MiB at 100k × 100k.
 */
class TopologyFootprintTest {

    @Test
    void referenceJob_10k_fitsIn256KiB() {
        assertThat(ScaleReport.retainedBytes(BuildTopology.run(10_000))).isLessThan(256 * 1024);
    }

    @Test
    void referenceJob_100k_fitsIn2MiB() {
        assertThat(ScaleReport.retainedBytes(BuildTopology.run(100_000)))
                .isLessThan(2 * 1024 * 1024);
    }

    @Test
    void footprint_isIndependentOfParallelismForAllToAll() {
        long small = ScaleReport.retainedBytes(BuildTopology.run(10));
        long large = ScaleReport.retainedBytes(BuildTopology.run(100_000));
        assertThat(large).isEqualTo(small);
    }

    @Test
    void pointwise_100k_storesNothingPerTask() {
        ExecutionTopology topology =
                ExecutionTopology.of(
                        ReferenceJobs.twoVertices(
                                100_000,
                                DistributionPattern.POINTWISE,
                                ResultPartitionType.PIPELINED));
        assertThat(topology.numGroups()).isEqualTo(100_000);
        assertThat(ScaleReport.retainedBytes(topology)).isLessThan(4 * 1024);
    }
}
