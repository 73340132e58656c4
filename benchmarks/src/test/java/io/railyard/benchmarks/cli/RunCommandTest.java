package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
                .startsWith("run: the job failed: ")
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
                    {"--job", dir.resolve("nope.json").toString()},
                }) {
            CliRun bad = run(args);
            assertThat(bad.exit()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(bad.err().strip()).startsWith("run: ").doesNotContain("\n");
        }
    }
}
