package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code inspect} on good files: the exact output, restart sets, and bad options. */
class InspectCommandTest {
    private static final String DIAMOND_REGIONS =
            "{\"regions\":[[\"A#0\",\"A#1\",\"B#0\",\"B#1\",\"C#0\",\"C#1\"]]}";

    @TempDir Path dir;

    /** Runs {@code inspect args} through {@link Main#run} with captured output. */
    static CliRun inspect(String... args) {
        String[] full = new String[args.length + 1];
        full[0] = "inspect";
        System.arraycopy(args, 0, full, 1, args.length);
        return CliRun.of(full);
    }

    /** {@code text} with {@code '} for {@code "}, so that JSON reads well in Java. */
    static String json(String text) {
        return text.replace('\'', '"');
    }

    /** Writes {@code json(text)} to a file in {@code dir}. */
    static Path file(Path dir, String text) throws IOException {
        Path file = Files.createTempFile(dir, "job", ".json");
        Files.writeString(file, json(text), StandardCharsets.UTF_8);
        return file;
    }

    private Path job(String text) throws IOException {
        return file(dir, text);
    }

    private static Path resource(String name) throws URISyntaxException {
        URL url = Objects.requireNonNull(InspectCommandTest.class.getResource(name), name);
        return Path.of(url.toURI());
    }

    /** Two vertices, P = 3 each, one ALL_TO_ALL BLOCKING edge. */
    private Path blocking() throws IOException {
        return job(
                "{'vertices':[{'name':'source','parallelism':3},{'name':'sink','parallelism':3}],"
                        + "'edges':[{'source':'source','target':'sink','pattern':'ALL_TO_ALL',"
                        + "'type':'BLOCKING'}]}");
    }

    @Test
    void inspect_diamondOfDesign_isOneRegion() throws Exception {
        Path diamond = resource("/inspect/diamond.json");

        assertThat(inspect("--job", diamond.toString()).json()).isEqualTo(DIAMOND_REGIONS);
        String all = "[\"A#0\",\"A#1\",\"B#0\",\"B#1\",\"C#0\",\"C#1\"]";
        assertThat(inspect("--job", diamond.toString(), "--fail", "B#1").json())
                .isEqualTo("{\"regions\":[" + all + "],\"restart\":" + all + "}");
        assertThat(
                        inspect("--job", diamond.toString(), "--fail", "A#0", "--available", "none")
                                .json())
                .isEqualTo("{\"regions\":[" + all + "],\"restart\":" + all + "}");
    }

    @Test
    void inspect_blockingAllToAll_givesSingletonRegionsInStringOrder() throws Exception {
        assertThat(inspect("--job", blocking().toString()).json())
                .isEqualTo(
                        "{\"regions\":[[\"sink#0\"],[\"sink#1\"],[\"sink#2\"],"
                                + "[\"source#0\"],[\"source#1\"],[\"source#2\"]]}");
    }

    @Test
    void inspect_failedSource_restartsItAndEverySink() throws Exception {
        String job = blocking().toString();

        assertThat(inspect("--job", job, "--fail", "source#1").json())
                .endsWith(",\"restart\":[\"sink#0\",\"sink#1\",\"sink#2\",\"source#1\"]}");
        // The sinks restart, and with no partition available they need the other sources' output
        // again (FLIP-1 rule 2): everything restarts.
        assertThat(inspect("--job", job, "--fail", "source#1", "--available", "none").json())
                .endsWith(
                        ",\"restart\":[\"sink#0\",\"sink#1\",\"sink#2\","
                                + "\"source#0\",\"source#1\",\"source#2\"]}");
    }

    @Test
    void inspect_failedSink_restartsItAloneOrEverything() throws Exception {
        String job = blocking().toString();

        assertThat(inspect("--job", job, "--fail", "sink#1", "--available", "all").json())
                .endsWith(",\"restart\":[\"sink#1\"]}");
        assertThat(inspect("--job", job, "--fail", "sink#1", "--available", "none").json())
                .endsWith(
                        ",\"restart\":[\"sink#0\",\"sink#1\",\"sink#2\","
                                + "\"source#0\",\"source#1\",\"source#2\"]}");
    }

