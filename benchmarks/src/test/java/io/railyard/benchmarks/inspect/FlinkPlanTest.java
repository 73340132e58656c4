package io.railyard.benchmarks.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.topology.JobGraph;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Flink plan reader ({@link FlinkPlan}) on hand-written documents of the three shapes Flink's
 * REST API serves, each rule of the mapping, and its errors: one line naming the JSON path, the
 * value and what is allowed. The plans Flink itself generates are in {@code FlinkPlanGoldenTest}.
 */
class FlinkPlanTest {
    /** A word count as {@code /jobs/:jobid/plan} serves it (the shape of JobPlanInfo). */
    private static final String WORD_COUNT =
            """
            {"plan":{"jid":"8a1f","name":"wordcount-batch","type":"BATCH","nodes":[
             {"id":"aa01","parallelism":4,"operator":"","operator_strategy":"",
              "description":"Source: words -&gt; Flat Map","optimizer_properties":{}},
             {"id":"bb02","parallelism":3,"operator":"","operator_strategy":"",
              "description":"Keyed Aggregation","optimizer_properties":{},
              "inputs":[{"num":0,"id":"aa01","ship_strategy":"HASH","exchange":"blocking",
                         "local_strategy":"","caching":""}]},
             {"id":"cc03","parallelism":6,"operator":"","operator_strategy":"",
              "description":"Sink: Print to Std. Out","optimizer_properties":{},
              "inputs":[{"num":0,"id":"bb02","ship_strategy":"REBALANCE","exchange":"blocking"}]}
            ]}}
            """;

    private static FlinkPlan.Result read(String json) throws JobFileException {
        return read(json, Map.of());
    }

    private static FlinkPlan.Result read(String json, Map<String, Integer> parallelism)
            throws JobFileException {
        return FlinkPlan.parse(json.getBytes(StandardCharsets.UTF_8), parallelism);
    }

    /** Each edge as "producer -> consumer PATTERN TYPE", in edge order. */
    private static List<String> edges(JobGraph graph) {
        List<String> edges = new ArrayList<>();
        for (int e = 0; e < graph.numEdges(); e++) {
            edges.add(
                    graph.vertexName(graph.edgeProducer(e))
                            + " -> "
                            + graph.vertexName(graph.edgeConsumer(e))
                            + " "
                            + graph.edgePattern(e)
                            + " "
                            + graph.edgeResultType(e));
        }
        return edges;
    }

    @Test
    void aPlanFromTheRestApi_readsIntoVerticesAndEdges_withoutWarnings() throws Exception {
        FlinkPlan.Result plan = read(WORD_COUNT);
        JobGraph graph = plan.graph();

        assertThat(graph.numJobVertices()).isEqualTo(3);
        assertThat(graph.vertexName(0)).isEqualTo("Source: words -> Flat Map");
        assertThat(graph.parallelism(0)).isEqualTo(4);
        assertThat(graph.parallelism(1)).isEqualTo(3);
        assertThat(graph.parallelism(2)).isEqualTo(6);
        assertThat(edges(graph))
                .containsExactly(
                        "Source: words -> Flat Map -> Keyed Aggregation ALL_TO_ALL BLOCKING",
                        "Keyed Aggregation -> Sink: Print to Std. Out ALL_TO_ALL BLOCKING");
        assertThat(plan.vertexIds()).containsExactly("aa01", "bb02", "cc03");
        assertThat(plan.warnings()).isEmpty();
    }

    @Test
    void aBarePlan_andAJobDetailsDocument_readAsThePlanInside() throws Exception {
        String bare = WORD_COUNT.strip();
        bare = bare.substring("{\"plan\":".length(), bare.length() - 1);
        String details =
                "{\"jid\":\"8a1f\",\"name\":\"wordcount-batch\",\"isStoppable\":false,"
                        + "\"state\":\"FINISHED\",\"vertices\":[{\"id\":\"aa01\",\"name\":\"x\","
                        + "\"maxParallelism\":128,\"parallelism\":4,\"metrics\":{\"read-bytes\":0},"
                        + "\"tasks\":{\"FINISHED\":4}}],\"status-counts\":{},\"plan\":"
                        + bare
                        + ",\"stream-graph\":{\"nodes\":[]}}";

        assertThat(edges(read(bare).graph())).isEqualTo(edges(read(WORD_COUNT).graph()));
        JobGraph fromDetails = read(details).graph();
        assertThat(edges(fromDetails)).isEqualTo(edges(read(WORD_COUNT).graph()));
        assertThat(fromDetails.maxParallelism(0)).hasValue(128);
    }

