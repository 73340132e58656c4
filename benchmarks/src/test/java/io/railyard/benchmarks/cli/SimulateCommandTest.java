package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code simulate}: a small job under every mode, its JSON reproducible from the seed, the Gantt
 * and sweep charts, a sweep keeping every vertex's total work, bad options and a job that fails.
 */
class SimulateCommandTest {
    /** scan (4) -> join (3) -> agg (2), both edges BLOCKING in the file. */
    private static final String JOB =
            "{'vertices':[{'name':'scan','parallelism':4},{'name':'join','parallelism':3},"
                    + "{'name':'agg','parallelism':2}],'edges':["
                    + "{'source':'scan','target':'join','pattern':'ALL_TO_ALL','type':'BLOCKING'},"
                    + "{'source':'join','target':'agg','pattern':'ALL_TO_ALL','type':'BLOCKING'}]}";

    private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    @TempDir Path dir;

    private CliRun simulate(Path job, String... args) {
        List<String> all = new ArrayList<>(List.of("simulate", "--job", job.toString()));
        all.addAll(Arrays.asList(args));
        return CliRun.of(all.toArray(new String[0]));
    }

    /** A run of every mode with skewed, random work; its JSON. */
    private byte[] allModes(Path job, String seed, String name) throws IOException {
        Path json = dir.resolve(name);
        CliRun run =
                simulate(
                                job,
                                "--mode",
                                "all",
                                "--slots",
                                "6",
                                "--work",
                                "lognormal:10:0.8",
                                "--work",
                                "agg=uniform:1:3",
                                "--skew",
                                "join:1:8",
                                "--seed",
                                seed,
                                "--json",
                                json.toString())
                        .succeeded();
        assertThat(run.out())
                .startsWith("job " + job + " (3 vertices, 9 tasks); 6 slots; work")
                .contains("skew join:1:8.0")
                .contains("JSON written to " + json);
        List<String> table = run.out().lines().skip(1).limit(4).toList();
        assertThat(table.get(0)).startsWith("mode").contains("makespan").contains("vs blocking");
        assertThat(table.get(1)).startsWith("blocking ").contains(" base ").endsWith("finished");
        assertThat(table.get(2)).startsWith("hybrid-full ").containsPattern("[+-][0-9.]+ %");
        assertThat(table.get(3)).startsWith("hybrid-selective ");
        return Files.readAllBytes(json);
    }

    @Test
    void everyMode_isInTheJson_andTheJsonIsReproducibleFromTheSeed() throws Exception {
        Path job = InspectCommandTest.file(dir, JOB);

        byte[] first = allModes(job, "7", "first.json");
        byte[] again = allModes(job, "7", "again.json");
        byte[] otherSeed = allModes(job, "8", "other.json");

        assertThat(again).as("the same seed, the same bytes").isEqualTo(first);
        JsonNode doc = new ObjectMapper().readTree(first);
        assertThat(new ObjectMapper().readTree(otherSeed).get("modes"))
                .as("another seed draws other work")
                .isNotEqualTo(doc.get("modes"));
        assertThat(doc.get("slots").asInt()).isEqualTo(6);
        assertThat(doc.get("seed").asLong()).isEqualTo(7);
        assertThat(doc.get("modes").fieldNames())
                .toIterable()
                .containsExactly("blocking", "hybrid-full", "hybrid-selective");
        for (JsonNode mode : doc.get("modes")) {
            assertThat(mode.get("makespan").asDouble()).isPositive();
            assertThat(mode.get("state").asText()).isEqualTo("FINISHED");
            assertThat(mode.has("cause")).isFalse();
            assertThat(mode.get("slot_occupancy").asDouble()).isBetween(0.0, 1.0);
            assertThat(mode.get("partitions_released").asLong()).isPositive();
        }
        JsonNode modes = doc.get("modes");
        assertThat(modes.get("blocking").get("disk_fraction").asDouble())
                .isCloseTo(1, within(1e-9));
        assertThat(modes.get("blocking").get("waiting_in_slot").asDouble())
                .isCloseTo(0, within(1e-9));
    }

