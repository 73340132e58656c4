package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportCommandTest {

    @Test
    void report_withJson_writesTheDocumentedKeys(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("nested/report.json");
        Path chart = dir.resolve("charts/report.png");
        CliRun run =
                CliRun.of(
                        "report",
                        "--parallelism",
                        "100",
                        "--json",
                        json.toString(),
                        "--chart",
                        chart.toString(),
                        "--shuffle-parallelism",
                        "4",
                        "--shuffle-mib",
                        "1",
                        "--shuffle-dir",
                        dir.toString(),
                        "--running-parallelism",
                        "10,20",
                        "--no-progress");

        String out = run.succeeded().out();
        assertThat(out).contains("P = 100,").contains("build topology + groups");
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertThat(root.path("parallelism").asInt()).isEqualTo(100);
        assertThat(root.path("procedures").path("build_topology").path("ms").isNumber()).isTrue();
        assertThat(root.path("procedures").path("build_topology").path("ms").asDouble())
                .isPositive();
        for (String procedure :
                new String[] {
                    "build_regions",
                    "init_scheduling",
                    "schedule_downstream",
                    "tasks_to_restart",
                    "partition_release",
                    "deploy_all"
                }) {
            assertThat(root.path("procedures").path(procedure).path("ms").isNumber())
                    .as(procedure)
                    .isTrue();
        }
        assertThat(root.path("procedures").path("tasks_to_restart").path("tasks").asInt())
                .isEqualTo(101);
        JsonNode running = root.path("procedures").path("time_to_running");
        assertThat(running.path("ms").asDouble()).isPositive();
        assertThat(running.path("parallelism").asInt()).isEqualTo(20);
        assertThat(running.path("runs").findValuesAsText("parallelism"))
                .containsExactly("10", "20");
        assertThat(out)
                .contains("time to RUNNING (PIPELINED, P = 10)")
                .contains("time to RUNNING (PIPELINED, P = 20)")
                .contains("<= 30 s");
        assertThat(out).contains("tasks to restart (101 tasks)");
        for (String count :
                new String[] {
                    "sink_descriptor_bytes", "shared_group_bytes", "total_shipped_bytes"
                }) {
            assertThat(root.path("deployment").path(count).asLong()).as(count).isPositive();
        }
        assertThat(root.path("deployment").path("deploy_all_longest_slice_ms").asDouble())
                .isPositive();
        assertThat(root.path("deployment").path("max_worker_bytes").asLong()).isPositive();
        assertThat(
                        root.path("deployment")
                                .path("worker_set_shape")
                                .path("total_shipped_bytes")
                                .asLong())
                .isPositive();
        assertThat(out).contains("deploy all: longest slice").contains("worker-set: total shipped");
        assertThat(root.path("memory").path("topology").asLong()).isPositive();
        assertThat(root.path("memory").path("initialized").asLong())
                .isGreaterThan(root.path("memory").path("topology").asLong());
        assertThat(root.path("memory").path("job_master").asLong())
                .as("the facade holds the topology, the regions and the per-task counters")
                .isGreaterThan(
                        root.path("memory").path("topology").asLong()
                                + root.path("memory").path("regions").asLong()
                                + 200 * 4); // an int per task at least
        assertThat(out).contains("memory: JobMaster, initialised");
        long parts =
                root.path("memory").path("scheduling").asLong()
                        + root.path("memory").path("failover").asLong()
                        + root.path("memory").path("descriptors").asLong();
        assertThat(parts)
                .as("scheduling + failover + descriptors: the initialised state beyond the regions")
                .isPositive()
                .isLessThan(root.path("memory").path("initialized").asLong());
        assertThat(root.path("memory").path("bytes_per_task").path("scheduling").asDouble())
                .isPositive();
        assertThat(out).contains("of which failover");
        assertThat(root.path("procedures").path("initialization").path("ms").asDouble())
                .isPositive();
        byte[] png = Files.readAllBytes(chart);
        assertThat(png).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
        assertThat(root.path("job").path("connections").asLong()).isEqualTo(10_000L);
        JsonNode shuffle = root.path("shuffle");
        assertThat(shuffle.path("parallelism").asInt()).isEqualTo(4);
        assertThat(shuffle.path("bytes").asLong()).isEqualTo(1 << 20);
        for (String system :
                new String[] {"limit", "sort", "hash", "hybrid-full", "hybrid-selective"}) {
            assertThat(shuffle.path(system).path("write_mb_s").asDouble()).as(system).isPositive();
            assertThat(shuffle.path(system).path("read_mb_s").asDouble()).as(system).isPositive();
        }
        assertThat(shuffle.path("device_limit").has("write_mb_s")).isTrue();
        assertThat(shuffle.path("sort").path("files").asLong()).isEqualTo(4); // one per producer
        assertThat(shuffle.path("hash").path("files").asLong()).isEqualTo(16);
        assertThat(shuffle.path("consumers").asText()).isEqualTo("waves");
        for (String hybrid : new String[] {"hybrid-full", "hybrid-selective"}) {
            JsonNode system = shuffle.path(hybrid);
            if (hybrid.equals("hybrid-full")) {
                assertThat(system.path("files").asLong()).as(hybrid).isGreaterThanOrEqualTo(4);
            } else { // a data file is made at the first spill: none if nothing spilled
                assertThat(system.path("files").asLong() > 0)
                        .as(hybrid)
                        .isEqualTo(system.path("disk_write_fraction").asDouble() > 0);
            }
            assertThat(system.path("disk_write_fraction").isNumber()).as(hybrid).isTrue();
            assertThat(system.path("peak_borrowed_pages").isInt()).as(hybrid).isTrue();
            assertThat(
                            system.path("disk_read_fraction").asDouble()
                                    + system.path("memory_read_fraction").asDouble())
                    .as(hybrid)
                    .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
        }
        assertThat(shuffle.path("hybrid-full").path("disk_write_fraction").asDouble())
                .isEqualTo(1.0);
        assertThat(out)
                .contains("shuffle: P = 4 producers")
                .contains("waves hybrid consumers")
                .contains("hybrid-selective");
    }

    @Test
    void report_withFlink_addsALiveFlinkColumn_andFlinkSortToTheShuffle(@TempDir Path dir)
            throws Exception {
        Path json = dir.resolve("report.json");
        Path files = Files.createDirectories(dir.resolve("files"));
        CliRun run =
                CliRun.of(
                        "report",
                        "--parallelism",
                        "50",
                        "--with-flink",
                        "--no-progress",
                        "--running-parallelism",
                        "0",
                        "--shuffle-parallelism",
                        "4",
                        "--shuffle-mib",
                        "1",
                        "--shuffle-dir",
                        files.toString(),
                        "--json",
                        json.toString());

        String out = run.succeeded().out();
        assertThat(out).contains("Flink 2.3").contains("ratio").contains("flink-sort");
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        JsonNode shuffle = root.path("shuffle");
        assertThat(shuffle.path("flink-sort").path("read_mb_s").asDouble()).isPositive();
        assertThat(shuffle.path("flink-sort").path("files").asLong()).isEqualTo(8);
        assertThat(shuffle.path("flink-sort").path("checksum"))
                .isEqualTo(shuffle.path("sort").path("checksum"));
        try (var left = Files.list(files)) {
            assertThat(left).isEmpty();
        }
        JsonNode flink = root.path("flink");
        assertThat(flink.path("version").asText()).startsWith("2.");
        for (String procedure :
                new String[] {
                    "initialization", "deploy_all", "tasks_to_restart", "partition_release"
                }) {
            assertThat(flink.path("procedures").path(procedure).path("ms").asDouble())
                    .as(procedure)
                    .isPositive();
        }
        assertThat(flink.path("memory").path("graph").asLong()).isPositive();
        assertThat(root.path("procedures").has("time_to_running")).as("skipped by 0").isFalse();
    }

    @Test
    void report_badParallelism_isAUsageErrorWithExitCode2() {
        assertThat(CliRun.of("report", "--parallelism", "0").isUsageError().err())
                .startsWith("report: --parallelism must be in [1, 16777216], was 0");
        CliRun.of("report", "--parallelism", "many").isUsageError();
        CliRun.of("report", "--unknown").isUsageError();
        assertThat(CliRun.of("report", "--running-parallelism", "100001").isUsageError().err())
                .startsWith(
                        "report: --running-parallelism must be in 0..100000 (0 alone skips it),"
                                + " was 100001");
        assertThat(CliRun.of("report", "--running-parallelism", "10,0").isUsageError().err())
                .contains("(0 alone skips it), was 10,0");
        assertThat(
                        CliRun.of("report", "--running-parallelism", "2", "--shuffle-dir", "/nope")
                                .isUsageError()
                                .err())
                .startsWith("report: --shuffle-dir /nope: no such directory");
    }
}
