package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inspect}, {@code simulate} and {@code run} on the plans Flink generated ({@code
 * FlinkPlanGoldenTest}'s golden files): told from a job file by content, undecided parallelism
 * given with {@code --vertex-parallelism} or taken from a {@code /jobs/:jobid} document with a
 * warning on stderr, and every mistake one line with exit code 2.
 */
class FlinkPlanCommandsTest {
    private static final String ADAPTIVE_SINK = "Keyed Reduce -> Sink: Writer";

    @TempDir Path dir;

    private static String plan(String name) throws Exception {
        URL url =
                Objects.requireNonNull(
                        FlinkPlanCommandsTest.class.getResource(
                                "/io/railyard/benchmarks/flink/plans/" + name + ".json"),
                        name);
        return Path.of(url.toURI()).toString();
    }

    @Test
    void inspect_aFlinkPlan_printsItsRegionsAndRestartSet() throws Exception {
        String wordCount = plan("word-count");

        String regions = InspectCommandTest.inspect("--job", wordCount).json();
        assertThat(regions)
                .startsWith("{\"regions\":[[\"Keyed Reduce#0\"],[\"Keyed Reduce#1\"]")
                .contains("[\"Source: Sequence Source -> Flat Map#1\"]")
                .contains("[\"Sink: Writer#1\"]");
        assertThat(
                        InspectCommandTest.inspect("--job", wordCount, "--fail", "Keyed Reduce#1")
                                .json())
                .endsWith(
                        ",\"restart\":[\"Keyed Reduce#1\",\"Sink: Writer#0\",\"Sink: Writer#1\"]}");
        assertThat(InspectCommandTest.inspect("--job", wordCount, "--format", "flink-plan").json())
                .isEqualTo(regions);
    }

    @Test
    void anUndecidedParallelism_isOneLine_untilItIsGiven() throws Exception {
        String adaptive = plan("adaptive-undecided");

        CliRun missing = InspectCommandTest.inspect("--job", adaptive).isUsageError();
        assertThat(missing.err())
                .contains(adaptive + ": $.plan.nodes[0].parallelism: -1: the parallelism of vertex")
                .contains("give --vertex-parallelism '" + ADAPTIVE_SINK + "=P'");

        String given =
                InspectCommandTest.inspect(
                                "--job", adaptive, "--vertex-parallelism", ADAPTIVE_SINK + "=3")
                        .json();
        assertThat(given)
                .contains("\"" + ADAPTIVE_SINK + "#2\"")
                .doesNotContain(ADAPTIVE_SINK + "#3");
    }

    @Test
    void aJobDetailsDocument_usesTheMaxParallelism_withAWarningOnStderr() throws Exception {
        CliRun run = InspectCommandTest.inspect("--job", plan("adaptive-undecided-job-details"));

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.err())
                .isEqualTo(
                        "warning: vertex '"
                                + ADAPTIVE_SINK
                                + "': parallelism decided at run time (-1 in the plan); using its"
                                + " maxParallelism 128 — give --vertex-parallelism '"
                                + ADAPTIVE_SINK
                                + "=P' for another"
                                + System.lineSeparator());
        assertThat(run.out()).contains("\"" + ADAPTIVE_SINK + "#127\"");
    }

    @Test
    void badFormatAndParallelismOptions_areOneLineUsageErrors() throws Exception {
        String wordCount = plan("word-count");
        Path jobFile = Files.writeString(dir.resolve("job.json"), "{\"vertices\":[],\"edges\":[]}");

        assertThat(
                        InspectCommandTest.inspect("--job", wordCount, "--format", "xml")
                                .isUsageError()
                                .err())
                .contains("--format must be auto, railyard or flink-plan, was 'xml'");
        assertThat(
                        InspectCommandTest.inspect("--job", wordCount, "--format", "railyard")
                                .isUsageError()
                                .err())
                .contains(wordCount + ": $.plan: ");
        assertThat(
                        InspectCommandTest.inspect(
                                        "--job",
                                        wordCount,
                                        "--vertex-parallelism",
                                        "Keyed Reduce=0")
                                .isUsageError()
                                .err())
                .contains(
                        "--vertex-parallelism Keyed Reduce=0: P must be an integer in [1,"
                                + " 16777216], was 0");
        assertThat(
                        InspectCommandTest.inspect(
                                        "--job", wordCount, "--vertex-parallelism", "Reduce=4")
                                .isUsageError()
                                .err())
                .contains("--vertex-parallelism Reduce: the plan has no vertex of that name or id");
        assertThat(
                        InspectCommandTest.inspect(
                                        "--job", jobFile.toString(), "--vertex-parallelism", "a=2")
                                .isUsageError()
                                .err())
                .contains("--vertex-parallelism: applies to a Flink plan only");
    }

    @Test
    void report_ofAPlanAtAnotherScale_printsTheCostsAndWritesJson() throws Exception {
        Path json = dir.resolve("report.json");
        CliRun run =
                InspectCommandTest.inspect(
                                "--report",
                                "--job",
                                plan("word-count"),
                                "--vertex-parallelism",
                                "Source: Sequence Source -> Flat Map=2100",
                                "--vertex-parallelism",
                                "Keyed Reduce=2100",
                                "--workers",
                                "200",
                                "--json",
                                json.toString())
                        .succeeded();

        assertThat(run.out())
                .containsPattern("\n  Keyed Reduce +2,100 +1 +2,100\n")
                .containsPattern(
                        "\n  Source: Sequence Source -> Flat Map -> Keyed Reduce +ALL_TO_ALL"
                                + " +BLOCKING +1 +4,410,000\n")
                .contains("deployment to 200 workers")
                .contains("offloaded to the blob store: 1 groups")
                .contains("JSON written to " + json);
        String document = Files.readString(json);
        assertThat(document)
                .contains("\"regions\" : 4202")
                .contains("\"largest_restart_tasks\" : 2103")
                .contains("\"workers\" : 200");
    }

    @Test
    void reportOptions_withoutReport_orWithFail_areUsageErrors() throws Exception {
        String wordCount = plan("word-count");

        assertThat(
                        InspectCommandTest.inspect("--job", wordCount, "--workers", "5")
                                .isUsageError()
                                .err())
                .contains("--workers and --json go with --report");
        assertThat(
                        InspectCommandTest.inspect(
                                        "--job", wordCount, "--report", "--fail", "Keyed Reduce#0")
                                .isUsageError()
                                .err())
                .contains("--fail and --report are separate questions");
        assertThat(
                        InspectCommandTest.inspect("--job", wordCount, "--report", "--workers", "0")
                                .isUsageError()
                                .err())
                .contains("--workers must be in [1, 1048576], was 0");
    }

    @Test
    void simulateAndRun_takeAFlinkPlan() throws Exception {
        String join = plan("two-input-join");

        CliRun simulated = CliRun.of("simulate", "--job", join, "--mode", "blocking").succeeded();
        assertThat(simulated.out()).isNotBlank();

        CliRun ran =
                CliRun.of(
                                "run",
                                "--job",
                                join,
                                "--records",
                                "200",
                                "--workers",
                                "2",
                                "--slots",
                                "4",
                                "--progress",
                                "never",
                                "--dir",
                                dir.toString())
                        .succeeded();
        assertThat(ran.out()).contains("FINISHED");
    }
}
