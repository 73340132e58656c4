package io.railyard.benchmarks.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Railyard's network throughput run at a tiny size: every record arrives once, then clean up. */
class NetworkThroughputTest {
    @TempDir Path dir;

    /** The expected sum of writer {@code w}'s records {@code from} (inclusive) to {@code to}. */
    private static long sum(int writers, long from, long to) {
        long total = 0;
        for (int w = 0; w < writers; w++) {
            for (long i = from; i < to; i++) {
                total += ((long) w << 40) | i;
            }
        }
        return total;
    }

    @ParameterizedTest
    @CsvSource({"1, 1, 1", "2, 3, 1", "4, 10, 100", "3, 40, 5"})
    void rounds_readExactlyTheRecordsSent(int writers, int channels, int flushMillis)
            throws Exception {
        NetworkThroughput.Settings settings =
                new NetworkThroughput.Settings(
                        writers, channels, Duration.ofMillis(flushMillis), 4096);
        try (NetworkThroughput run = NetworkThroughput.start(settings, dir)) {
            long perWriter = 5_003;
            for (int round = 0; round < 3; round++) {
                Delivered read = run.run(perWriter * writers + writers - 1);
                assertThat(read.records()).isEqualTo(perWriter * writers);
                assertThat(read.bytes()).isEqualTo(perWriter * writers * Long.BYTES);
                assertThat(read.checksum())
                        .as("sum of values, round %s", round)
                        .isEqualTo(sum(writers, round * perWriter, (round + 1) * perWriter));
            }
        }
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).as("directories left behind").isEmpty();
        }
    }

    @Test
    void flinkShape_hasFlinksFourWritersAnd32KiBPages() {
        NetworkThroughput.Settings settings =
                NetworkThroughput.Settings.flinkShape(100, Duration.ofMillis(1));
        assertThat(settings.writers()).isEqualTo(4);
        assertThat(settings.pageSizeBytes()).isEqualTo(32 << 10);
        assertThat(settings.readerOptions().gatePages())
                .isEqualTo(NetworkThroughput.Settings.READ_GATE_PAGES);
    }
}
