package io.railyard.simulation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The simulator's inputs: text forms, their errors, the distributions' means, one run per build.
 */
class SimulationInputsTest {
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "constant:3 | 3.0",
                "UNIFORM:1:5 | 3.0",
                "lognormal:10:0.5 | 10.0",
                " lognormal:2:0 | 2.0"
            })
    void parse_givesTheMean(String text, double mean) {
        WorkDistribution distribution = WorkDistribution.parse(text);
        assertThat(distribution.mean()).isEqualTo(mean);
        SplittableRandom random = new SplittableRandom(7);
        double sum = 0;
        int n = 200_000;
        for (int i = 0; i < n; i++) {
            double sample = distribution.sample(random);
            assertThat(sample).isPositive();
            sum += sample;
        }
        assertThat(sum / n).isCloseTo(mean, within(mean * 0.01));
        assertThat(distribution.scaled(2).mean()).isEqualTo(2 * mean);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "constant",
                "constant:0",
                "constant:-1",
                "constant:NaN",
                "constant:x",
                "uniform:5:1",
                "uniform:0:1",
                "lognormal:1:5",
                "gamma:1:2",
                "constant:1e10"
            })
    void parse_rejectsWithOneLineNamingTheText(String text) {
        assertThatThrownBy(() -> WorkDistribution.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'" + text + "'")
                .hasMessageNotContaining("\\n");
    }

    @Test
    void skew_parsesVertexNamesWithColons() {
        assertThat(Skew.parse("join:1:34")).isEqualTo(new Skew("join", 1, 34));
        assertThat(Skew.parse("a:b:2:1.5")).isEqualTo(new Skew("a:b", 2, 1.5));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"join", "join:1", ":1:2", "join:0:34", "join:1:0", "join:x:3", "j:1:-2"})
    void skew_rejectsWithOneLine(String text) {
        assertThatThrownBy(() -> Skew.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'" + text + "'");
    }

    @Test
    void config_rejectsOutOfRangeSettings() {
        assertThatThrownBy(() -> SimulationConfig.builder(0).build())
                .hasMessage("slots must be in [1, 16777216], was 0");
        assertThatThrownBy(() -> SimulationConfig.builder(4).slotsPerWorker(5).build())
                .hasMessage("slots per worker must be in [1, 4], was 5");
        assertThatThrownBy(() -> SimulationConfig.builder(4).failRate(1.5).build())
                .hasMessage("the fail rate must be in [0, 1], was 1.5");
        assertThatThrownBy(() -> SimulationConfig.builder(4).taskOverhead(-1).build())
                .hasMessage("the task overhead must be in [0, 1e9], was -1.0");
        assertThatThrownBy(
                        () ->
                                SimulationConfig.builder(4)
                                        .skew(new Skew("a", 1, 2))
                                        .skew(new Skew("a", 2, 2))
                                        .build())
                .hasMessage("vertex 'a' is skewed twice");
        assertThatThrownBy(() -> ShuffleMode.ofKey("hybrid"))
                .hasMessage(
                        "unknown mode 'hybrid'; allowed: blocking, hybrid-full, hybrid-selective,"
                                + " as-declared");
    }

    @Test
    void aSimulatorRunsOnce() {
        JobGraph graph = JobSimulatorTest.chain(ResultPartitionType.BLOCKING, 2, 2);
        JobSimulator simulator = JobSimulator.of(graph, SimulationConfig.builder(2).build());
        assertThat(simulator.run().makespan()).isEqualTo(2.0);
        assertThatThrownBy(simulator::run).isInstanceOf(IllegalStateException.class);
    }
}
