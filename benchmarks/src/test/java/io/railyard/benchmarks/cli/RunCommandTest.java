package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.railyard.local.LocalEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run}: a job file end to end on the local engine, its JSON, failures and bad options. */
class RunCommandTest {
    private static final String DIAMOND =
            "{'vertices':[{'name':'A','parallelism':2},{'name':'B','parallelism':3},"
                    + "{'name':'C','parallelism':2}],'edges':["
                    + "{'source':'A','target':'B','pattern':'ALL_TO_ALL','type':'HYBRID_FULL'},"
                    + "{'source':'B','target':'C','pattern':'ALL_TO_ALL','type':'BLOCKING'},"
                    + "{'source':'A','target':'C','pattern':'POINTWISE','type':'PIPELINED'}]}";

    /** A 3-vertex job; {@code %s} is the source's extra fields. */
    private static final String CHAIN =
            "{'vertices':[{'name':'src','parallelism':4%s},{'name':'mid','parallelism':3},"
                    + "{'name':'sink','parallelism':2}],'edges':["
                    + "{'source':'src','target':'mid','pattern':'ALL_TO_ALL','type':'HYBRID_FULL'},"
                    + "{'source':'mid','target':'sink','pattern':'ALL_TO_ALL','type':'BLOCKING'}]}";

    private static final String SKEW =
            ",'records_per_subtask':300,'skew':{'hot_subtasks':1,'factor':2.5}";

    @TempDir Path dir;

    private CliRun run(String... args) {
        String[] full = new String[args.length + 3];
        full[0] = "run";
        full[1] = "--dir";
        full[2] = dir.toString();
        System.arraycopy(args, 0, full, 3, args.length);
        return CliRun.of(full);
    }

    @Test
    void aJobRunsExactly_andItsJsonSaysSo() throws Exception {
        Path job = InspectCommandTest.file(dir, DIAMOND);
        Path json = dir.resolve("run.json");

        CliRun run = run("--job", job.toString(), "--records", "500", "--json", json.toString());

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("FINISHED").contains("(exact)");
        JsonNode doc = new ObjectMapper().readTree(json.toFile());
        assertThat(doc.get("state").asText()).isEqualTo("FINISHED");
        // A: 2 x 500 records reach C twice (via B and directly), B's through a keyed exchange.
        assertThat(doc.get("records_in").asLong()).isEqualTo(2_000);
        assertThat(doc.get("records_out").asLong()).isEqualTo(2_000);
        assertThat(doc.get("checksum_out").asText()).isEqualTo(doc.get("checksum_in").asText());
        assertThat(doc.get("leaked_pages").asLong()).isZero();
        assertThat(doc.get("leaked_files").asLong()).isZero();
    }

    /**
     * The 10,000 x 10,000 PIPELINED reference job (10^8 connections, one region of 20,000 tasks on
     * one worker's two threads) carries its records exactly and leaves nothing behind, in 64 MiB of
     * network memory. The file is in the tests' resources, beside its BLOCKING and HYBRID_SELECTIVE
     * twins (docs/COMMANDS.md runs those).
     */
    @Test
    void theTenThousandByTenThousandJob_runsExactly_onOneWorker() throws Exception {
        Path job = resource("/io/railyard/benchmarks/run/pipelined-10k.json");
        Path json = dir.resolve("10k.json");

        CliRun run =
                run(
                        "--job",
                        job.toString(),
                        "--workers",
                        "1",
                        "--slots",
                        "20000",
                        "--record-bytes",
                        "16",
                        "--memory-mib",
                        "64",
                        "--page-kib",
                        "2",
                        "--gate-pages",
                        "1",
                        "--json",
                        json.toString());

        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(json.toFile());
        assertThat(doc.get("state").asText()).isEqualTo("FINISHED");
        assertThat(doc.get("records_in").asLong()).isEqualTo(100_000); // 10,000 sources x 10
        assertThat(doc.get("records_out").asLong()).isEqualTo(100_000);
        assertThat(doc.get("checksum_out").asText()).isEqualTo(doc.get("checksum_in").asText());
        assertThat(doc.get("leaked_pages").asLong()).isZero();
        assertThat(doc.get("leaked_files").asLong()).isZero();
        assertThat(doc.get("partitions_left").asLong()).isZero();
        assertThat(doc.get("tasks_deployed").asLong()).isEqualTo(20_000);
    }

    private static Path resource(String name) throws Exception {
        return Path.of(
                java.util.Objects.requireNonNull(RunCommandTest.class.getResource(name), name)
                        .toURI());
    }

