package io.railyard.benchmarks.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.SimulatedJobs;
import io.railyard.benchmarks.procedures.SimulatedJobs.Shape;
import io.railyard.simulation.JobSimulator;
import io.railyard.simulation.ShuffleMode;
import io.railyard.simulation.SimulationResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * CI twin of {@link SimulateBenchmark}: the shapes at small P with their answers checked, the
 * simulator's retained memory linear in the tasks (JOL: nothing per task-level connection, which
 * grow as P^2), and a short JMH run that proves the benchmark starts.
 */
class SimulateBenchmarkTest {
    @ParameterizedTest
    @EnumSource(Shape.class)
    void shapes_finishAndHybridIsFaster(Shape shape) {
        int p = 200;
        SimulationResult blocking =
                JobSimulator.simulate(shape.job(p, ShuffleMode.BLOCKING), shape.config(p));
        SimulationResult hybrid =
                JobSimulator.simulate(shape.job(p, ShuffleMode.HYBRID_FULL), shape.config(p));
        int tasks = shape == Shape.REFERENCE ? 2 * p : 4 * p;
        assertThat(blocking.trace().size()).isEqualTo(tasks);
        assertThat(hybrid.trace().size()).isEqualTo(tasks);
        assertThat(hybrid.makespan()).isLessThan(blocking.makespan());
        if (shape == Shape.FOUR_STAGE) {
            assertThat(hybrid.makespan()).isGreaterThanOrEqualTo(34 * 10.0); // the hot subtask
        }
    }

    /**
     * Bytes per task at P = 1,000 and 10,000 (2,000 and 20,000 tasks; 10^6 and 10^8 connections):
     * within 10 % of each other; under 128 B before the run, under 256 B after it (the event and
     * request queues and the largest group's scratch columns have grown by then). Measured: 89 /
     * 188 B (reference), 96 / 148 B (4-stage) at P = 10,000.
     */
    @Test
    void retainedMemory_isLinearInTheTasks() {
        for (Shape shape : Shape.values()) {
            int tasksPerP = shape == Shape.REFERENCE ? 2 : 4;
            long[] small = SimulatedJobs.retainedBytes(shape, 1_000, ShuffleMode.HYBRID_FULL);
            long[] large = SimulatedJobs.retainedBytes(shape, 10_000, ShuffleMode.HYBRID_FULL);
            for (int i = 0; i < 2; i++) {
                double perTaskSmall = (double) small[i] / (tasksPerP * 1_000);
                double perTaskLarge = (double) large[i] / (tasksPerP * 10_000);
                assertThat(perTaskLarge)
                        .as("%s bytes per task %s the run", shape, i == 0 ? "before" : "after")
                        .isLessThan(i == 0 ? 128 : 256);
                assertThat(perTaskLarge).isLessThan(perTaskSmall * 1.1);
            }
        }
    }

    @Test
    void benchmark_startsUnderJmh() throws Exception {
        JmhSmoke.assertStart(
                new String[] {"shape", "FOUR_STAGE", "mode", "HYBRID_SELECTIVE"},
                SimulateBenchmark.class);
    }
}
