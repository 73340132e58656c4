package io.railyard.benchmarks.inspect;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectReader;
import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.JobGraphBuilder;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the job graph of a plan Flink publishes — {@code JsonPlanGenerator}'s JSON, served by the
 * REST API at {@code /jobs/:jobid/plan} ({@code {"plan": …}}), inside {@code /jobs/:jobid}, and at
 * {@code /jars/:jarid/plan} — into a Railyard {@link JobGraph}, with Jackson only (no Flink on the
 * path). Schema in {@link FlinkPlanSchema}.
 *
 * <h2>Mapping</h2>
 *
 * <ul>
 *   <li>Each node is a job vertex (a Flink job vertex: a chain of operators) with the node's {@code
 *       parallelism}. Its name comes from {@code description}: HTML entities decoded, its lines
 *       ({@code <br/>} breaks them; Flink writes a chain as a tree, one operator a line, {@code +-}
 *       before all but the first) without the tree marks, joined by {@code " -> "}, runs of white
 *       space as one space, {@code '#'} (kept for task names, {@code vertex#subtask}) as {@code
 *       '_'}, at most {@value #MAX_NAME_CHARS} characters (longer ones end in {@code …}); the node
 *       id if that leaves nothing; a name already taken gets the first 8 characters of its id in
 *       brackets ({@code "Map [0a448493]"}, then {@code "Map [0a448493-2]"}, …). {@link
 *       Result#vertexIds()} keeps every id.
 *   <li>A parallelism of {@code -1} is decided at run time (Flink's adaptive batch scheduler): it
 *       needs {@code --vertex-parallelism NAME=P}, or a {@code /jobs/:jobid} document's {@code
 *       maxParallelism} for the vertex, used with a warning. {@code --vertex-parallelism} may set
 *       any vertex (by name or id), to ask what the job costs at another scale; a vertex's {@code
 *       maxParallelism}, when known, bounds it.
 *   <li>Each input is an edge with a dataset of its own (the plan names the producer vertex, not
 *       the dataset, so two inputs from one producer are two datasets): the consumer is the node,
 *       the producer the input's {@code id}.
 *   <li>{@code exchange} is the result-partition type: {@code blocking}, {@code pipelined}, {@code
 *       pipelined_bounded}, {@code hybrid_full}, {@code hybrid_selective} as named; {@code
 *       blocking_persistent} as BLOCKING (its partitions outlive the job, which changes nothing
 *       within it) and {@code pipelined_approximate} as PIPELINED (approximate local recovery is
 *       not modelled: a failure restarts its whole region), each with a warning. Anything else is
 *       an error.
 *   <li>{@code ship_strategy} gives the distribution pattern, as each Flink partitioner's {@code
 *       isPointwise()} does: {@code FORWARD} and {@code RESCALE} pointwise; {@code HASH}, {@code
 *       REBALANCE}, {@code BROADCAST}, {@code GLOBAL}, {@code SHUFFLE} and {@code CUSTOM}
 *       all-to-all; anything else all-to-all with a warning.
 * </ul>
 *
 * <p>Errors name the JSON path, the value and what is allowed ({@link JobFileException}); the
 * limits are a job file's ({@link JobFile}), checked while binding. O(document + V + E).
 */
public final class FlinkPlan {
    /** Longest vertex name made from a description. */
    public static final int MAX_NAME_CHARS = 80;

    private static final ObjectReader READER =
            JobFile.strictMapper()
                    .readerFor(FlinkPlanSchema.Root.class)
                    .without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private static final Map<String, ResultPartitionType> EXCHANGES =
            Map.of(
                    "blocking", ResultPartitionType.BLOCKING,
                    "pipelined", ResultPartitionType.PIPELINED,
                    "pipelined_bounded", ResultPartitionType.PIPELINED_BOUNDED,
                    "hybrid_full", ResultPartitionType.HYBRID_FULL,
                    "hybrid_selective", ResultPartitionType.HYBRID_SELECTIVE,
                    "blocking_persistent", ResultPartitionType.BLOCKING,
                    "pipelined_approximate", ResultPartitionType.PIPELINED);

    /** The tree marks before an operator of a chain's description: {@code "| +- Map"}. */
    private static final Pattern TREE = Pattern.compile("^[\\s|]*(?:[+:]- )?");

    private static final Set<String> POINTWISE = Set.of("FORWARD", "RESCALE");
    private static final Set<String> ALL_TO_ALL =
            Set.of("HASH", "REBALANCE", "BROADCAST", "GLOBAL", "SHUFFLE", "CUSTOM");

    private FlinkPlan() {}

    /**
     * A plan read: its job graph, the Flink id of each job vertex, and what the reader had to
     * assume (one line each, for the user).
     *
     * @param graph the job graph
     * @param vertexIds the node id of job vertex {@code v} at index {@code v} (the graph numbers
     *     its vertices in an order of its own, not the plan's)
     * @param warnings each assumption the mapping made, in plan order
     */
    public record Result(JobGraph graph, List<String> vertexIds, List<String> warnings) {
        /** Copies the lists. */
        public Result {
            vertexIds = List.copyOf(vertexIds);
            warnings = List.copyOf(warnings);
        }
    }

    /**
     * Reads {@code document} (UTF-8 JSON, one of the three documents), with {@code parallelism}
     * (vertex name or node id → parallelism) overriding the plan's.
     *
     * @throws JobFileException naming the JSON path (or {@code --vertex-parallelism}), the value
     *     and what is allowed
     */
    public static Result parse(byte[] document, Map<String, Integer> parallelism)
            throws JobFileException {
        FlinkPlanSchema.Root root;
        try {
            root = READER.readValue(document);
        } catch (JsonMappingException e) {
            throw JobFileJsonErrors.describe(e);
        } catch (IOException e) {
            throw new JobFileException("$", JobFileJsonErrors.malformed(e));
        }
        root = JobFile.present(root, "$", "a Flink plan: an object with \"plan\" or \"nodes\"");
        if (root.hasPlan() && root.hasNodes()) {
            throw new JobFileException(
                    "$",
                    "has both \"plan\" and \"nodes\"; a Flink plan document has one: {\"plan\":"
                            + " {…}} (REST /jobs/:jobid/plan or /jobs/:jobid) or a bare plan with"
                            + " \"nodes\"");
        }
        String nodesPath = root.hasPlan() ? "$.plan.nodes" : "$.nodes";
        List<FlinkPlanSchema.@Nullable Node> nodes;
        if (root.hasPlan()) {
            FlinkPlanSchema.Plan plan =
                    JobFile.present(
                            root.plan(), "$.plan", "an object with \"nodes\" (a Flink plan)");
            nodes = JobFile.present(plan.nodes(), nodesPath, "an array of plan nodes");
        } else {
            nodes =
                    JobFile.present(
                            root.nodes(),
                            nodesPath,
                            "an array of plan nodes; a Flink plan is {\"plan\": {…}} or has"
                                    + " \"nodes\"");
        }
        return new Reading(nodesPath, maxParallelisms(root.vertices()), parallelism).read(nodes);
    }

    /** The {@code maxParallelism} of each vertex id a {@code /jobs/:jobid} document lists. */
    private static Map<String, Integer> maxParallelisms(
            @Nullable List<FlinkPlanSchema.@Nullable JobVertex> vertices) throws JobFileException {
        Map<String, Integer> max = new HashMap<>();
        if (vertices == null) {
            return max;
        }
        for (int i = 0; i < vertices.size(); i++) {
            FlinkPlanSchema.JobVertex vertex = vertices.get(i);
            if (vertex == null || vertex.id() == null || vertex.maxParallelism() == null) {
                continue; // an entry without them gives no default
            }
            BigInteger value = Objects.requireNonNull(vertex.maxParallelism());
            if (value.signum() <= 0
                    || value.compareTo(BigInteger.valueOf(JobGraph.MAX_PARALLELISM)) > 0) {
                throw new JobFileException(
                        "$.vertices[" + i + "].maxParallelism",
                        "must be an integer in [1, "
                                + JobGraph.MAX_PARALLELISM
                                + "], was "
                                + value);
            }
            max.put(Objects.requireNonNull(vertex.id()), value.intValueExact());
        }
        return max;
    }

    /** One read of a plan's nodes: the state the mapping builds up. */
    private static final class Reading {
        private final String nodesPath;
        private final Map<String, Integer> maxParallelism;
        private final Map<String, Integer> overrides;
        private final Set<String> overridesUsed = new LinkedHashSet<>();
        private final Map<String, Integer> indexById = new LinkedHashMap<>();
        private final List<String> names = new ArrayList<>();
        private final Set<String> taken = new LinkedHashSet<>();
        private final List<String> warnings = new ArrayList<>();
        private final JobGraphBuilder builder = JobGraph.builder();
        private long totalTasks;
        private long nameChars;

        Reading(
                String nodesPath,
                Map<String, Integer> maxParallelism,
                Map<String, Integer> overrides) {
            this.nodesPath = nodesPath;
            this.maxParallelism = maxParallelism;
            this.overrides = overrides;
        }

        Result read(List<FlinkPlanSchema.@Nullable Node> nodes) throws JobFileException {
            List<FlinkPlanSchema.Node> present = new ArrayList<>(nodes.size());
            for (int i = 0; i < nodes.size(); i++) {
                FlinkPlanSchema.Node node =
                        JobFile.present(
                                nodes.get(i),
                                nodesPath + "[" + i + "]",
                                "a plan node: an object with \"id\" and \"parallelism\"");
                addVertex(node, nodesPath + "[" + i + "]");
                present.add(node);
            }
            checkOverridesUsed();
            for (int i = 0; i < present.size(); i++) {
                connectInputs(present.get(i), i, nodesPath + "[" + i + "]");
            }
            JobGraph graph;
            try {
                graph = builder.build();
            } catch (IllegalArgumentException e) {
                throw new JobFileException(nodesPath, String.valueOf(e.getMessage()));
            }
            // The graph numbers its vertices in an order of its own: the ids follow it.
            String[] ids = new String[graph.numJobVertices()];
            int node = 0;
            for (String id : indexById.keySet()) {
                ids[graph.findVertex(names.get(node++)).orElseThrow()] = id;
            }
            return new Result(graph, Arrays.asList(ids), warnings);
        }

        private void addVertex(FlinkPlanSchema.Node node, String path) throws JobFileException {
            String id = JobFile.present(node.id(), path + ".id", "the vertex id, a string");
            if (id.isBlank()) {
                throw new JobFileException(
                        path + ".id", "must be a non-blank string, was \"" + id + "\"");
            }
            Integer earlier = indexById.putIfAbsent(id, indexById.size());
            if (earlier != null) {
                throw new JobFileException(
                        path + ".id",
                        String.format(
                                "duplicate vertex id '%s': node %d has it too; every node of a"
                                        + " plan has its own id",
                                id, earlier));
            }
            String name = uniqueName(nameOf(node.description(), id), id);
            int parallelism = parallelism(node, id, name, path);
            Integer max = maxParallelism.get(id);
            if (max != null && parallelism > max) {
                throw new JobFileException(
                        path + ".parallelism",
                        String.format(
                                "vertex '%s' at parallelism %d is above its maxParallelism %d"
                                        + " (from the document's vertices); Flink cannot run it"
                                        + " so: give --vertex-parallelism '%s=P' with P <= %d",
                                name, parallelism, max, name, max));
            }
            checkSize(name, parallelism, path);
            builder.addVertex(name, parallelism, max == null ? 0 : max);
            names.add(name);
        }

        private int parallelism(FlinkPlanSchema.Node node, String id, String name, String path)
                throws JobFileException {
            Integer override = overrides.get(name);
            String key = name;
            if (override == null) {
                override = overrides.get(id);
                key = id;
            }
            if (override != null) {
                overridesUsed.add(key);
                return override;
            }
            String allowed =
                    "an integer in [1, "
                            + JobGraph.MAX_PARALLELISM
                            + "], or -1 (decided when the job runs)";
            BigInteger value = JobFile.present(node.parallelism(), path + ".parallelism", allowed);
            if (value.equals(BigInteger.valueOf(-1))) {
                Integer max = maxParallelism.get(id);
                if (max == null) {
                    throw new JobFileException(
                            path + ".parallelism",
                            String.format(
                                    "-1: the parallelism of vertex '%s' is decided when the job"
                                            + " runs (adaptive batch scheduler); give"
                                            + " --vertex-parallelism '%s=P', or read the"
                                            + " /jobs/:jobid document, whose maxParallelism is"
                                            + " then used",
                                    name, name));
                }
                warnings.add(
                        String.format(
                                "vertex '%s': parallelism decided at run time (-1 in the plan);"
                                        + " using its maxParallelism %d — give"
                                        + " --vertex-parallelism '%s=P' for another",
                                name, max, name));
                return max;
            }
            if (value.signum() <= 0
                    || value.compareTo(BigInteger.valueOf(JobGraph.MAX_PARALLELISM)) > 0) {
                throw new JobFileException(
                        path + ".parallelism", "must be " + allowed + ", was " + value);
            }
            return value.intValueExact();
        }

        private void checkSize(String name, int parallelism, String path) throws JobFileException {
            totalTasks += parallelism;
            if (totalTasks > JobFile.MAX_TASKS) {
                throw new JobFileException(
                        path + ".parallelism",
                        String.format(
                                "%d makes %d tasks in total, above the limit of %d tasks (inspect"
                                        + " lists every task); lower the parallelisms with"
                                        + " --vertex-parallelism",
                                parallelism, totalTasks, JobFile.MAX_TASKS));
            }
            nameChars += JobFile.taskNameChars(name, parallelism);
            if (nameChars > JobFile.MAX_TASK_NAME_CHARS) {
                throw new JobFileException(
                        path,
                        String.format(
                                "its %d task names bring all task names to %d characters, above"
                                        + " the limit of %d (inspect prints every task name);"
                                        + " lower the parallelisms with --vertex-parallelism",
                                parallelism, nameChars, JobFile.MAX_TASK_NAME_CHARS));
            }
        }

        private void checkOverridesUsed() throws JobFileException {
            for (String key : overrides.keySet()) {
                if (!overridesUsed.contains(key)) {
                    throw new JobFileException(
                            "--vertex-parallelism " + key,
                            "the plan has no vertex of that name or id; vertices: "
                                    + JobFile.sample(names));
                }
            }
        }

        private void connectInputs(FlinkPlanSchema.Node node, int consumer, String path)
                throws JobFileException {
            List<FlinkPlanSchema.@Nullable Input> inputs = node.inputs();
            if (inputs == null) {
                if (node.hasInputs()) {
                    throw new JobFileException(
                            path + ".inputs", "is null; expected an array of inputs, or no field");
                }
                return;
            }
            for (int k = 0; k < inputs.size(); k++) {
                String at = path + ".inputs[" + k + "]";
                FlinkPlanSchema.Input input =
                        JobFile.present(
                                inputs.get(k),
                                at,
                                "an input: an object with \"id\", \"ship_strategy\" and"
                                        + " \"exchange\"");
                String producerId =
                        JobFile.present(input.id(), at + ".id", "the producer's vertex id");
                Integer producer = indexById.get(producerId);
                if (producer == null) {
                    throw new JobFileException(
                            at + ".id",
                            "unknown vertex id '"
                                    + producerId
                                    + "'; the plan's ids: "
                                    + JobFile.sample(indexById.keySet()));
                }
                DistributionPattern pattern = pattern(input.shipStrategy(), at, consumer);
                ResultPartitionType type = type(input.exchange(), at, consumer);
                try {
                    builder.connect(names.get(producer), names.get(consumer), pattern, type);
                } catch (IllegalArgumentException e) {
                    throw new JobFileException(at, String.valueOf(e.getMessage()));
                }
            }
        }

        private DistributionPattern pattern(@Nullable String strategy, String at, int consumer)
                throws JobFileException {
            String value =
                    JobFile.present(
                            strategy,
                            at + ".ship_strategy",
                            "a Flink ship strategy such as HASH or FORWARD");
            if (POINTWISE.contains(value)) {
                return DistributionPattern.POINTWISE;
            }
            if (!ALL_TO_ALL.contains(value)) {
                warnings.add(
                        String.format(
                                "%s.ship_strategy: '%s' (an input of '%s') is not a ship strategy"
                                        + " Railyard knows (FORWARD, RESCALE, HASH, REBALANCE,"
                                        + " BROADCAST, GLOBAL, SHUFFLE, CUSTOM); read as"
                                        + " ALL_TO_ALL",
                                at, JobFileException.oneLine(value), names.get(consumer)));
            }
            return DistributionPattern.ALL_TO_ALL;
        }

        private ResultPartitionType type(@Nullable String exchange, String at, int consumer)
                throws JobFileException {
            String allowed =
                    "one of blocking, pipelined, pipelined_bounded, hybrid_full, hybrid_selective,"
                            + " blocking_persistent, pipelined_approximate";
            String value = JobFile.present(exchange, at + ".exchange", allowed);
            ResultPartitionType type = EXCHANGES.get(value);
            if (type == null) {
                throw new JobFileException(
                        at + ".exchange", "must be " + allowed + ", was '" + value + "'");
            }
            if (value.equals("blocking_persistent") || value.equals("pipelined_approximate")) {
                warnings.add(
                        String.format(
                                "%s.exchange: %s (an input of '%s') read as %s: %s",
                                at,
                                value,
                                names.get(consumer),
                                type,
                                type == ResultPartitionType.BLOCKING
                                        ? "its partitions outliving the job changes nothing"
                                                + " within it"
                                        : "approximate local recovery is not modelled, a failure"
                                                + " restarts its whole region"));
            }
            return type;
        }

        private String uniqueName(String name, String id) {
            int eight = id.offsetByCodePoints(0, Math.min(8, id.codePointCount(0, id.length())));
            String shortId = id.substring(0, eight).replace('#', '_');
            String unique = name;
            for (int k = 1; taken.contains(unique); k++) {
                unique = name + " [" + shortId + (k == 1 ? "" : "-" + k) + "]";
            }
            taken.add(unique);
            return unique;
        }
    }

    /**
     * A vertex name from a plan node's {@code description} (HTML-escaped by Flink): see the class
     * notes. The id if nothing is left. O(description).
     */
    static String nameOf(@Nullable String description, String id) {
        String text = decodeHtml(description == null ? "" : description);
        StringBuilder chain = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            String operator = TREE.matcher(line).replaceFirst("").strip().replaceAll("\\s+", " ");
            if (!operator.isEmpty()) {
                chain.append(chain.length() == 0 ? "" : " -> ").append(operator);
            }
        }
        String name = (chain.length() == 0 ? id : chain.toString()).replace('#', '_');
        if (name.codePointCount(0, name.length()) > MAX_NAME_CHARS) {
            name = name.substring(0, name.offsetByCodePoints(0, MAX_NAME_CHARS - 1)) + "…";
        }
        return name;
    }

    /**
     * {@code text} with the HTML Flink's plan generator escapes undone: named entities of HTML 4's
     * basic set and {@code nbsp}, numeric character references (decimal or hexadecimal: Flink
     * writes a backslash as one), {@code <br/>} as a line break. An unknown or malformed entity
     * stays as written. O(text).
     */
    static String decodeHtml(String text) {
        if (text.indexOf('&') < 0 && text.indexOf('<') < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '<' && text.regionMatches(true, i, "<br/>", 0, 5)) {
                out.append('\n');
                i += 5;
                continue;
            }
            int semicolon = c == '&' ? text.indexOf(';', i) : -1;
            if (semicolon > i && semicolon - i <= 10) {
                int decoded = entity(text.substring(i + 1, semicolon));
                if (decoded >= 0) {
                    out.appendCodePoint(decoded);
                    i = semicolon + 1;
                    continue;
                }
            }
            out.append(c);
            i++;
        }
        return out.toString();
    }

    /** The code point of entity {@code name} (between {@code &} and {@code ;}), or -1. */
    private static int entity(String name) {
        int named =
                switch (name) {
                    case "amp" -> '&';
                    case "lt" -> '<';
                    case "gt" -> '>';
                    case "quot" -> '"';
                    case "apos" -> '\'';
                    case "nbsp" -> ' ';
                    default -> -1;
                };
        if (named >= 0) {
            return named;
        }
        if (name.length() < 2 || name.charAt(0) != '#') {
            return -1;
        }
        boolean hex = name.charAt(1) == 'x' || name.charAt(1) == 'X';
        String digits = name.substring(hex ? 2 : 1);
        if (digits.isEmpty() || digits.length() > 6) {
            return -1;
        }
        try {
            int code = Integer.parseInt(digits, hex ? 16 : 10);
            return Character.isValidCodePoint(code) ? code : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
