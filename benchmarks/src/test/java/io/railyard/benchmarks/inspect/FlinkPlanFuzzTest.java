package io.railyard.benchmarks.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.HashSet;
import java.util.Map;

/**
 * Coverage-guided fuzzing (Jazzer) of the Flink plan reader ({@link FlinkPlan}, {@link
 * FlinkPlanSchema}) — Reliability row 7: any document either reads into a job graph with one
 * distinct Flink id per job vertex and a one-line warning per assumption, or fails with one {@link
 * JobFileException} whose place is a JSON path ({@code $…}) and whose message is one line; never
 * another exception. Seeds in {@code FlinkPlanFuzzTestInputs/}: plans Flink generated (a word
 * count, a join, an adaptive job's {@code /jobs/:jobid} document) and near misses.
 */
class FlinkPlanFuzzTest {

    @FuzzTest(maxDuration = "10s")
    @DictionaryEntries({
        "\"plan\"",
        "\"nodes\"",
        "\"vertices\"",
        "\"id\"",
        "\"parallelism\"",
        "\"maxParallelism\"",
        "\"description\"",
        "\"inputs\"",
        "\"ship_strategy\"",
        "\"exchange\"",
        "\"HASH\"",
        "\"FORWARD\"",
        "\"RESCALE\"",
        "\"REBALANCE\"",
        "\"blocking\"",
        "\"pipelined_bounded\"",
        "\"hybrid_full\"",
        "\"hybrid_selective\"",
        "\"blocking_persistent\"",
        "-1",
        "&gt;",
        "<br/>"
    })
    void parse_anyDocument_aGraphOrOneJobFileException(FuzzedDataProvider data) {
        byte[] document = data.consumeRemainingAsBytes();
        FlinkPlan.Result plan;
        try {
            plan = FlinkPlan.parse(document, Map.of());
        } catch (JobFileException e) {
            assertThat(e.where()).startsWith("$");
            assertThat(e.getMessage()).doesNotContain("\n").doesNotContain("\r");
            return;
        }
        assertThat(plan.vertexIds()).hasSize(plan.graph().numJobVertices());
        assertThat(new HashSet<>(plan.vertexIds())).hasSize(plan.vertexIds().size());
        for (String warning : plan.warnings()) {
            assertThat(warning).doesNotContain("\n").doesNotContain("\r");
        }
        for (int v = 0; v < plan.graph().numJobVertices(); v++) {
            assertThat(plan.graph().vertexName(v))
                    .doesNotContain("#")
                    .isNotBlank()
                    .hasSizeLessThanOrEqualTo(FlinkPlan.MAX_NAME_CHARS + 20);
        }
    }
}
