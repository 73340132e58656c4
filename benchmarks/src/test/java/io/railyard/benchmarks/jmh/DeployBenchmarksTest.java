package io.railyard.benchmarks.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.DeployProcedures;
import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.deployment.GroupDescriptors;
import io.railyard.deployment.OffloadOptions;
import io.railyard.groups.ExecutionTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * CI twin of {@link DeployAllTasksBenchmark}: "deploy all" at P = 100 and the byte counts of the
 * report at P = 10,000 against the targets, and a short JMH run that proves it starts.
 */
class DeployBenchmarksTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = Shape.class,
            names = {"BLOCKING", "PIPELINED"})
    void deployAll_offloadShrinksWhatIsShipped(Shape shape) {
        ExecutionTopology topology = ExecutionTopology.of(shape.job(100));

        long withOffload =
                DeployProcedures.deployAll(
                        topology, new OffloadOptions(true, 1_000, 1 << 20, true));
        long inline = DeployProcedures.deployAll(topology, OffloadOptions.NEVER);

        assertThat(withOffload).isPositive().isLessThan(inline);
    }

    @Test
    void atTenThousand_theSinkDescriptorAndTheSharedGroupMeetTheirTargets() {
        ExecutionTopology topology = ExecutionTopology.of(Shape.BLOCKING.job(10_000));

        DeployProcedures.Shipped shipped =
                DeployProcedures.measureShipped(topology, OffloadOptions.DEFAULT);

        assertThat(shipped.sinkDescriptorBytes()).isLessThan(256);
        assertThat(shipped.sharedGroupDescriptors()).isEqualTo(10_000);
        assertThat(shipped.sharedGroupRawBytes()).isLessThanOrEqualTo(4L * 10_000);
        // every worker hosting a sink fetches the one blob once, whatever number of its sinks
        assertThat(shipped.blobBytes() % shipped.sharedGroupBytes()).isZero();
        assertThat(shipped.blobBytes() / shipped.sharedGroupBytes())
                .isBetween(990L, (long) DeployProcedures.WORKERS);
        assertThat(shipped.totalBytes())
                .isEqualTo(shipped.descriptorBytes() + shipped.blobBytes() + shipped.tableBytes());
    }

    @Test
    void sharedGroup_decodesToEveryProducersWorker() {
        GroupDescriptors group = GroupDescriptors.decode(DeployProcedures.encodeSharedGroup(100));

        assertThat(group.size()).isEqualTo(100);
        assertThat(group.firstPartition()).isZero();
        for (int i = 0; i < 100; i++) {
            assertThat(group.worker(i)).isBetween(0, DeployProcedures.WORKERS - 1);
            assertThat(group.producerAttempt(i)).isZero();
        }
    }

    @Test
    void benchmark_startsUnderJmh() throws Exception {
        JmhSmoke.assertStart(
                new String[] {"shape", "BLOCKING", "offload", "true"},
                DeployAllTasksBenchmark.class);
        JmhSmoke.assertStart(new String[0], DecodeGroupBenchmark.class);
    }
}
