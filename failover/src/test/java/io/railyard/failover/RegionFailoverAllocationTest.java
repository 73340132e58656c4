package io.railyard.failover;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static io.railyard.topology.ResultPartitionType.HYBRID_SELECTIVE;
import static io.railyard.topology.ResultPartitionType.PIPELINED;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.topology.Allocations;
import io.railyard.topology.JobGraph;
import io.railyard.topology.RandomJobGraphs;
import java.util.BitSet;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A failure allocates nothing once the reused {@link RestartSet} has grown ({@link
 * RegionFailover}'s class notes), on the blocking reference shape (runs of singleton regions), a
 * pipelined pointwise chain with unequal parallelism (table regions), a hybrid edge and random
 * graphs, with part of the partitions unavailable so that producers are walked back too.
 */
class RegionFailoverAllocationTest {
    private static final int CALLS = 300;

    static Stream<JobGraph> graphs() {
        return Stream.of(
                JobGraph.builder()
                        .addVertex("source", 100)
                        .addVertex("sink", 100)
                        .connect("source", "sink", ALL_TO_ALL, BLOCKING)
                        .build(),
                JobGraph.builder()
                        .addVertex("source", 120)
                        .addVertex("map", 50)
                        .addVertex("reduce", 60)
                        .addVertex("sink", 8)
                        .connect("source", "map", POINTWISE, PIPELINED)
                        .connect("map", "reduce", POINTWISE, BLOCKING)
                        .connect("reduce", "sink", ALL_TO_ALL, HYBRID_SELECTIVE)
                        .build(),
                RandomJobGraphs.generate(7003),
                RandomJobGraphs.generate(7042));
    }

    @ParameterizedTest
    @MethodSource("graphs")
    void tasksToRestart_intoAGrownSet_allocatesNothing(JobGraph graph) {
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));
        BitSet available = new BitSet();
        for (int p = 0; p < graph.numPartitions(); p += 3) {
            available.set(p, p + 2); // two of every three partitions can be re-read
        }
        PartitionAvailability availability =
                (from, to) -> Math.min(to, available.nextClearBit(from));
        RegionFailover failover = new RegionFailover(RegionInputs.of(regions), availability);
        RestartSet reused = new RestartSet();
        int tasks = graph.numTasks();

        double bytes =
                Allocations.bytesPerCall(
                        CALLS,
                        call -> {
                            failover.tasksToRestart((int) ((call * 7919L) % tasks), reused);
                            return (long) reused.numTasks() + reused.numRanges();
                        });

        assertThat(bytes).as("bytes per call").isLessThan(1.0);
    }
}
