package io.railyard.benchmarks.cli;

import static io.railyard.benchmarks.cli.InspectCommandTest.inspect;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.inspect.JobFile;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code inspect} on bad job files (ARCHITECTURE.md, reliability row 6): each is one line on
 * stderr, naming the file, the JSON path and the problem, and exit code 2. The large documents are
 * written on the fly, streaming, so the test itself stays small in memory.
 */
class InspectBadFileTest {
    private static final String AB =
            "'vertices':[{'name':'a','parallelism':2},{'name':'b','parallelism':2}]";
    private static final String EDGE =
            "{'source':'a','target':'b','pattern':'POINTWISE','type':'PIPELINED'}";
    private static final String THREE_EDGES = EDGE + "," + EDGE + "," + EDGE + ",";

    @TempDir Path dir;

    static Stream<Arguments> badFiles() {
        return Stream.of(
                // unknown fields
                bad(
                        "{'vertices':[],'edges':[],'extra':1}",
                        "$.extra",
                        "unknown field 'extra'; " + "allowed here: [edges, vertices]"),
                bad(
                        "{"
                                + AB
                                + ",'edges':["
                                + THREE_EDGES
                                + "{'source':'a','target':'b','pattern':'POINTWISE',"
                                + "'type':'PIPELINED','weight':3}]}",
                        "$.edges[3].weight",
                        "unknown field 'weight'; allowed here: [pattern,"
                                + " source, target, type]"),
                bad(
                        "{'vertices':[{'Name':'a','parallelism':1}],'edges':[]}",
                        "$.vertices[0].Name",
                        "unknown field 'Name'"),
                bad("{'vertices':[],'edges':[],'a b':1}", "$['a b']", "unknown field 'a b'"),
                // wrong types, no coercion
                bad(
                        "{'vertices':[{'name':'a','parallelism':'2'}],'edges':[]}",
                        "$.vertices[0].parallelism",
                        "expected an integer, found a string"),
                bad(
                        "{'vertices':[{'name':'a','parallelism':2.0}],'edges':[]}",
                        "$.vertices[0].parallelism",
                        "expected an integer, found a decimal number"),
                bad(
                        "{'vertices':[{'name':'a','parallelism':true}],'edges':[]}",
                        "$.vertices[0].parallelism",
                        "expected an integer, found a boolean"),
                bad(
                        "{'vertices':[{'name':5,'parallelism':1}],'edges':[]}",
                        "$.vertices[0].name",
                        "expected a string, found an integer"),
                bad(
                        "{'vertices':{},'edges':[]}",
                        "$.vertices",
                        "expected an array, found an" + " object"),
                bad(
                        "{'vertices':[[]],'edges':[]}",
                        "$.vertices[0]",
                        "expected an object, found" + " an array"),
                bad("[]", "$", "expected an object, found an array"),
                bad(
                        "{"
                                + AB
                                + ",'edges':[{'source':'a','target':'b','pattern':0,"
                                + "'type':'PIPELINED'}]}",
                        "$.edges[0].pattern",
                        "expected a string, one of [ALL_TO_ALL, POINTWISE],"
                                + " found the number 0"),
                // missing and null fields
                bad("null", "$", "missing or null"),
                bad("", "$", "the document is empty"),
                bad(
                        "{'vertices':[{'name':'a'}],'edges':[]}",
                        "$.vertices[0].parallelism",
                        "missing or null; expected an integer in [1, 16777216]"),
                bad(
                        "{'vertices':[{'name':null,'parallelism':1}],'edges':[]}",
                        "$.vertices[0].name",
                        "missing or null; expected a string"),
                bad("{'vertices':[]}", "$.edges", "missing or null"),
                bad("{'edges':[]}", "$.vertices", "missing or null"),
                bad("{'vertices':[null],'edges':[]}", "$.vertices[0]", "missing or null"),
                bad(
                        "{" + AB + ",'edges':[{'source':'a','target':'b','pattern':'POINTWISE'}]}",
                        "$.edges[0].type",
                        "missing or null; expected one of [PIPELINED,"
                                + " PIPELINED_BOUNDED, BLOCKING, HYBRID_FULL, HYBRID_SELECTIVE]"),
                // repeated names and keys
                bad(
                        "{'vertices':[{'name':'a','parallelism':1},{'name':'a','parallelism':2}],"
                                + "'edges':[]}",
                        "$.vertices[1].name",
                        "duplicate job vertex name 'a'"),
                bad(
                        "{'vertices':[{'name':'a','name':'b','parallelism':1}],'edges':[]}",
                        "$.vertices[0].name",
                        "duplicate field 'name'"),
                bad(
                        "{'vertices':[],'edges':[],'vertices':[]}",
                        "$.vertices",
                        "duplicate field 'vertices'"),
                // graph errors from the builder
                bad(
                        "{'vertices':[{'name':'a','parallelism':1},{'name':'b','parallelism':1},"
                                + "{'name':'c','parallelism':1}],'edges':["
                                + "{'source':'a','target':'b','pattern':'POINTWISE','type':'BLOCKING'},"
                                + "{'source':'b','target':'c','pattern':'POINTWISE','type':'BLOCKING'},"
                                + "{'source':'c','target':'a','pattern':'POINTWISE','type':'BLOCKING'}"
                                + "]}",
                        "$.edges",
                        "has a cycle"),
                bad(
                        "{"
                                + AB
                                + ",'edges':[{'source':'x','target':'b','pattern':'POINTWISE',"
                                + "'type':'PIPELINED'}]}",
                        "$.edges[0].source",
                        "unknown job vertex 'x'; known: ['a', 'b']"),
                bad(
                        "{"
                                + AB
                                + ",'edges':["
                                + EDGE
                                + ",{'source':'a','target':'y',"
                                + "'pattern':'POINTWISE','type':'PIPELINED'}]}",
                        "$.edges[1].target",
                        "unknown job vertex 'y'"),
                bad(
                        "{"
                                + AB
                                + ",'edges':[{'source':'a','target':'a','pattern':'POINTWISE',"
                                + "'type':'PIPELINED'}]}",
                        "$.edges[0]",
                        "self-loop"),
                bad(
                        "{'vertices':[{'name':'a#1','parallelism':1}],'edges':[]}",
                        "$.vertices[0].name",
                        "must not contain '#'"),
                bad(
                        "{'vertices':[{'name':' ','parallelism':1}],'edges':[]}",
                        "$.vertices[0].name",
                        "must be non-blank"),
                // parallelism out of range
                bad(
                        "{'vertices':[{'name':'a','parallelism':0}],'edges':[]}",
                        "$.vertices[0].parallelism",
                        "must be an integer in [1, 16777216], was 0"),
                bad(
                        "{'vertices':[{'name':'a','parallelism':-1}],'edges':[]}",
                        "$.vertices[0].parallelism",
                        "was -1"),
                bad(
                        "{'vertices':[{'name':'a','parallelism':16777217}],'edges':[]}",
                        "$.vertices[0].parallelism",
                        "was 16777217"),
                bad(
                        "{'vertices':[{'name':'a','parallelism':100000000000000000000000}],"
                                + "'edges':[]}",
                        "$.vertices[0].parallelism",
                        "was 100000000000000000000000"),
                bad(
                        "{'vertices':[{'name':'a','parallelism':600000},"
                                + "{'name':'b','parallelism':600000}],'edges':[]}",
                        "$.vertices[1].parallelism",
                        "600000 makes 1200000 tasks in total, above"
                                + " inspect's limit of 1000000 tasks"),
                bad(
                        "{'vertices':[{'name':'"
                                + "n".repeat(40)
                                + "','parallelism':1000000}],"
                                + "'edges':[]}",
                        "$.vertices[0]",
                        "its 1000000 task names bring all task names to 46888890"
                                + " characters, above inspect's limit of 33554432"),
                // unknown enum values
                bad(
                        "{"
                                + AB
                                + ",'edges':["
                                + THREE_EDGES
                                + "{'source':'a','target':'b','pattern':'FOO','type':'PIPELINED'}]}",
                        "$.edges[3].pattern",
                        "unknown value 'FOO'; allowed: [ALL_TO_ALL," + " POINTWISE]"),
                bad(
                        "{"
                                + AB
                                + ",'edges':[{'source':'a','target':'b','pattern':'POINTWISE',"
                                + "'type':'blocking'}]}",
                        "$.edges[0].type",
                        "unknown value 'blocking'; allowed: [PIPELINED,"),
                bad(
                        "{"
                                + AB
                                + ",'edges':[{'source':'a','target':'b','pattern':'',"
                                + "'type':'BLOCKING'}]}",
                        "$.edges[0].pattern",
                        "''"),
                // syntax
                bad(
                        "{'vertices':[{'name':'a' 'parallelism':1}],'edges':[]}",
                        "$.vertices[0]",
                        "malformed JSON: Unexpected character"),
                bad(
                        "{'vertices':[],'edges':[]} {}",
                        "$",
                        "unexpected content after the end of the root object at line 1, column"),
                bad("{'vertices':[],'edges':[]", "$", "malformed JSON: Unexpected end-of-input"),
                bad("{'vertices':[],'edges':[]}\n]", "$", "malformed JSON"));
    }

