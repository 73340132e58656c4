package io.railyard.benchmarks.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.railyard.topology.JobGraph;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Coverage-guided fuzzing (Jazzer) of the {@code inspect} job-file reader ({@link JobFile}, {@link
 * JobFileSchema}) — Reliability row 6: any document either reads into a job graph, which written
 * back as a job file reads into the same graph and sources, or fails with one {@link
 * JobFileException} whose place is a JSON path ({@code $…}) and whose message is one line; never
 * another exception.
 *
 * <p>The input is the document's bytes. A dictionary of the schema's field names and enum values
 * helps the fuzzer past the unknown-field check. Seeds in {@code JobFileFuzzTestInputs/}: the
 * example jobs, sources with records and skew, and near misses (a duplicate field, a coerced
 * number, an unknown vertex, trailing content).
 */
class JobFileFuzzTest {

    @FuzzTest(maxDuration = "10s")
    @DictionaryEntries({
        "\"vertices\"",
        "\"edges\"",
        "\"name\"",
        "\"parallelism\"",
        "\"records_per_subtask\"",
        "\"skew\"",
        "\"hot_subtasks\"",
        "\"factor\"",
        "\"source\"",
        "\"target\"",
        "\"pattern\"",
        "\"type\"",
        "\"POINTWISE\"",
        "\"ALL_TO_ALL\"",
        "\"PIPELINED\"",
        "\"PIPELINED_BOUNDED\"",
        "\"BLOCKING\"",
        "\"HYBRID_FULL\"",
        "\"HYBRID_SELECTIVE\""
    })
    void parse_anyDocument_aGraphThatRoundTripsOrOneJobFileException(FuzzedDataProvider data) {
        byte[] document = data.consumeRemainingAsBytes();
        JobFile.Contents contents;
        try {
            contents = JobFile.parseContents(document);
        } catch (JobFileException e) {
            assertThat(e.where()).startsWith("$");
            assertThat(e.getMessage()).doesNotContain("\n").doesNotContain("\r");
            return;
        }
        byte[] written = write(contents).getBytes(StandardCharsets.UTF_8);
        JobFile.Contents again;
        try {
            again = JobFile.parseContents(written);
        } catch (JobFileException e) {
            throw new AssertionError("the graph written back does not read: " + e.getMessage(), e);
        }
        assertThat(describe(again.graph())).isEqualTo(describe(contents.graph()));
        assertThat(again.sources()).isEqualTo(contents.sources());
    }

    /** The graph and sources as a job file: vertices and edges in id order. */
    private static String write(JobFile.Contents contents) {
        JobGraph graph = contents.graph();
        StringBuilder json = new StringBuilder("{\"vertices\":[");
        for (int v = 0; v < graph.numJobVertices(); v++) {
            json.append(v == 0 ? "{" : ",{").append("\"name\":");
            quote(json, graph.vertexName(v))
                    .append(",\"parallelism\":")
                    .append(graph.parallelism(v));
            for (JobFileSource source : contents.sources()) {
                if (source.vertex() == v) {
                    if (source.recordsPerSubtask() != null) {
                        json.append(",\"records_per_subtask\":").append(source.recordsPerSubtask());
                    }
                    JobFileSource.Skew skew = source.skew();
                    if (skew != null) {
                        json.append(",\"skew\":{\"hot_subtasks\":")
                                .append(skew.hotSubtasks())
                                .append(",\"factor\":")
                                .append(skew.factor())
                                .append('}');
                    }
                }
            }
            json.append('}');
        }
        json.append("],\"edges\":[");
        for (int e = 0; e < graph.numEdges(); e++) {
            json.append(e == 0 ? "{" : ",{").append("\"source\":");
            quote(json, graph.vertexName(graph.edgeProducer(e))).append(",\"target\":");
            quote(json, graph.vertexName(graph.edgeConsumer(e)))
                    .append(",\"pattern\":\"")
                    .append(graph.edgePattern(e))
                    .append("\",\"type\":\"")
                    .append(graph.edgeResultType(e))
                    .append("\"}");
        }
        return json.append("]}").toString();
    }

    /** {@code text} as a JSON string, everything outside printable ASCII escaped. */
    private static StringBuilder quote(StringBuilder json, String text) {
        json.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                json.append(c);
            }
        }
        return json.append('"');
    }

    /** Vertices (name, parallelism) and edges (producer, consumer, pattern, type), in id order. */
    private static List<String> describe(JobGraph graph) {
        List<String> lines = new ArrayList<>();
        for (int v = 0; v < graph.numJobVertices(); v++) {
            lines.add("vertex " + graph.vertexName(v) + " x" + graph.parallelism(v));
        }
        for (int e = 0; e < graph.numEdges(); e++) {
            lines.add(
                    "edge "
                            + graph.edgeProducer(e)
                            + " -> "
                            + graph.edgeConsumer(e)
                            + " "
                            + graph.edgePattern(e)
                            + " "
                            + graph.edgeResultType(e));
        }
        return lines;
    }
}
