package io.railyard.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The shuffle measurement at a tiny scale: it runs, checks its data, counts files, cleans up. */
class ShuffleThroughputTest {
    @TempDir Path dir;

    private ShuffleThroughput.Settings settings(int parallelism, int pages) {
        return new ShuffleThroughput.Settings(
                parallelism,
                300_000,
                100,
                4,
                ShuffleOptions.builder().pageSizeBytes(4096).totalPages(pages).build(),
                dir);
    }

    @Test
    void measure_smallShuffle_bothKindsReadEverythingAndCountFiles() throws Exception {
        ShuffleThroughput.Result result = ShuffleThroughput.measure(settings(5, 2048), step -> {});

        assertThat(result.limit().writeMbPerSecond()).isPositive();
        // Direct IO works on the usual Linux file systems; where it does not, the error says so.
        if (result.deviceLimit().error() == null) {
            assertThat(result.deviceLimit().readMbPerSecond()).isPositive();
        } else {
            assertThat(result.deviceLimit().error()).contains("direct IO unavailable");
        }
        assertThat(result.sort().error()).isNull();
        assertThat(result.sort().readMbPerSecond()).isPositive();
        assertThat(result.sort().files()).isEqualTo(2 * 5);
        assertThat(result.hash().error()).isNull();
        assertThat(result.hash().files()).isEqualTo(5 * 5);
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void measure_hashBeyondMemory_reportsThePoolErrorWhileSortRuns() throws Exception {
        ShuffleThroughput.Result result = ShuffleThroughput.measure(settings(100, 400), step -> {});

        assertThat(result.sort().error()).isNull();
        assertThat(result.hash().error())
                .contains("insufficient network memory")
                .contains(ShuffleOptions.TOTAL_MEMORY_KEY);
        assertThat(result.hash().writeMbPerSecond()).isNaN();
    }

    @Test
    void shuffleCommand_prints_theTable() {
        StringWriter out = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));

        int exit =
                cli.execute(
                        "shuffle",
                        "--parallelism",
                        "1,3",
                        "--bytes-mib",
                        "1",
                        "--dir",
                        dir.toString());

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("limit").contains("sort").contains("hash");
    }

    @Test
    void shuffleBenchmark_starts() throws Exception {
        JmhSmoke.assertStart(
                new String[] {"mebibytes", "1", "kind", "SORT"}, ShuffleBenchmark.class);
    }
}