    private static Arguments bad(String json, String path, String problem) {
        return Arguments.of(json, path, problem);
    }

    @ParameterizedTest(name = "[{index}] {1}: {2}")
    @MethodSource("badFiles")
    void inspect_badFile_isOneLineErrorWithThePath(String json, String path, String problem)
            throws IOException {
        Path file = InspectCommandTest.file(dir, json);

        String err = inspect("--job", file.toString()).isUsageError().err();

        assertThat(err).startsWith("inspect: " + file + ": " + path + ": ").contains(problem);
    }

    @Test
    void inspect_controlCharactersInAName_stayOnOneLine() throws IOException {
        Path file =
                InspectCommandTest.file(
                        dir,
                        "{'vertices':[{'name':'x\\ny','parallelism':1},"
                                + "{'name':'x\\ny','parallelism':1}],'edges':[]}");

        assertThat(inspect("--job", file.toString()).isUsageError().err())
                .contains("$.vertices[1].name: duplicate job vertex name 'x\\ny'");
    }

    @Test
    void inspect_100MegabyteFile_isRejectedByTheDocumentLimit() throws IOException {
        Path file = dir.resolve("100mb.json");
        writeVertices(file, 2_500_000, "x".repeat(20));
        assertThat(Files.size(file)).isGreaterThan(100_000_000L);

        assertThat(inspect("--job", file.toString()).isUsageError().err())
                .contains(file + ": $: the document is " + Files.size(file) + " bytes")
                .contains("above inspect's limit of 16777216 bytes (16 MiB)");
    }

