package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code memory}: the table on stdout and the same rows as JSON. */
class MemoryCommandTest {
    @TempDir Path dir;

    @Test
    void memory_printsTheTableAndWritesJson() throws Exception {
        Path json = dir.resolve("memory.json");

        String out =
                CliRun.of("memory", "--parallelism", "10,20", "--json", json.toString())
                        .succeeded()
                        .out();

        assertThat(out).contains("BLOCKING").contains(" - ").contains("JSON written to " + json);
        JsonNode rows = new ObjectMapper().readTree(json.toFile()).path("rows");
        assertThat(rows.size()).isEqualTo(2 * 5); // two parallelisms, five shapes
        assertThat(rows.get(0).path("railyard_bytes").asLong()).isPositive();
    }
}