    @Test
    void inspect_pipelinedPointwiseChain_givesOneRegionPerLane() throws Exception {
        Path chain =
                job(
                        "{'vertices':[{'name':'a','parallelism':2},{'name':'b','parallelism':4},"
                                + "{'name':'c','parallelism':2}],'edges':["
                                + "{'source':'a','target':'b','pattern':'POINTWISE',"
                                + "'type':'PIPELINED'},"
                                + "{'source':'b','target':'c','pattern':'POINTWISE',"
                                + "'type':'PIPELINED_BOUNDED'}]}");
        String lane0 = "[\"a#0\",\"b#0\",\"b#1\",\"c#0\"]";
        String lane1 = "[\"a#1\",\"b#2\",\"b#3\",\"c#1\"]";

        assertThat(inspect("--job", chain.toString()).json())
                .isEqualTo("{\"regions\":[" + lane0 + "," + lane1 + "]}");
        for (String available : new String[] {"all", "none"}) {
            assertThat(
                            inspect(
                                            "--job",
                                            chain.toString(),
                                            "--fail",
                                            "b#3",
                                            "--available",
                                            available)
                                    .json())
                    .isEqualTo(
                            "{\"regions\":["
                                    + lane0
                                    + ","
                                    + lane1
                                    + "],\"restart\":"
                                    + lane1
                                    + "}");
        }
    }

    @Test
    void inspect_blockingPointwiseStage_restartsProducersOnlyWhenUnavailable() throws Exception {
        Path chain =
                job(
                        "{'vertices':[{'name':'a','parallelism':2},{'name':'b','parallelism':2},"
                                + "{'name':'c','parallelism':2}],'edges':["
                                + "{'source':'a','target':'b','pattern':'POINTWISE',"
                                + "'type':'PIPELINED'},"
                                + "{'source':'b','target':'c','pattern':'POINTWISE',"
                                + "'type':'BLOCKING'}]}");

        assertThat(inspect("--job", chain.toString(), "--fail", "c#1").json())
                .isEqualTo(
                        "{\"regions\":[[\"a#0\",\"b#0\"],[\"a#1\",\"b#1\"],[\"c#0\"],[\"c#1\"]],"
                                + "\"restart\":[\"c#1\"]}");
        assertThat(
                        inspect("--job", chain.toString(), "--fail", "c#1", "--available", "none")
                                .json())
                .endsWith(",\"restart\":[\"a#1\",\"b#1\",\"c#1\"]}");
    }

    @Test
    void inspect_subtaskIndexes_sortAsStringsNotNumbers() throws Exception {
        Path wide = job("{'vertices':[{'name':'v','parallelism':12}],'edges':[]}");
        List<String> expected = new ArrayList<>();
        for (String subtask :
                List.of("0", "1", "10", "11", "2", "3", "4", "5", "6", "7", "8", "9")) {
            expected.add("[\"v#" + subtask + "\"]");
        }

        assertThat(inspect("--job", wide.toString()).json())
                .isEqualTo("{\"regions\":[" + String.join(",", expected) + "]}");
    }

    @Test
    void inspect_sameJobInAnotherOrder_printsTheSameBytes() throws Exception {
        Path diamond = resource("/inspect/diamond.json");
        Path shuffled =
                job(
                        "{'edges':[{'type':'BLOCKING','pattern':'ALL_TO_ALL','target':'C',"
                                + "'source':'A'},"
                                + "{'target':'C','source':'B','pattern':'POINTWISE',"
                                + "'type':'PIPELINED'},"
                                + "{'source':'A','target':'B','pattern':'POINTWISE',"
                                + "'type':'PIPELINED'}],"
                                + "'vertices':[{'parallelism':2,'name':'C'},{'name':'B',"
                                + "'parallelism':2},{'name':'A','parallelism':2}]}");

        String first = inspect("--job", diamond.toString(), "--fail", "C#0").json();
        assertThat(inspect("--job", diamond.toString(), "--fail", "C#0").json()).isEqualTo(first);
        assertThat(inspect("--job", shuffled.toString(), "--fail", "C#0").json()).isEqualTo(first);
    }

