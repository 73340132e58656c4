package io.railyard.benchmarks.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.DeployProcedures;
import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.deployment.GroupDescriptors;
import io.railyard.deployment.OffloadOptions;
import io.railyard.deployment.SliceBudget;
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
    void atTenThousand_slicedDeployAll_shipsTheOneLoopBytes_inBoundedSlices() {
        ExecutionTopology topology = ExecutionTopology.of(Shape.BLOCKING.job(10_000));

        DeployProcedures.Sliced oneSlice =
                DeployProcedures.deployAllInSlices(
                        topology, OffloadOptions.DEFAULT, SliceBudget.ofTasks(Integer.MAX_VALUE));
        DeployProcedures.Sliced sliced =
                DeployProcedures.deployAllInSlices(
                        topology, OffloadOptions.DEFAULT, SliceBudget.ofTasks(3_000));

        assertThat(oneSlice.slices()).isOne();
        assertThat(sliced.bytes()).isEqualTo(oneSlice.bytes());
        // 20,000 tasks in 7 slices, and the shared 10,000-partition group, encoded in steps before
        // the first sink, in 2 more (~5,600 units of steps: 2,500 to gather and write its columns,
        // 3,125 to deflate its 12.5 KB of packed workers; then its finish)
        assertThat(sliced.slices()).isEqualTo(9);
        assertThat(sliced.longestSliceTasks()).isEqualTo(3_000);
        assertThat(DeployProcedures.deployAll(topology, OffloadOptions.DEFAULT))
                .isEqualTo(oneSlice.bytes());
    }

    /**
     * At the same random placement, every worker fetches the ~12 KiB per-partition group once; the
     * worker-set group is a few bytes inline (all 1,000 workers produce), so a worker receives its
     * descriptors and the worker table only.
     */
    @Test
    void atTenThousand_theWorkerSetShape_shipsAFractionPerWorker() {
        ExecutionTopology topology = ExecutionTopology.of(Shape.BLOCKING.job(10_000));

        DeployProcedures.Shipped old =
                DeployProcedures.measureShipped(topology, OffloadOptions.DEFAULT);
        DeployProcedures.Shipped set =
                DeployProcedures.measureWorkerSetShape(topology, OffloadOptions.DEFAULT);

        assertThat(set.workersReached()).isEqualTo(old.workersReached()).isEqualTo(1_000);
        assertThat(set.blobBytes()).isZero();
        assertThat(set.sharedGroupDescriptors()).isEqualTo(1_000);
        assertThat(set.sharedGroupBytes()).isLessThan(32);
        assertThat(old.maxWorkerBytes()).isGreaterThan(old.sharedGroupBytes());
        assertThat(set.maxWorkerBytes() * 2).isLessThan(old.maxWorkerBytes());
        assertThat(set.totalBytes() * 2).isLessThan(old.totalBytes());
        assertThat(old.meanWorkerBytes() * old.workersReached())
                .isCloseTo((double) old.totalBytes(), org.assertj.core.data.Offset.offset(1.0));
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