    @Test
    void overTcp_theJobRunsExactly_andEveryByteCrossesTheNetwork() throws Exception {
        Path job = InspectCommandTest.file(dir, DIAMOND);
        Path json = dir.resolve("tcp.json");

        CliRun run =
                run(
                        "--job",
                        job.toString(),
                        "--records",
                        "500",
                        "--fail-rate",
                        "0.2",
                        "--transport",
                        "tcp",
                        "--json",
                        json.toString());

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("(exact)").contains("transport: tcp on 127.0.0.1");
        JsonNode doc = new ObjectMapper().readTree(json.toFile());
        assertThat(doc.get("transport").asText()).isEqualTo("tcp");
        assertThat(doc.get("records_out").asLong()).isEqualTo(2_000);
        assertThat(doc.get("network_bytes_sent").asLong())
                .as("at least the records' bytes")
                .isGreaterThanOrEqualTo(2_000L * 8);
        assertThat(doc.get("leaked_pages").asLong()).isZero();
    }

    @Test
    void failuresAreRecoveredFrom_untilThePolicyGivesUp() throws Exception {
        Path job = InspectCommandTest.file(dir, DIAMOND);

        CliRun recovered =
                run(
                        "--job",
                        job.toString(),
                        "--records",
                        "500",
                        "--fail-rate",
                        "0.3",
                        "--seed",
                        "3");
        // Blocking only: consumers never start, so the cause is always a source's own failure.
        Path blocking =
                InspectCommandTest.file(
                        dir,
                        "{'vertices':[{'name':'a','parallelism':2},{'name':'b','parallelism':2}],"
                                + "'edges':[{'source':'a','target':'b','pattern':'ALL_TO_ALL',"
                                + "'type':'BLOCKING'}]}");
        CliRun failed =
                run("--job", blocking.toString(), "--fail-rate", "1", "--max-restarts", "2");

        assertThat(recovered.exit()).as(recovered.err()).isZero();
        assertThat(recovered.out()).contains("(exact)");
        assertThat(failed.exit()).isEqualTo(1);
        assertThat(failed.err().strip())
                .startsWith("run: the job failed: task ")
                .contains("is not restarted: restart attempt 3 exceeds maxAttempts = 2")
                .contains("; root cause: ")
                .contains("injected failure")
                .doesNotContain("\n");
        assertThat(failed.out()).contains("left behind: 0 pages, 0 files");
    }

    @Test
    void badOptions_oneLineExitTwo() throws Exception {
        Path job = InspectCommandTest.file(dir, DIAMOND);
        for (String[] args :
                new String[][] {
                    {"--job", job.toString(), "--shuffle", "heap"},
                    {"--job", job.toString(), "--fail-rate", "2"},
                    {"--job", job.toString(), "--workers", "0"},
                    {"--job", job.toString(), "--transport", "udp"},
                    // An address of no interface of this host (TEST-NET-3): the bind fails.
                    {
                        "--job",
                        job.toString(),
                        "--transport",
                        "tcp",
                        "--bind-address",
                        "203.0.113.7"
                    },
                    {"--job", dir.resolve("nope.json").toString()},
                    {"--job", job.toString(), "--tls-keystore", job.toString()}, // no tcp
                    // tcp with a key store that is not one (or no password in the environment)
                    {
                        "--job",
                        job.toString(),
                        "--transport",
                        "tcp",
                        "--tls-keystore",
                        job.toString()
                    },
                }) {
            CliRun bad = run(args);
            assertThat(bad.exit()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(bad.err().strip()).startsWith("run: ").doesNotContain("\n");
        }
    }

    /**
     * A job whose task can never fit in a worker's network memory is refused before it runs, in one
     * line naming the task, the pages and the option (it was restarted until --max-restarts).
     */
    @Test
    void aJobThatCanNeverFitItsMemory_isRefusedInOneLine() throws Exception {
        Path job = InspectCommandTest.file(dir, DIAMOND);
        CliRun bad = run("--job", job.toString(), "--memory-mib", "1");
        assertThat(bad.exit()).as(bad.err()).isEqualTo(2);
        assertThat(bad.err().strip())
                .startsWith(
                        "run: --job " + job + " does not fit --memory-mib 1: task A#0 can never")
                .contains("pledge 15 of 32 pages")
                .doesNotContain("\n");
    }

    /**
     * A slot costs no thread, but each task deployed in it heap: slots beyond what a process holds
     * are refused before anything runs, in one line naming both options and the product.
     */
    @Test
    void moreSlotsThanAProcessHolds_areRefusedInOneLine() throws Exception {
        Path job = InspectCommandTest.file(dir, DIAMOND);
        CliRun bad = run("--job", job.toString(), "--workers", "256", "--slots", "16384");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err().strip())
                .isEqualTo(
                        "run: --workers × --slots must be at most 2097152 (each deployed task"
                                + " takes heap), was 256 × 16384 = 4194304 (see"
                                + " 'benchmarks.jar run --help')");
    }