    @Test
    void inspect_output_isValidJsonWithRestartOnlyWhenAsked() throws Exception {
        Path odd =
                job(
                        "{'vertices':[{'name':'q\\'uote\\\\ \\u00e9\\n','parallelism':1},"
                                + "{'name':'b','parallelism':1}],'edges':[{'source':"
                                + "'q\\'uote\\\\ \\u00e9\\n','target':'b','pattern':'ALL_TO_ALL',"
                                + "'type':'HYBRID_FULL'}]}");
        ObjectMapper mapper = new ObjectMapper();

        JsonNode plain = mapper.readTree(inspect("--job", odd.toString()).json());
        assertThat(plain.size()).isEqualTo(1);
        assertThat(plain.path("regions").isArray()).isTrue();

        JsonNode failed = mapper.readTree(inspect("--job", odd.toString(), "--fail", "b#0").json());
        assertThat(failed.path("restart").get(0).asText()).isEqualTo("b#0");
        List<String> tasks = new ArrayList<>();
        failed.path("regions").forEach(region -> region.forEach(t -> tasks.add(t.asText())));
        assertThat(tasks).containsExactlyInAnyOrder("q\"uote\\ \u00e9\n#0", "b#0");
    }

    @Test
    void inspect_availableWithoutFail_printsRegionsOnly() throws Exception {
        Path diamond = resource("/inspect/diamond.json");

        assertThat(inspect("--job", diamond.toString(), "--available", "none").json())
                .isEqualTo(DIAMOND_REGIONS);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"A", "A#", "#0", "A#-1", "A#x", "A#1.0", "A#01", "A#+1", "A#9999999999", ""})
    void inspect_malformedFail_isOneLineError(String value) throws Exception {
        Path diamond = resource("/inspect/diamond.json");

        CliRun run = inspect("--job", diamond.toString(), "--fail", value).isUsageError();

        assertThat(run.err())
                .startsWith("inspect: --fail: must be NAME#I")
                .contains("was '" + value + "'");
    }

    @Test
    void inspect_failOfUnknownVertex_isOneLineErrorListingTheVertices() throws Exception {
        Path diamond = resource("/inspect/diamond.json");

        assertThat(inspect("--job", diamond.toString(), "--fail", "D#0").isUsageError().err())
                .contains("--fail D#0: unknown job vertex 'D'; known: ['A', 'B', 'C']");
    }

    @Test
    void inspect_failOfSubtaskOutOfRange_isOneLineErrorWithTheRange() throws Exception {
        Path diamond = resource("/inspect/diamond.json");

        assertThat(inspect("--job", diamond.toString(), "--fail", "A#2").isUsageError().err())
                .contains("--fail A#2: job vertex 'A' has parallelism 2")
                .contains("[0, 1], was 2");
    }

    @ParameterizedTest
    @ValueSource(strings = {"some", "ALL", "None", ""})
    void inspect_badAvailable_isOneLineError(String value) throws Exception {
        Path diamond = resource("/inspect/diamond.json");

        assertThat(
                        inspect("--job", diamond.toString(), "--fail", "A#0", "--available", value)
                                .isUsageError()
                                .err())
                .contains("--available: must be 'all' or 'none', was '" + value + "'");
    }

    @Test
    void inspect_missingFile_isUsageError() {
        Path missing = dir.resolve("missing.json");

        assertThat(inspect("--job", missing.toString()).isUsageError().err())
                .contains("--job " + missing + ": no such file");
    }

    @Test
    void inspect_withoutJob_isAUsageError() {
        assertThat(inspect().exit()).isEqualTo(2);
        assertThat(inspect("--job", dir.toString(), "--unknown").exit()).isEqualTo(2);
    }
}