    @Test
    void shipStrategies_givePatterns_exchangesGiveTypes_unknownStrategyWarns() throws Exception {
        String[][] inputs = {
            {"FORWARD", "pipelined"},
            {"RESCALE", "pipelined_bounded"},
            {"BROADCAST", "hybrid_full"},
            {"GLOBAL", "hybrid_selective"},
            {"SHUFFLE", "blocking_persistent"},
            {"CUSTOM", "pipelined_approximate"},
            {"ZIGZAG", "blocking"}
        };
        StringBuilder json = new StringBuilder("{\"nodes\":[{\"id\":\"s\",\"parallelism\":2}");
        for (int i = 0; i < inputs.length; i++) {
            json.append(
                    String.format(
                            ",{\"id\":\"n%d\",\"parallelism\":2,\"description\":\"v%d\","
                                    + "\"inputs\":[{\"num\":0,\"id\":\"s\",\"ship_strategy\":"
                                    + "\"%s\",\"exchange\":\"%s\"}]}",
                            i, i, inputs[i][0], inputs[i][1]));
        }
        FlinkPlan.Result plan = read(json.append("]}").toString());

        assertThat(edges(plan.graph()))
                .containsExactly(
                        "s -> v0 POINTWISE PIPELINED",
                        "s -> v1 POINTWISE PIPELINED_BOUNDED",
                        "s -> v2 ALL_TO_ALL HYBRID_FULL",
                        "s -> v3 ALL_TO_ALL HYBRID_SELECTIVE",
                        "s -> v4 ALL_TO_ALL BLOCKING",
                        "s -> v5 ALL_TO_ALL PIPELINED",
                        "s -> v6 ALL_TO_ALL BLOCKING");
        assertThat(plan.warnings())
                .containsExactly(
                        "$.nodes[5].inputs[0].exchange: blocking_persistent (an input of 'v4')"
                                + " read as BLOCKING: its partitions outliving the job changes"
                                + " nothing within it",
                        "$.nodes[6].inputs[0].exchange: pipelined_approximate (an input of 'v5')"
                                + " read as PIPELINED: approximate local recovery is not modelled,"
                                + " a failure restarts its whole region",
                        "$.nodes[7].inputs[0].ship_strategy: 'ZIGZAG' (an input of 'v6') is not"
                                + " a ship strategy Railyard knows (FORWARD, RESCALE, HASH,"
                                + " REBALANCE, BROADCAST, GLOBAL, SHUFFLE, CUSTOM); read as"
                                + " ALL_TO_ALL");
    }

    @Test
    void vertexIds_followTheGraphsNumbering_forAPlanListingConsumersFirst() throws Exception {
        // Flink lists a job's sink first; the graph numbers its vertices its own way.
        FlinkPlan.Result plan =
                read(
                        "{\"nodes\":[{\"id\":\"sink-id\",\"parallelism\":1,\"description\":"
                                + "\"sink\",\"inputs\":[{\"id\":\"map-id\",\"ship_strategy\":"
                                + "\"FORWARD\",\"exchange\":\"pipelined\"}]},{\"id\":\"map-id\","
                                + "\"parallelism\":1,\"description\":\"map\",\"inputs\":[{\"id\":"
                                + "\"src-id\",\"ship_strategy\":\"HASH\",\"exchange\":\"blocking\"}]},"
                                + "{\"id\":\"src-id\",\"parallelism\":1,\"description\":\"src\"}]}");
        JobGraph graph = plan.graph();

        for (String name : List.of("sink", "map", "src")) {
            assertThat(plan.vertexIds().get(graph.findVertex(name).orElseThrow()))
                    .isEqualTo(name + "-id");
        }
    }

    @Test
    void twoInputsFromOneProducer_areTwoDatasets() throws Exception {
        FlinkPlan.Result plan =
                read(
                        "{\"nodes\":[{\"id\":\"a\",\"parallelism\":2,\"description\":\"a\"},"
                                + "{\"id\":\"b\",\"parallelism\":2,\"description\":\"self-join\","
                                + "\"inputs\":[{\"num\":0,\"id\":\"a\",\"ship_strategy\":\"HASH\","
                                + "\"exchange\":\"blocking\"},{\"num\":1,\"id\":\"a\","
                                + "\"ship_strategy\":\"HASH\",\"exchange\":\"blocking\"}]}]}");

        assertThat(plan.graph().numEdges()).isEqualTo(2);
        assertThat(plan.graph().numDataSets()).isEqualTo(2);
    }

