package io.railyard.benchmarks.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The arithmetic and message helpers of {@link JobFile}, and its sources' {@code
 * records_per_subtask} and {@code skew}.
 */
class JobFileTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 9, 10, 11, 12, 99, 100, 101, 999, 1000, 12_345, 1_000_000})
    void taskNameChars_anyParallelism_equalsTheNaiveSum(int parallelism) {
        long naive = 0;
        for (int subtask = 0; subtask < parallelism; subtask++) {
            naive += ("vertex#" + subtask).length();
        }

        assertThat(JobFile.taskNameChars("vertex", parallelism)).isEqualTo(naive);
    }

    @Test
    void taskNameChars_maxParallelismAndLongName_doesNotOverflow() {
        assertThat(JobFile.taskNameChars("n".repeat(1 << 20), 1 << 24))
                .isEqualTo(
                        (1L << 24) * ((1 << 20) + 1)
                                + 10L
                                + 90 * 2
                                + 900 * 3
                                + 9_000 * 4
                                + 90_000 * 5
                                + 900_000 * 6
                                + 9_000_000 * 7
                                + ((1 << 24) - 10_000_000L) * 8);
    }

    @Test
    void sample_manyNames_showsTenAndTheCount() {
        assertThat(JobFile.sample(List.of("a", "b"))).isEqualTo("['a', 'b']");
        assertThat(JobFile.sample(List.of())).isEqualTo("[]");
        List<String> twelve = List.of("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11");
        assertThat(JobFile.sample(twelve))
                .isEqualTo("['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ... (12 in all)]");
    }

    /** {@code vertices} then an edge from the first to the second; single quotes for double. */
    private static byte[] job(String source, String target) {
        return ("{'vertices':["
                        + source
                        + ","
                        + target
                        + "],'edges':[{'source':'src','target':'sink','pattern':'ALL_TO_ALL',"
                        + "'type':'BLOCKING'}]}")
                .replace('\'', '"')
                .getBytes(StandardCharsets.UTF_8);
    }

    private static final String SINK = "{'name':'sink','parallelism':2}";

    private static String src(String extra) {
        return "{'name':'src','parallelism':4" + extra + "}";
    }

    @Test
    void sourceRecordsAndSkew_areRead_andOnlyWhereGiven() throws Exception {
        JobFile.Contents contents =
                JobFile.parseContents(
                        job(
                                src(
                                        ",'records_per_subtask':300,"
                                                + "'skew':{'hot_subtasks':1,'factor':2.5}"),
                                SINK));

        assertThat(contents.graph().numJobVertices()).isEqualTo(2);
        assertThat(contents.sources()).hasSize(1);
        JobFileSource source = contents.sources().get(0);
        assertThat(source.vertex()).isZero();
        assertThat(source.name()).isEqualTo("src");
        assertThat(source.recordsPerSubtask()).isEqualTo(300L);
        assertThat(source.perSubtask(7)).isEqualTo(300);
        JobFileSource.Skew skew = java.util.Objects.requireNonNull(source.skew());
        assertThat(skew.hotSubtasks()).isEqualTo(1);
        assertThat(skew.hotRecords(300)).isEqualTo(750);
        assertThat(skew.hotRecords(301)).as("752.5, rounded half up").isEqualTo(753);
        assertThat(JobFile.parseContents(job(src(""), SINK)).sources()).isEmpty();
    }

    @Test
    void skewAlone_leavesTheRecordsToTheCommand_andTakesAnIntegerFactor() throws Exception {
        JobFileSource source =
                JobFile.parseContents(job(src(",'skew':{'factor':10,'hot_subtasks':4}"), SINK))
                        .sources()
                        .get(0);

        assertThat(source.recordsPerSubtask()).isNull();
        assertThat(source.perSubtask(1_000)).isEqualTo(1_000);
        assertThat(java.util.Objects.requireNonNull(source.skew()).hotRecords(1_000))
                .isEqualTo(10_000);
        assertThat(
                        java.util.Objects.requireNonNull(source.skew())
                                .hotRecords(JobFile.MAX_RECORDS_PER_SUBTASK))
                .as("no overflow at the limits")
                .isEqualTo(JobFile.MAX_RECORDS_PER_SUBTASK * 10);
    }

    static Stream<Arguments> badSourceFields() {
        return Stream.of(
                arguments(
                        src(",'records_per_subtask':-1"),
                        SINK,
                        "$.vertices[0].records_per_subtask: must be an integer in [0, 1000000000],"
                                + " or no field for the command's default, was -1"),
                arguments(
                        src(",'records_per_subtask':1000000001"),
                        SINK,
                        "$.vertices[0].records_per_subtask: must be an integer in [0, 1000000000]"),
                arguments(
                        src(",'records_per_subtask':null"),
                        SINK,
                        "$.vertices[0].records_per_subtask: missing or null; expected an integer"),
                arguments(
                        src(",'records_per_subtask':1.5"),
                        SINK,
                        "$.vertices[0].records_per_subtask: expected an integer, found a decimal"),
                arguments(
                        src(",'skew':{'hot_subtasks':5,'factor':2}"),
                        SINK,
                        "$.vertices[0].skew.hot_subtasks: must be an integer in [1, 4] (the"
                                + " parallelism of 'src'), was 5"),
                arguments(
                        src(",'skew':{'hot_subtasks':0,'factor':2}"),
                        SINK,
                        "$.vertices[0].skew.hot_subtasks: must be an integer in [1, 4]"),
                arguments(
                        src(",'skew':{'hot_subtasks':1,'factor':0.5}"),
                        SINK,
                        "$.vertices[0].skew.factor: must be a number in [1, 1000] (a hot subtask"
                                + " generates factor times the records of the others), was 0.5"),
                arguments(
                        src(",'skew':{'hot_subtasks':1,'factor':1e999999999}"),
                        SINK,
                        "$.vertices[0].skew.factor: must be a number in [1, 1000]"),
                arguments(
                        src(",'skew':{'hot_subtasks':1,'factor':'2'}"),
                        SINK,
                        "$.vertices[0].skew.factor: expected a number, found a string"),
                arguments(
                        src(",'skew':{'hot_subtasks':1}"),
                        SINK,
                        "$.vertices[0].skew.factor: missing or null; expected a number in"
                                + " [1, 1000]"),
                arguments(
                        src(",'skew':{'hot_subtasks':1,'factor':2,'hot':3}"),
                        SINK,
                        "$.vertices[0].skew.hot: unknown field 'hot'; allowed here: [factor,"
                                + " hot_subtasks]"),
                arguments(
                        src(",'skew':{'hot_subtasks':1,'factor':2,'factor':3}"),
                        SINK,
                        "duplicate field 'factor'"),
                arguments(
                        src(",'skew':null"),
                        SINK,
                        "$.vertices[0].skew: missing or null; expected an object"),
                arguments(
                        src(",'skew':[1,2]"),
                        SINK,
                        "$.vertices[0].skew: expected an object, found an array"),
                arguments(
                        src(",'records':5"),
                        SINK,
                        "$.vertices[0].records: unknown field 'records'; allowed here: [name,"
                                + " parallelism, records_per_subtask, skew]"),
                arguments(
                        src(""),
                        "{'name':'sink','parallelism':2,'skew':{'hot_subtasks':1,'factor':2}}",
                        "$.vertices[1].skew: vertex 'sink' has input edges; \"skew\" is allowed"
                                + " only on a source vertex (one without input edges)"),
                arguments(
                        src(""),
                        "{'name':'sink','parallelism':2,'records_per_subtask':5}",
                        "$.vertices[1].records_per_subtask: vertex 'sink' has input edges;"));
    }

    @ParameterizedTest
    @MethodSource("badSourceFields")
    void badSourceFields_nameThePathAndWhatIsAllowed(String source, String target, String error) {
        assertThatThrownBy(() -> JobFile.parseContents(job(source, target)))
                .isInstanceOf(JobFileException.class)
                .hasMessageContaining(error)
                .hasMessageNotContaining("\n");
        assertThatThrownBy(() -> JobFile.parse(job(source, target)))
                .as("inspect's reading fails alike")
                .hasMessageContaining(error);
    }

    @Test
    void keyWithEscapedLineBreaks_errorStaysOneLine() {
        // Found by JobFileFuzzTest: an unknown key "q\rtices" put a carriage return into the path
        // and the message, so `inspect` printed its one-line error on two lines.
        byte[] document =
                "{\"ver\\r\\ntices\\u2028\":[],\"edges\":[]}".getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> JobFile.parse(document))
                .isInstanceOf(JobFileException.class)
                .hasMessage(
                        "$['ver\\r\\ntices\\u2028']: unknown field 'ver\\r\\ntices\\u2028';"
                                + " allowed here: [edges, vertices]");
    }
}
