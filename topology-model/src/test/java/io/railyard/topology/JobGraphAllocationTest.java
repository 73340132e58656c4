package io.railyard.topology;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static io.railyard.topology.DistributionPattern.POINTWISE;
import static io.railyard.topology.ResultPartitionType.BLOCKING;
import static io.railyard.topology.ResultPartitionType.PIPELINED;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The lookups every module runs per task, partition or group allocate nothing (the promise of
 * {@link JobGraph}'s and {@link RangeTable}'s class notes), measured with the thread allocation
 * counter over many calls after warm-up.
 */
class JobGraphAllocationTest {
    private static final int CALLS = 50_000;

    /** Unequal parallelisms, so lookups take both the one-range and the searching path. */
    private static JobGraph graph() {
        return JobGraph.builder()
                .addVertex("one", 1)
                .addVertex("source", 3_000)
                .addVertex("map", 1_000)
                .addVertex("sink", 7)
                .connect("one", "map", ALL_TO_ALL, BLOCKING)
                .connect("source", "map", POINTWISE, PIPELINED)
                .connect("map", "sink", ALL_TO_ALL, BLOCKING)
                .build();
    }

    @Test
    void taskAndPartitionLookups_allocateNothing() {
        JobGraph graph = graph();
        int tasks = graph.numTasks();
        int partitions = graph.numPartitions();

        double bytes =
                Allocations.bytesPerCall(
                        CALLS,
                        call -> {
                            int task = (int) ((call * 7919L) % tasks);
                            int p = (int) ((call * 104_729L) % partitions);
                            return graph.vertexOfTask(task)
                                    + graph.subtaskIndex(task)
                                    + graph.dataSetOfPartition(p)
                                    + graph.partitionIndex(p)
                                    + graph.producerTask(p)
                                    + graph.taskRange(graph.vertexOfTask(task));
                        });

        assertThat(bytes).as("bytes per call").isLessThan(1.0);
    }

    @Test
    void rangeTableLookups_allocateNothing() {
        int[] sizes = new int[600];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = i % 3 == 0 ? 0 : 1 + (i * 37) % 500;
        }
        RangeTable table = RangeTable.ofSizes(sizes);
        int total = table.total();

        double bytes =
                Allocations.bytesPerCall(
                        CALLS,
                        call -> {
                            int i = table.indexOf((int) ((call * 7919L) % total));
                            return i + table.range(i) + table.start(i) + table.size(i);
                        });

        assertThat(bytes).as("bytes per call").isLessThan(1.0);
    }
}
