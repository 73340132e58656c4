package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The heap probe runs end to end at a small parallelism, on both systems, through the CLI. */
class HeapProbeCommandTest {

    @Test
    void railyardAndFlinkLifecycles_runThroughTheCommand() {
        assertThat(CliRun.of("heap-probe", "--parallelism", "100").succeeded().out())
                .startsWith("railyard lifecycle at P = 100 done");
        assertThat(
                        CliRun.of("heap-probe", "--system", "flink", "--parallelism", "20")
                                .succeeded()
                                .out())
                .startsWith("flink lifecycle at P = 20 done");
    }

    @Test
    void badSystem_isAUsageError() {
        assertThat(CliRun.of("heap-probe", "--system", "spark").isUsageError().err())
                .contains("--system must be 'railyard' or 'flink', was 'spark'");
    }
}