    @Test
    void inspect_tenMillionVertices_isRejectedByTheDocumentLimit() throws IOException {
        Path file = dir.resolve("1e7.json");
        writeVertices(file, 10_000_000, "");

        assertThat(inspect("--job", file.toString()).isUsageError().err())
                .contains(file + ": $: the document is")
                .contains("above inspect's limit of 16777216 bytes");
    }

    @Test
    void inspect_moreVerticesThanTheCountLimit_stopsAtTheFirstOneTooMany() throws IOException {
        Path file = dir.resolve("vertices.json");
        writeVertices(file, JobFile.MAX_VERTICES + 1, "");
        assertThat(Files.size(file)).isLessThan(JobFile.MAX_DOCUMENT_BYTES);

        assertThat(inspect("--job", file.toString()).isUsageError().err())
                .contains(
                        "$.vertices[100000]: more than 100000 job vertices, above inspect's limit"
                                + " of 100000 job vertices");
    }

    @Test
    void inspect_moreEdgesThanTheCountLimit_stopsAtTheFirstOneTooMany() throws IOException {
        Path file = dir.resolve("edges.json");
        try (Writer out = writer(file)) {
            out.write(
                    "{\"vertices\":[{\"name\":\"a\",\"parallelism\":1},"
                            + "{\"name\":\"b\",\"parallelism\":1}],\"edges\":[");
            String edge = InspectCommandTest.json(EDGE);
            for (int i = 0; i <= JobFile.MAX_EDGES; i++) {
                out.write(i == 0 ? edge : "," + edge);
            }
            out.write("]}");
        }

        assertThat(inspect("--job", file.toString()).isUsageError().err())
                .contains("$.edges[100000]: more than 100000 edges");
    }