    @Test
    void theDefaultSlots_areTheLargestParallelism_andWxSMultiplies() throws Exception {
        Path job = InspectCommandTest.file(dir, JOB);
        Path json = dir.resolve("w.json");

        String defaults = simulate(job, "--mode", "blocking").succeeded().out();
        simulate(job, "--mode", "as-declared", "--slots", "2x3", "--json", json.toString())
                .succeeded();

        assertThat(defaults).contains("(3 vertices, 9 tasks); 4 slots;");
        assertThat(defaults.lines().skip(2).findFirst().orElseThrow()).startsWith("blocking ");
        JsonNode doc = new ObjectMapper().readTree(json.toFile());
        assertThat(doc.get("slots").asInt()).isEqualTo(6);
        assertThat(doc.get("workers").asInt()).isEqualTo(2);
        assertThat(doc.get("slots_per_worker").asInt()).isEqualTo(3);
        assertThat(doc.get("modes").fieldNames()).toIterable().containsExactly("as-declared");
    }

    @Test
    void chart_isAPngWithAPanelPerMode() throws Exception {
        Path job = InspectCommandTest.file(dir, JOB);
        String[] common = {"--slots", "5", "--skew", "join:1:4", "--fail-rate", "0.1"};

        CliRun all = simulate(job, concat(common, "--chart", dir.resolve("all").toString()));
        CliRun one =
                simulate(
                        job,
                        concat(common, "--mode", "hybrid-full", "--chart", dir.resolve("one.png")));

        assertThat(all.succeeded().out()).contains("chart written to " + dir.resolve("all.png"));
        assertThat(one.succeeded().out()).contains("chart written to " + dir.resolve("one.png"));
        BufferedImage three = png(dir.resolve("all.png"));
        BufferedImage single = png(dir.resolve("one.png"));
        assertThat(three.getWidth()).isEqualTo(single.getWidth()).isPositive();
        // three panels and the legend against one panel and the same legend
        assertThat(three.getHeight()).isGreaterThan(2 * single.getHeight());
    }

    private static BufferedImage png(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        assertThat(Arrays.copyOf(bytes, PNG_MAGIC.length)).isEqualTo(PNG_MAGIC);
        BufferedImage image = ImageIO.read(file.toFile());
        assertThat(image).isNotNull();
        assertThat(image.getWidth()).isPositive();
        assertThat(image.getHeight()).isPositive();
        return image;
    }

    /**
     * src (2) -> sink (2), work 1 per task, 2 slots: at parallelism P each task has work 2/P.
     * Blocking: 4 at P = 1, 2 at P = 2 and 2 at P = 4 (4 tasks of 0.5 per stage on 2 slots). Hybrid
     * at P = 1: the sink runs beside the source, following its data, so 2. One row and one JSON
     * element per P, a star at each mode's first shortest makespan.
     */
    @Test
    void sweep_keepsEachVertexsTotalWork_andPrintsOneRowPerParallelism() throws Exception {
        Path job =
                InspectCommandTest.file(
                        dir,
                        "{'vertices':[{'name':'src','parallelism':2},{'name':'sink','parallelism':2}],"
                                + "'edges':[{'source':'src','target':'sink','pattern':'ALL_TO_ALL',"
                                + "'type':'BLOCKING'}]}");
        Path json = dir.resolve("sweep.json");
        Path chart = dir.resolve("sweep.png");

        CliRun run =
                simulate(
                                job,
                                "--slots",
                                "2",
                                "--parallelism",
                                "1,2,4",
                                "--json",
                                json.toString(),
                                "--chart",
                                chart.toString())
                        .succeeded();

        List<String> lines = run.out().lines().toList();
        assertThat(lines.get(1).strip().split(" +"))
                .containsExactly("parallelism", "blocking", "hybrid-full", "hybrid-selective");
        assertThat(lines.get(2).strip().split(" +")).containsExactly("1", "4.0", "2.0*", "2.0*");
        assertThat(lines.get(3).strip().split(" +")).containsExactly("2", "2.0*", "2.0", "2.0");
        assertThat(lines.get(4).strip().split(" +")).containsExactly("4", "2.0", "2.0", "2.0");
        assertThat(lines.get(5)).startsWith("makespan in work units; * the shortest");
        JsonNode sweep = new ObjectMapper().readTree(json.toFile()).get("sweep");
        assertThat(sweep).hasSize(3);
        double[] expected = {4, 2, 2};
        for (int i = 0; i < 3; i++) {
            assertThat(sweep.get(i).get("parallelism").asInt()).isEqualTo(1 << i);
            assertThat(sweep.get(i).get("modes")).hasSize(3);
            assertThat(sweep.get(i).get("modes").get("blocking").get("makespan").asDouble())
                    .isCloseTo(expected[i], within(1e-9));
            assertThat(sweep.get(i).get("modes").get("hybrid-full").get("makespan").asDouble())
                    .isCloseTo(2, within(1e-9));
        }
        png(chart);
    }

