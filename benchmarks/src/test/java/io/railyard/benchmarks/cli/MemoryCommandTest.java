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
                CliRun.of(
                                "memory",
                                "--parallelism",
                                "10,20",
                                "--running-parallelism",
                                "30",
                                "--json",
                                json.toString())
                        .succeeded()
                        .out();

        assertThat(out).contains("BLOCKING").contains(" - ").contains("JSON written to " + json);
        JsonNode rows = new ObjectMapper().readTree(json.toFile()).path("rows");
        assertThat(rows.size()).isEqualTo(2 * 5); // two parallelisms, five shapes
        assertThat(rows.get(0).path("railyard_bytes").asLong()).isPositive();
        JsonNode running = new ObjectMapper().readTree(json.toFile()).path("running");
        assertThat(running.size()).isEqualTo(1);
        assertThat(running.get(0).path("tasks").asLong()).isEqualTo(60);
        assertThat(running.get(0).path("connections").asLong()).isEqualTo(900);
        // 60 running tasks hold more than the idle engine: at least a task run and a gate each.
        assertThat(running.get(0).path("running_bytes").asLong())
                .isGreaterThan(running.get(0).path("idle_bytes").asLong() + 60 * 100);
        assertThat(out).contains("PIPELINED reference job running");
    }
}