    static Stream<Arguments> deepDocuments() {
        return Stream.of(
                Arguments.of("", "", "$", "expected an object, found an array"),
                Arguments.of("{\"vertices\":[", "]}", "$.vertices[0]", "expected an object"),
                Arguments.of(
                        "{\"vertices\":[{\"name\":",
                        "}]}",
                        "$.vertices[0].name",
                        "expected a string, found an array"),
                Arguments.of(
                        "{\"vertices\":[],\"edges\":[{\"pattern\":",
                        "}]}",
                        "$.edges[0].pattern",
                        "expected a string, one of [ALL_TO_ALL, POINTWISE], found an array"),
                Arguments.of("{\"deep\":", "}", "$.deep", "unknown field 'deep'"));
    }

    @ParameterizedTest(name = "[{index}] {2}")
    @MethodSource("deepDocuments")
    void inspect_nestingDepth10000_isRejectedAtTheFirstLevelTooDeep(
            String prefix, String suffix, String path, String problem) throws IOException {
        Path file = dir.resolve("deep.json");
        try (Writer out = writer(file)) {
            out.write(prefix);
            for (int i = 0; i < 10_000; i++) {
                out.write('[');
            }
            for (int i = 0; i < 10_000; i++) {
                out.write(']');
            }
            out.write(suffix);
        }

        assertThat(inspect("--job", file.toString()).isUsageError().err())
                .contains(": " + path + ": " + problem);
    }

    @Test
    void inspect_nestedObjects10000Deep_isAnUnknownField() throws IOException {
        Path file = dir.resolve("deep-objects.json");
        try (Writer out = writer(file)) {
            for (int i = 0; i < 10_000; i++) {
                out.write("{\"a\":");
            }
            out.write('1');
            for (int i = 0; i < 10_000; i++) {
                out.write('}');
            }
        }

        assertThat(inspect("--job", file.toString()).isUsageError().err())
                .contains(": $.a: unknown field 'a'");
    }

    @Test
    void inspect_directory_isUsageError() {
        assertThat(inspect("--job", dir.toString()).isUsageError().err())
                .contains("--job " + dir + ": cannot read the file");
    }

    private static Writer writer(Path file) throws IOException {
        return new BufferedWriter(
                new OutputStreamWriter(Files.newOutputStream(file), UTF_8), 1 << 16);
    }

    /** A valid document of {@code count} vertices of parallelism 1, streamed to {@code file}. */
    private static void writeVertices(Path file, int count, String namePadding) throws IOException {
        try (Writer out = writer(file)) {
            out.write("{\"vertices\":[");
            for (int i = 0; i < count; i++) {
                out.write(i == 0 ? "{\"name\":\"v" : ",{\"name\":\"v");
                out.write(namePadding);
                out.write(Integer.toString(i));
                out.write("\",\"parallelism\":1}");
            }
            out.write("],\"edges\":[]}");
        }
    }
}
