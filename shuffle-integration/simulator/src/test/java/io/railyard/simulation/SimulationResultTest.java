package io.railyard.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.topology.JobGraph;
import org.junit.jupiter.api.Test;

class SimulationResultTest {
    private static final JobGraph GRAPH = JobGraph.builder().addVertex("v", 2).build();
    private static final SimulationResult.Trace NO_ATTEMPTS =
            new SimulationResult.Trace(
                    new int[0],
                    new int[0],
                    new double[0],
                    new double[0],
                    new double[0],
                    new boolean[0]);

    private static SimulationResult result(
            SimulationResult.Outcome outcome, double makespan, double held, double busy) {
        return new SimulationResult(
                GRAPH,
                4,
                outcome,
                makespan,
                new SimulationResult.SlotTime(held, busy, 0, 0, 0),
                new SimulationResult.Data(8, 6),
                new SimulationResult.Decisions(0, 2),
                NO_ATTEMPTS);
    }

    @Test
    void derivedMetrics_overTheSlotTimeAvailableUntilTheMakespan() {
        SimulationResult result = result(SimulationResult.FINISHED, 10, 30, 20);

        assertThat(result.isFinished()).isTrue();
        assertThat(result.slotOccupancy()).isEqualTo(30.0 / 40);
        assertThat(result.busyUtilisation()).isEqualTo(20.0 / 40);
        assertThat(result.diskFraction()).isEqualTo(6.0 / 8);
    }

    @Test
    void derivedMetrics_zeroMakespan_areZero() {
        SimulationResult result = result(new SimulationResult.Failed("gave up"), 0, 0, 0);

        assertThat(result.isFinished()).isFalse();
        assertThat(result.slotOccupancy()).isZero();
        assertThat(result.busyUtilisation()).isZero();
        assertThat(result.outcome()).isEqualTo(new SimulationResult.Failed("gave up"));
    }
}
