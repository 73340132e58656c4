package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The heap probe runs end to end at a small parallelism, on both systems, through the CLI. */
class HeapProbeCommandTest {

    @Test
    void railyardAndFlinkLifecycles_runThroughTheCommand() {
        assertThat(CliRun.of("heap-probe", "--parallelism", "100").succeeded().out())
                .startsWith("railyard lifecycle of BLOCKING at P = 100 done");
        assertThat(
                        CliRun.of("heap-probe", "--system", "flink", "--parallelism", "20")
                                .succeeded()
                                .out())
                .startsWith("flink lifecycle of BLOCKING at P = 20 done");
    }

    @Test
    void everyShape_runsThroughTheCommand() {
        for (String shape :
                new String[] {"PIPELINED", "HYBRID_FULL", "POINTWISE_CHAIN", "FOUR_STAGE"}) {
            assertThat(
                            CliRun.of("heap-probe", "--parallelism", "40", "--shape", shape)
                                    .succeeded()
                                    .out())
                    .startsWith("railyard lifecycle of " + shape + " at P = 40 done");
        }
    }

    @Test
    void badShape_isAUsageError() {
        assertThat(CliRun.of("heap-probe", "--shape", "ring").isUsageError().err())
                .contains(
                        "--shape must be one of [BLOCKING, PIPELINED, HYBRID_FULL,"
                                + " POINTWISE_CHAIN, FOUR_STAGE], was 'ring'");
        assertThat(
                        CliRun.of("heap-probe", "--system", "flink", "--shape", "PIPELINED")
                                .isUsageError()
                                .err())
                .contains("--system flink runs the reference job only");
    }

    @Test
    void badSystem_isAUsageError() {
        assertThat(CliRun.of("heap-probe", "--system", "spark").isUsageError().err())
                .contains("--system must be 'railyard' or 'flink', was 'spark'");
    }
}
