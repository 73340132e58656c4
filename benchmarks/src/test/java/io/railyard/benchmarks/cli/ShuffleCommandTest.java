package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code shuffle} at a tiny scale: the table, and nothing left in the directory. */
class ShuffleCommandTest {
    @TempDir Path dir;

    @Test
    void shuffle_printsTheTable_andLeavesNothing() throws Exception {
        String out =
                CliRun.of(
                                "shuffle",
                                "--parallelism",
                                "1,3",
                                "--bytes-mib",
                                "1",
                                "--dir",
                                dir.toString())
                        .succeeded()
                        .out();

        assertThat(out).contains("limit").contains("sort").contains("hash");
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }
}