    @Test
    void names_decodeHtml_joinTheChain_replaceHash_areBounded() {
        assertThat(
                        FlinkPlan.nameOf(
                                "Source: A<br/>+- Flat Map<br/>   :- Calc(a &amp; b)<br/>", "id"))
                .isEqualTo("Source: A -> Flat Map -> Calc(a & b)");
        assertThat(FlinkPlan.nameOf("a&#92;b &#x41; &lt;x&gt; &bogus; &#xZZ;", "id"))
                .isEqualTo("a\\b A <x> &bogus; &_xZZ;"); // '#' too
        assertThat(FlinkPlan.nameOf("Sink #1", "id")).isEqualTo("Sink _1");
        assertThat(FlinkPlan.nameOf("  <br/>  ", "c0ffee")).isEqualTo("c0ffee");
        assertThat(FlinkPlan.nameOf(null, "c0ffee")).isEqualTo("c0ffee");
        String longName = FlinkPlan.nameOf("x".repeat(200), "id");
        assertThat(longName).hasSize(FlinkPlan.MAX_NAME_CHARS).endsWith("…");
    }

    @Test
    void twoNodesWithOneDescription_getTheirIdsInTheName() throws Exception {
        FlinkPlan.Result plan =
                read(
                        "{\"nodes\":[{\"id\":\"0123456789ab\",\"parallelism\":1,\"description\":"
                                + "\"Map\"},{\"id\":\"fedcba987654\",\"parallelism\":1,"
                                + "\"description\":\"Map\"}]}");

        assertThat(plan.graph().vertexName(0)).isEqualTo("Map");
        assertThat(plan.graph().vertexName(1)).isEqualTo("Map [fedcba98]");
    }

    @Test
    void anUndecidedParallelism_needsAnOverrideOrTheMaxParallelismOfTheDetails() throws Exception {
        String plan =
                "{\"nodes\":[{\"id\":\"a1\",\"parallelism\":4,\"description\":\"src\"},"
                        + "{\"id\":\"b2\",\"parallelism\":-1,\"description\":\"agg\",\"inputs\":"
                        + "[{\"num\":0,\"id\":\"a1\",\"ship_strategy\":\"HASH\","
                        + "\"exchange\":\"blocking\"}]}]}";

        assertThatThrownBy(() -> read(plan))
                .isInstanceOf(JobFileException.class)
                .hasMessage(
                        "$.nodes[1].parallelism: -1: the parallelism of vertex 'agg' is decided"
                                + " when the job runs (adaptive batch scheduler); give"
                                + " --vertex-parallelism 'agg=P', or read the /jobs/:jobid"
                                + " document, whose maxParallelism is then used");
        assertThat(read(plan, Map.of("agg", 7)).graph().parallelism(1)).isEqualTo(7);
        assertThat(read(plan, Map.of("b2", 9)).graph().parallelism(1)).isEqualTo(9);
        assertThat(read(plan, Map.of("src", 20_000, "agg", 5)).graph().parallelism(0))
                .as("any vertex may be set")
                .isEqualTo(20_000);

        String details =
                "{\"vertices\":[{\"id\":\"b2\",\"maxParallelism\":32}],\"plan\":" + plan + "}";
        FlinkPlan.Result defaulted = read(details);
        assertThat(defaulted.graph().parallelism(1)).isEqualTo(32);
        assertThat(defaulted.warnings())
                .containsExactly(
                        "vertex 'agg': parallelism decided at run time (-1 in the plan); using"
                                + " its maxParallelism 32 — give --vertex-parallelism 'agg=P' for"
                                + " another");
        assertThatThrownBy(() -> read(details, Map.of("agg", 33)))
                .hasMessageStartingWith(
                        "$.plan.nodes[1].parallelism: vertex 'agg' at parallelism 33 is above"
                                + " its maxParallelism 32");
    }