    /** Shuffle settings that do not go together are one line naming them, before any task. */
    @Test
    void aMemoryThatIsNotWholePages_isRefusedInOneLine() throws Exception {
        Path job = InspectCommandTest.file(dir, DIAMOND);
        CliRun bad = run("--job", job.toString(), "--memory-mib", "1", "--page-kib", "3000");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err().strip())
                .startsWith("run: --memory-mib, --page-kib, --gate-pages and --sort-buffer-pages: ")
                .doesNotContain("\n");
    }

    private JsonNode runToJson(Path job, String... more) throws Exception {
        Path json = Files.createTempFile(dir, "run", ".json");
        String[] args = new String[more.length + 4];
        args[0] = "--job";
        args[1] = job.toString();
        args[2] = "--json";
        args[3] = json.toString();
        System.arraycopy(more, 0, args, 4, more.length);
        CliRun run = run(args);
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.err()).as("no progress line unless stderr is a terminal").isEmpty();
        return new ObjectMapper().readTree(json.toFile());
    }

    /**
     * A skewed source: 3 subtasks of 300 records and 1 hot one of 750 (2.5 x 300) reach the sink
     * exactly, and the file's counts win over --records; the same graph without them differs.
     */
    @Test
    void aSkewedSource_reachesTheSinkExactly_andDiffersFromTheUnskewedJob() throws Exception {
        Path skewed = InspectCommandTest.file(dir, String.format(CHAIN, SKEW));
        Path plain = InspectCommandTest.file(dir, String.format(CHAIN, ""));

        JsonNode withSkew = runToJson(skewed, "--records", "1000");
        JsonNode without = runToJson(plain, "--records", "1000");

        assertThat(withSkew.get("records_generated").asLong()).isEqualTo(3 * 300 + 750);
        assertThat(withSkew.get("records_in").asLong()).isEqualTo(3 * 300 + 750);
        assertThat(withSkew.get("records_out").asLong()).isEqualTo(3 * 300 + 750);
        assertThat(withSkew.get("checksum_out").asText())
                .isEqualTo(withSkew.get("checksum_in").asText());
        assertThat(without.get("records_out").asLong()).isEqualTo(4 * 1000);
        assertThat(without.get("checksum_in").asText())
                .isNotEqualTo(withSkew.get("checksum_in").asText());
    }

    /**
     * The summary's figures in the JSON, beside every field it had: a job with a blocking edge
     * writes to disk and reads back, a hybrid edge with memory to spare is read from memory, and
     * the slots busy at once are between one and all of them.
     */
    @Test
    void theJson_holdsTheSummary() throws Exception {
        Path job = InspectCommandTest.file(dir, String.format(CHAIN, SKEW));

        JsonNode doc = runToJson(job, "--workers", "2", "--slots", "3");

        for (String field :
                new String[] {
                    "state", "records_in", "records_out", "checksum_in", "checksum_out",
                    "restarts", "tasks_deployed", "wall_ms", "leaked_pages", "leaked_files",
                    "partitions_left", "tasks_not_stopped"
                }) {
            assertThat(doc.has(field)).as(field).isTrue();
        }
        assertThat(doc.get("bytes_written_to_disk").asLong())
                .isGreaterThanOrEqualTo(doc.get("records_out").asLong() * 64);
        assertThat(doc.get("bytes_read_from_disk").asLong()).isPositive();
        assertThat(doc.get("bytes_read_from_memory").asLong()).isPositive();
        assertThat(doc.get("max_slots_busy").asInt()).isBetween(1, 6);
        assertThat(doc.get("slots").asInt()).isEqualTo(6);
        assertThat(doc.get("records_per_s").asDouble())
                .isCloseTo(
                        doc.get("records_out").asDouble() / doc.get("wall_ms").asDouble() * 1e3,
                        org.assertj.core.data.Percentage.withPercentage(0.1));
        assertThat(doc.get("restarts").asInt()).isZero();
    }

    @Test
    void theSummary_namesTheShuffleBytesAndTheSlots() throws Exception {
        Path job = InspectCommandTest.file(dir, String.format(CHAIN, SKEW));

        CliRun run = run("--job", job.toString(), "--workers", "1", "--slots", "2");

        run.succeeded();
        assertThat(run.out().lines()).hasSize(2);
        assertThat(run.out())
                .contains("1,650 of 1,650 records at the sinks (exact)")
                .containsPattern(
                        "1,650 records generated by the sources; shuffle: [0-9.]+ KiB"
                                + " written to disk, [0-9.]+ KiB read from disk, [0-9.]+ KiB read from"
                                + " memory; at most [12] of 2 slots busy at once");
    }

    /** A bad source field: one line naming the file, the JSON path and what is allowed; exit 2. */
    @Test
    void badSkewOrRecords_oneLineExitTwo() throws Exception {
        String[][] cases = {
            {
                ",'skew':{'hot_subtasks':1,'factor':0.5}",
                "$.vertices[0].skew.factor: must be a number in [1, 1000]"
            },
            {
                ",'skew':{'hot_subtasks':9,'factor':2}",
                "$.vertices[0].skew.hot_subtasks: must be an integer in [1, 4]"
            },
            {
                ",'records_per_subtask':'many'",
                "$.vertices[0].records_per_subtask: expected an integer"
            },
        };
        for (String[] bad : cases) {
            Path job = InspectCommandTest.file(dir, String.format(CHAIN, bad[0]));

            CliRun run = run("--job", job.toString()).isUsageError();

            assertThat(run.err()).startsWith("run: " + job + ": " + bad[1]);
            // inspect reads the same file alike
            InspectCommandTest.inspect("--job", job.toString()).isUsageError();
        }
        Path onAConsumer =
                InspectCommandTest.file(
                        dir,
                        String.format(CHAIN, "")
                                .replace(
                                        "'name':'mid','parallelism':3",
                                        "'name':'mid','parallelism':3,'records_per_subtask':5"));
        assertThat(run("--job", onAConsumer.toString()).isUsageError().err())
                .contains("$.vertices[1].records_per_subtask: vertex 'mid' has input edges");
    }

    /** inspect accepts a file with source records and skew, and prints what it prints without. */
    @Test
    void inspect_acceptsTheSourceFields_andIgnoresThem() throws Exception {
        Path skewed = InspectCommandTest.file(dir, String.format(CHAIN, SKEW));
        Path plain = InspectCommandTest.file(dir, String.format(CHAIN, ""));

        assertThat(InspectCommandTest.inspect("--job", skewed.toString(), "--fail", "src#0").json())
                .isEqualTo(
                        InspectCommandTest.inspect("--job", plain.toString(), "--fail", "src#0")
                                .json());
    }

    /**
     * --progress always: the line is drawn on stderr (redrawn with a carriage return) and erased at
     * the end; stdout has the summary alone. --progress never: nothing on stderr.
     */
    @Test
    void progress_goesToStderrOnly_andCanBeForcedOrTurnedOff() throws Exception {
        Path job = InspectCommandTest.file(dir, String.format(CHAIN, ""));
        // 2,000,000 records: the job lasts for several redraws.
        String[] slow = {"--job", job.toString(), "--records", "500000", "--record-bytes", "16"};

        CliRun always = run(concat(slow, "--progress", "always"));
        CliRun never = run(concat(slow, "--progress", "never"));

        assertThat(always.exit()).as(always.err()).isZero();
        assertThat(always.out()).doesNotContain("\r").contains("(exact)");
        assertThat(always.out().lines()).hasSize(2);
        assertThat(always.err())
                .startsWith("\r[")
                .containsPattern(
                        "\\] \\d+/9 tasks, [0-9,]+ records committed, \\d+ restarts,"
                                + " \\d+/16 slots busy, [0-9.]+ s")
                .endsWith("\r")
                .doesNotContain("\n");
        never.succeeded();
        CliRun bad = run(concat(slow, "--progress", "sometimes")).isUsageError();
        assertThat(bad.err())
                .contains("--progress must be 'auto', 'always' or 'never', was 'sometimes'");
    }

    @Test
    void progressLine_showsTasksRecordsRestartsAndSlots() {
        LocalEngine.Progress halfway =
                new LocalEngine.Progress(6, 12, 1_234_567, 1, 7, 3_250_000_000L);
        LocalEngine.Progress done =
                new LocalEngine.Progress(12, 12, 2_000_000, 0, 0, 9_000_000_000L);

        assertThat(RunCommand.ProgressBar.line(halfway, 16))
                .isEqualTo(
                        "[############            ] 6/12 tasks, 1,234,567 records committed,"
                                + " 1 restarts, 7/16 slots busy, 3.3 s");
        assertThat(RunCommand.ProgressBar.line(done, 16)).startsWith("[" + "#".repeat(24) + "]");
        assertThat(RunCommand.ProgressBar.bytes(1023)).isEqualTo("1023 B");
        assertThat(RunCommand.ProgressBar.bytes(1536)).isEqualTo("1.5 KiB");
        assertThat(RunCommand.ProgressBar.bytes(5L << 30)).isEqualTo("5.0 GiB");
    }

    private static String[] concat(String[] first, String... more) {
        String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }
}
