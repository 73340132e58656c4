package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code shuffle} at a tiny scale: the table, the JSON, and nothing left in the directory. */
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

        assertThat(out)
                .contains("limit")
                .contains("sort")
                .contains("hash")
                .contains("hybrid-full")
                .contains("hybrid-selective")
                .contains("disk w")
                .contains("early hybrid consumers");
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void shuffle_overTcp_readsEveryBlockingKindAgainOverTheNetwork() throws Exception {
        Path json = dir.resolve("out/tcp.json");

        runShuffle(
                json,
                "--parallelism",
                "3",
                "--bytes-mib",
                "1",
                "--mode",
                "sort,hash",
                "--transport",
                "tcp");

        JsonNode run = new ObjectMapper().readTree(json.toFile()).path("runs").path(0);
        for (String mode : new String[] {"sort", "hash"}) {
            JsonNode tcp = run.path(mode).path("over_tcp");
            assertThat(tcp.path("read_mb_s").asDouble()).as(mode).isPositive();
            assertThat(tcp.path("bytes_sent").asLong())
                    .as(mode + ": every record's bytes, once")
                    .isGreaterThanOrEqualTo(3 * 1366 * 256L - 256);
            assertThat(tcp.path("bytes_sent_from_files").asLong())
                    .as(mode + ": sent as file regions, and nothing through a serving gate")
                    .isPositive()
                    .isEqualTo(tcp.path("bytes_sent_without_copy").asLong())
                    .isLessThanOrEqualTo(tcp.path("bytes_sent").asLong());
        }
        assertThat(CliRun.of("shuffle", "--transport", "udp", "--dir", dir.toString()).exit())
                .isEqualTo(2);
    }

    @Test
    void shuffle_defaultModes_jsonHasAnObjectPerMode() throws Exception {
        Path json = dir.resolve("out/shuffle.json");

        runShuffle(json, "--parallelism", "3", "--bytes-mib", "1");

        JsonNode run = new ObjectMapper().readTree(json.toFile()).path("runs").path(0);
        assertThat(run.path("consumers").asText()).isEqualTo("early");
        assertThat(run.path("gate_pages").asInt()).isEqualTo(64);
        for (String mode : new String[] {"sort", "hash", "hybrid-full", "hybrid-selective"}) {
            JsonNode system = run.path(mode);
            assertThat(system.path("write_mb_s").asDouble()).as(mode).isPositive();
            assertThat(system.path("read_mb_s").asDouble()).as(mode).isPositive();
            if (mode.equals("hybrid-selective")) {
                // A data file is made at the first spill: none if every region stayed in memory.
                assertThat(system.path("files").asLong() > 0)
                        .as(mode)
                        .isEqualTo(system.path("disk_write_fraction").asDouble() > 0);
            } else {
                assertThat(system.path("files").asLong()).as(mode).isPositive();
            }
            // 3 producers of a third of 1 MiB each: 1,365 records of 256 bytes and a shorter one
            assertThat(system.path("records").asLong()).as(mode).isEqualTo(3 * 1366);
            assertThat(system.path("checksum").asText()).as(mode).matches("[0-9a-f]{16}");
            boolean hybrid = mode.startsWith("hybrid");
            for (String key :
                    new String[] {
                        "disk_write_fraction",
                        "disk_read_fraction",
                        "memory_read_fraction",
                        "peak_borrowed_pages"
                    }) {
                assertThat(system.has(key)).as(mode + " " + key).isEqualTo(hybrid);
            }
        }
        JsonNode full = run.path("hybrid-full");
        assertThat(full.path("disk_write_fraction").asDouble()).isEqualTo(1.0);
        assertThat(
                        full.path("disk_read_fraction").asDouble()
                                + full.path("memory_read_fraction").asDouble())
                .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(full.path("peak_borrowed_pages").asInt()).isPositive();
    }

    @Test
    void shuffle_someModesLateConsumers_runsOnlyThose() throws Exception {
        Path json = dir.resolve("shuffle.json");

        String out =
                runShuffle(
                                json,
                                "--parallelism",
                                "4",
                                "--bytes-mib",
                                "1",
                                "--mode",
                                "hybrid-selective,sort",
                                "--consumers",
                                "late")
                        .out();

        assertThat(out)
                .contains("sort")
                .contains("hybrid-selective")
                .doesNotContain("hash")
                .doesNotContain("hybrid-full")
                .contains("late hybrid consumers");
        JsonNode run = new ObjectMapper().readTree(json.toFile()).path("runs").path(0);
        assertThat(run.path("consumers").asText()).isEqualTo("late");
        assertThat(run.has("sort")).isTrue();
        assertThat(run.has("hybrid-selective")).isTrue();
        assertThat(run.has("hash")).isFalse();
        assertThat(run.has("hybrid-full")).isFalse();
        assertThat(run.path("hybrid-selective").path("read_mb_s").asDouble()).isPositive();
    }

    @Test
    void shuffle_hybridEarlyBeyondMemory_isNotMeasured_andSaysWhatToChange() throws Exception {
        Path json = dir.resolve("shuffle.json");

        // 100 writers of 65 pages and 100 gates of 64 pages do not fit in 64 MiB.
        String out =
                runShuffle(
                                json,
                                "--parallelism",
                                "100",
                                "--bytes-mib",
                                "1",
                                "--mode",
                                "hybrid-full")
                        .out();

        assertThat(out)
                .contains(
                        "hybrid-full      not measured: needs 413344 KiB of network memory, has 64"
                                + " MiB: 100 hybrid writers of 65 pages and 100 input gates of 64"
                                + " pages at once (early consumers")
                .contains(
                        "raise --memory-mib to at least 404 to measure it, or attach consumers in"
                                + " waves (--consumers waves)");
        JsonNode full =
                new ObjectMapper().readTree(json.toFile()).path("runs").path(0).path("hybrid-full");
        assertThat(full.path("reason").asText()).isEqualTo("insufficient_memory");
        assertThat(full.path("write_mb_s").isNull()).isTrue();
        assertThat(full.path("required_memory_bytes").asLong()).isEqualTo((17 + 100L * 129) << 15);
        assertThat(full.has("disk_write_fraction")).isFalse();
    }

    @Test
    void shuffle_withFlink_addsFlinkSortBesideSort_deliveringTheSameRecords() throws Exception {
        Path json = dir.resolve("shuffle.json");

        String out =
                runShuffle(
                                json,
                                "--parallelism",
                                "3",
                                "--bytes-mib",
                                "1",
                                "--mode",
                                "hash,sort",
                                "--with-flink")
                        .out();

        List<String> systems =
                out.lines()
                        .filter(line -> line.startsWith("3 "))
                        .map(line -> line.substring(12, 28).strip())
                        .toList();
        assertThat(systems).containsExactly("limit", "device", "sort", "flink-sort", "hash");
        assertThat(out).contains("flink-sort = Flink 2.3.0 SortMergeResultPartition");
        JsonNode run = new ObjectMapper().readTree(json.toFile()).path("runs").path(0);
        JsonNode sort = run.path("sort");
        JsonNode flink = run.path("flink-sort");
        assertThat(flink.path("write_mb_s").asDouble()).isPositive();
        assertThat(flink.path("read_mb_s").asDouble()).isPositive();
        assertThat(flink.path("files").asLong()).isEqualTo(6);
        assertThat(flink.path("records").asLong()).isEqualTo(3 * 1366);
        assertThat(flink.path("records")).isEqualTo(sort.path("records"));
        assertThat(flink.path("checksum").asText())
                .matches("[0-9a-f]{16}")
                .isEqualTo(sort.path("checksum").asText());
        try (var left = Files.list(dir.resolve("files"))) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void shuffle_withFlinkBeyondMemory_isNotMeasured_andSaysWhatToChange() throws Exception {
        // Hash is not checked up front: 1 MiB holds neither its gate nor Flink's writer.
        String out =
                CliRun.of(
                                "shuffle",
                                "--parallelism",
                                "1",
                                "--bytes-mib",
                                "1",
                                "--memory-mib",
                                "1",
                                "--mode",
                                "hash",
                                "--with-flink",
                                "--dir",
                                dir.toString())
                        .succeeded()
                        .out();

        assertThat(out)
                .contains(
                        "flink-sort       not measured: needs 2368 KiB of network memory, has 1"
                                + " MiB: 1 writer at once, each a Flink sort-merge writer of 73"
                                + " buffers (a Railyard sort writer's pages) of 32 KiB, plus at"
                                + " least 1 buffer for Flink's batch-shuffle read pool; raise"
                                + " --memory-mib to at least 3 to measure it");
    }

    /**
     * Runs {@code shuffle} with {@code args}, its files under {@code dir/files} and its JSON at
     * {@code json}; the run must succeed.
     */
    private CliRun runShuffle(Path json, String... args) throws Exception {
        Path files = Files.createDirectories(dir.resolve("files"));
        String[] all = new String[args.length + 5];
        all[0] = "shuffle";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--dir";
        all[args.length + 2] = files.toString();
        all[args.length + 3] = "--json";
        all[args.length + 4] = json.toString();
        return CliRun.of(all).succeeded();
    }
}
