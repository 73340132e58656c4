package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.benchmarks.procedures.Delivered;
import io.railyard.benchmarks.procedures.ShuffleThroughput;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Consumers;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Failure;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Throughput;
import io.railyard.shuffle.partition.PartitionKind;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each shape of a system's result as a row and as JSON, on a result built by hand. */
class ShuffleTableTest {
    private static final Delivered READ = new Delivered(3000, 300_000, 0xabcL);

    /** Page cache measured, device not; sort measured, hash short of memory, hybrid-full failed. */
    private static ShuffleThroughput.Result result() {
        Map<PartitionKind, Throughput> systems = new EnumMap<>(PartitionKind.class);
        systems.put(PartitionKind.SORT, Throughput.Measured.shuffle(50, 100, 5, READ));
        systems.put(
                PartitionKind.HASH,
                new Throughput.Failed(
                        new Failure.InsufficientMemory("needs 3 MiB, has 1 MiB", 3L << 20), 0));
        systems.put(
                PartitionKind.HYBRID_FULL,
                ShuffleThroughput.ioError(2, "hybrid-full: /tmp/x: No space left on device"));
        return new ShuffleThroughput.Result(
                new ShuffleThroughput.Setup(5, 300_000, 100, 4, 1L << 20, 64, Consumers.EARLY, 0),
                new ShuffleThroughput.Limits(
                        Throughput.Measured.shuffle(200, 400, 1, READ),
                        new Throughput.Failed(new Failure.Unsupported("no direct IO"), 1)),
                systems);
    }

    @Test
    void rows_measuredAgainstTheMeasuredLimit_failuresInTheCommandsWords() {
        String rows = ShuffleTable.rows(result(), ShuffleChecks.SHUFFLE);

        assertThat(rows.lines())
                .containsExactly(
                        String.format(
                                "%-11s %-16s %10s %10s %8s %8s %9s %9s %9s %7s %7s %7s %10s",
                                5, "limit", "200", "400", "100%", "100%", "-", "-", 1, "-", "-",
                                "-", "-"),
                        "5           device           not measured: no direct IO",
                        String.format(
                                "%-11s %-16s %10s %10s %8s %8s %9s %9s %9s %7s %7s %7s %10s",
                                5, "sort", "50", "100", "25%", "25%", "-", "-", 5, "-", "-", "-",
                                "-"),
                        "5           hash             not measured: needs 3 MiB, has 1 MiB; raise"
                                + " --memory-mib to at least 3 to measure it",
                        "5           hybrid-full      failed: hybrid-full: /tmp/x: No space left"
                                + " on device");
    }

    @Test
    void putJson_failuresHaveNullRatesAReasonAndOnlyAShortfallItsMemory() {
        ObjectNode node = JsonNodeFactory.instance.objectNode();

        ShuffleTable.putJson(node, result(), ShuffleChecks.SHUFFLE);

        assertThat(node.path("parallelism").asInt()).isEqualTo(5);
        assertThat(node.path("network_memory_bytes").asLong()).isEqualTo(1L << 20);
        assertThat(node.path("limit").path("write_mb_s").asDouble()).isEqualTo(200);
        assertThat(node.path("device_limit").path("write_mb_s").isNull()).isTrue();
        assertThat(node.path("device_limit").path("reason").asText()).isEqualTo("unsupported");
        assertThat(node.path("device_limit").has("required_memory_bytes")).isFalse();
        assertThat(node.path("sort").path("records").asLong()).isEqualTo(3000);
        assertThat(node.path("sort").path("files").asLong()).isEqualTo(5);
        assertThat(node.path("hash").path("reason").asText()).isEqualTo("insufficient_memory");
        assertThat(node.path("hash").path("required_memory_bytes").asLong()).isEqualTo(3L << 20);
        assertThat(node.path("hybrid-full").path("reason").asText()).isEqualTo("io_error");
        assertThat(node.path("hybrid-full").path("files").asLong()).isEqualTo(2);
        assertThat(node.path("hybrid-full").has("records")).isFalse();
        assertThat(result().ioFailure())
                .isEqualTo(new Failure.IoError("hybrid-full: /tmp/x: No space left on device"));
    }
}
