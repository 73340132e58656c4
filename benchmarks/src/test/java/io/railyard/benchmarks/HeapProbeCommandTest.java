package io.railyard.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The heap probe's lifecycles run end to end at a small parallelism, on both systems. */
class HeapProbeCommandTest {

    @Test
    void lifecycle_initialisesSchedulesDeploysAndFailsOver() throws IOException {
        long bytes = HeapProbeCommand.runLifecycle(100);

        // 200 descriptors of at least the frame and the job id, plus the 101 restarted tasks
        assertThat(bytes).isGreaterThan(200L * 24 + 101);
    }

    @Test
    void flinkLifecycle_runsThroughTheCommand_andBadSystemsAreUsageErrors() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));

        assertThat(cli.execute("heap-probe", "--system", "flink", "--parallelism", "20")).isZero();
        assertThat(out.toString()).startsWith("flink lifecycle at P = 20 done");
        assertThat(cli.execute("heap-probe", "--system", "spark")).isEqualTo(2);
        assertThat(err.toString()).contains("--system must be 'railyard' or 'flink', was 'spark'");
    }

    @Test
    void memoryTable_withFlink_showsFlinkLargerThanRailyard() {
        List<MemoryTable.Row> rows =
                MemoryTable.measure(List.of(50), FlinkColumnMeasurer::retainedGraphBytes);

        assertThat(rows).allMatch(row -> row.flinkBytes() > row.railyardBytes());
    }
}