    @Test
    void badOptions_areOneUsageLine_namingTheOption_andWriteNothing() throws Exception {
        Path job = InspectCommandTest.file(dir, JOB);
        String[][] cases = {
            {"--mode", "eager", "simulate: --mode must be one of blocking, hybrid-full,"},
            {"--skew", "join:1:0", "simulate: --skew: 'join:1:0': the skew factor must be in"},
            {"--skew", "nope:1:2", "simulate: --skew nope:1:2.0: vertex 'nope' is not in the job"},
            {
                "--skew",
                "join:4:2",
                "simulate: --skew join:4:2.0: 4 hot subtasks, but vertex 'join'"
            },
            {"--slots", "0", "simulate: --slots 0: slots must be in [1, 16777216], was 0"},
            {"--slots", "2x0", "simulate: --slots 2x0: slots per worker must be in [1, 16777216]"},
            {"--slots", "two", "simulate: --slots must be S (slots in all) or WxS"},
            {"--fail-rate", "2", "simulate: --fail-rate must be in [0, 1], was 2.0"},
            {"--task-overhead", "-1", "simulate: --task-overhead must be in [0, 1e9], was -1.0"},
            {"--max-restarts", "0", "simulate: --max-restarts must be in [1, 1000000], was 0"},
            {"--work", "lognormal:1", "simulate: --work: 'lognormal:1' is not a work distribution"},
            {"--work", "nope=constant:2", "simulate: --work nope=...: vertex 'nope' is not in"},
            {"--parallelism", "0", "simulate: --parallelism must be in [1, 1000000], was 0"},
            {"--parallelism", "2,1000001", "simulate: --parallelism must be in [1, 1000000]"},
        };
        Path json = dir.resolve("never.json");
        for (String[] bad : cases) {
            CliRun run = simulate(job, bad[0], bad[1], "--json", json.toString()).isUsageError();

            assertThat(run.err()).as(bad[0] + " " + bad[1]).startsWith(bad[2]);
            assertThat(json).doesNotExist();
        }
        assertThat(simulate(job, "--parallelism", "2", "--skew", "join:3:2").isUsageError().err())
                .startsWith(
                        "simulate: --skew join:3:2.0: 3 hot subtasks, more than --parallelism 2");
        assertThat(simulate(job, "--json", dir.toString()).isUsageError().err())
                .startsWith("simulate: --json " + dir + ": cannot write there: it is a directory");
        assertThat(simulate(job, "--chart", dir.toString()).isUsageError().err())
                .startsWith("simulate: --chart " + dir + ": cannot write there: it is a directory");
        assertThat(simulate(dir.resolve("missing.json")).isUsageError().err())
                .startsWith("simulate: --job " + dir.resolve("missing.json"));
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).containsExactly(job);
        }
    }

    @Test
    void aJobThatFails_isInTheTableAndTheJson_thenOneLineAndExitOne() throws Exception {
        Path job = InspectCommandTest.file(dir, JOB);
        Path json = dir.resolve("failed.json");

        CliRun all =
                simulate(job, "--fail-rate", "1", "--max-restarts", "2", "--json", json.toString())
                        .isFailure();
        CliRun one =
                simulate(job, "--fail-rate", "1", "--max-restarts", "2", "--mode", "hybrid-full")
                        .isFailure();

        assertThat(all.err())
                .startsWith("simulate: the job failed in 3 runs; the first under blocking: task ")
                .contains("maxAttempts = 2");
        assertThat(all.out().lines().filter(line -> line.endsWith("FAILED"))).hasSize(3);
        assertThat(all.out()).contains("JSON written to " + json);
        JsonNode blocking = new ObjectMapper().readTree(json.toFile()).get("modes").get("blocking");
        assertThat(blocking.get("state").asText()).isEqualTo("FAILED");
        assertThat(blocking.get("cause").asText()).contains("maxAttempts = 2");
        assertThat(blocking.get("restarts").asInt()).isEqualTo(2);
        assertThat(one.err()).startsWith("simulate: the job failed under hybrid-full: task ");
    }

    private static String[] concat(String[] first, Object... more) {
        String[] all = Arrays.copyOf(first, first.length + more.length);
        for (int i = 0; i < more.length; i++) {
            all[first.length + i] = more[i].toString();
        }
        return all;
    }
}
