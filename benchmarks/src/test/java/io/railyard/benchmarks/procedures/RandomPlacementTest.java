package io.railyard.benchmarks.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.topology.JobGraph;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The packed placement gives the workers an int per task would, in ceil(log2(workers)) bits. */
class RandomPlacementTest {

    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {1, 2, 3, 7, 64, 1_000, 1_024, 1_025, 8_191, 65_537})
    void packedPlacement_isTheSeededSequence_inCeilLog2Bits(int workers) {
        JobGraph graph = ReferenceJobs.reference(1_500);
        long seed = 20_000L + workers;
        RandomPlacement placement = new RandomPlacement(graph, workers, seed);

        SplittableRandom oracle = new SplittableRandom(seed);
        for (int task = 0; task < graph.numTasks(); task++) {
            assertThat(placement.workerOfTask(task))
                    .as("task %s", task)
                    .isEqualTo(oracle.nextInt(workers));
        }
        for (int p = 0; p < graph.numPartitions(); p++) {
            assertThat(placement.worker(p))
                    .isEqualTo(placement.workerOfTask(graph.producerTask(p)));
        }
        int bits = workers == 1 ? 1 : (int) Math.ceil(Math.log(workers) / Math.log(2));
        assertThat(placement.bitsPerTask()).isEqualTo(bits);
        // 3,000 tasks at 10 bits a task (1,000 workers): 470 longs, 3,760 bytes, not 12,000
        long arrayBytes = 16 + 8 * (((long) graph.numTasks() * bits + 63) / 64);
        long own = RetainedBytes.of(placement, graph, placement.workers());
        assertThat(own).isLessThanOrEqualTo(arrayBytes + 64);
    }
}