    @Test
    void badDocuments_failInOneLine_namingThePathTheValueAndWhatIsAllowed() {
        String source = "{\"id\":\"a\",\"parallelism\":2,\"description\":\"a\"}";
        String[][] cases = {
            {"[]", "$: "},
            {"{\"jid\":\"x\"}", "$.nodes: missing or null; expected an array of plan nodes"},
            {"{\"plan\":{}}", "$.plan.nodes: missing or null; expected an array of plan nodes"},
            {"{\"plan\":{\"nodes\":[]},\"nodes\":[]}", "$: has both \"plan\" and \"nodes\""},
            {
                "{\"nodes\":[" + source + "," + source + "]}",
                "$.nodes[1].id: duplicate vertex id 'a'"
            },
            {
                "{\"nodes\":[{\"id\":\"b\",\"parallelism\":1,\"inputs\":[{\"id\":\"zz\","
                        + "\"ship_strategy\":\"HASH\",\"exchange\":\"blocking\"}]}]}",
                "$.nodes[0].inputs[0].id: unknown vertex id 'zz'; the plan's ids: ['b']"
            },
            {
                "{\"nodes\":["
                        + source
                        + ",{\"id\":\"b\",\"parallelism\":1,\"inputs\":[{\"id\":"
                        + "\"a\",\"ship_strategy\":\"HASH\",\"exchange\":\"speedy\"}]}]}",
                "$.nodes[1].inputs[0].exchange: must be one of blocking, pipelined,"
                        + " pipelined_bounded, hybrid_full, hybrid_selective, blocking_persistent,"
                        + " pipelined_approximate, was 'speedy'"
            },
            {
                "{\"nodes\":[{\"id\":\"a\",\"parallelism\":0}]}",
                "$.nodes[0].parallelism: must be an integer in [1, 16777216], or -1 (decided when"
                        + " the job runs), was 0"
            },
            {"{\"nodes\":[{\"id\":\"a\",\"parallelism\":\"4\"}]}", "$.nodes[0].parallelism: "},
            {
                "{\"nodes\":[{\"id\":\"a\",\"id\":\"b\",\"parallelism\":4}]}",
                "$.nodes[0].id: duplicate field 'id'"
            },
            {
                "{\"nodes\":[{\"id\":\"a\",\"parallelism\":1,\"description\":\"a\",\"inputs\":"
                        + "[{\"id\":\"b\",\"ship_strategy\":\"HASH\",\"exchange\":\"pipelined\"}]},"
                        + "{\"id\":\"b\",\"parallelism\":1,\"description\":\"b\",\"inputs\":"
                        + "[{\"id\":\"a\",\"ship_strategy\":\"HASH\",\"exchange\":\"pipelined\"}]}]}",
                "$.nodes: the job graph has a cycle"
            },
            {
                "{\"nodes\":[{\"id\":\"a\",\"parallelism\":16777216},"
                        + "{\"id\":\"b\",\"parallelism\":16777216}]}",
                "$.nodes[0].parallelism: 16777216 makes 16777216 tasks in total, above the limit"
            },
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> read(c[0]))
                    .as(c[0])
                    .isInstanceOf(JobFileException.class)
                    .hasMessageStartingWith(c[1])
                    .hasMessageNotContaining("\n");
        }
    }

    @Test
    void anOverrideOfAVertexThePlanLacks_isAnError_namingTheVertices() {
        assertThatThrownBy(() -> read(WORD_COUNT, Map.of("Reduce", 3)))
                .isInstanceOf(JobFileException.class)
                .hasMessage(
                        "--vertex-parallelism Reduce: the plan has no vertex of that name or id;"
                                + " vertices: ['Source: words -> Flat Map', 'Keyed Aggregation',"
                                + " 'Sink: Print to Std. Out']");
    }

    @Test
    void formats_areToldByTheTopLevelKeys() {
        assertThat(JobDocument.detect(bytes(WORD_COUNT))).isEqualTo(JobDocument.Format.FLINK_PLAN);
        assertThat(JobDocument.detect(bytes("{\"jid\":1,\"nodes\":[]}")))
                .isEqualTo(JobDocument.Format.FLINK_PLAN);
        assertThat(
                        JobDocument.detect(
                                bytes(
                                        "{\"vertices\":[{\"plan\":1}],\"edges\":[],\"x\":{\"nodes\":1}}")))
                .as("only top-level keys count")
                .isEqualTo(JobDocument.Format.RAILYARD);
        assertThat(JobDocument.detect(bytes("not json"))).isEqualTo(JobDocument.Format.RAILYARD);
    }

    @Test
    void aJobFileWithVertexParallelism_isAnError() {
        assertThatThrownBy(
                        () ->
                                JobDocument.parse(
                                        bytes("{\"vertices\":[],\"edges\":[]}"),
                                        JobDocument.Format.AUTO,
                                        Map.of("a", 2)))
                .isInstanceOf(JobFileException.class)
                .hasMessageStartingWith("--vertex-parallelism: applies to a Flink plan only");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
