package io.railyard.benchmarks.inspect;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.JobGraphBuilder;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Reads an {@code inspect} job file (schema in {@link JobFileSchema}) into a {@link JobGraph},
 * strictly: unknown or repeated fields, wrong JSON types, coercions ({@code "2"} for 2, {@code 2.0}
 * for 2, {@code 0} for an enum), missing or null fields, trailing content, and everything the
 * {@link JobGraphBuilder} rejects are {@link JobFileException}s naming the JSON path.
 *
 * <p>A source vertex's optional {@code records_per_subtask} (an integer in [0, {@value
 * #MAX_RECORDS_PER_SUBTASK}]) and {@code skew} ({@code {"hot_subtasks": K, "factor": F}}, K an
 * integer in [1, parallelism], F a number in [1, {@value #MAX_SKEW_FACTOR}], integer or decimal)
 * are checked as strictly, and only a vertex without input edges may have them: {@link
 * #readContents} returns them ({@link JobFileSource}); {@link #read}, for {@code inspect}, checks
 * them the same way and drops them, so a file is valid for both commands or for neither.
 *
 * <h2>Limits, and why memory stays bounded</h2>
 *
 * <ul>
 *   <li>{@link #MAX_DOCUMENT_BYTES} (16 MiB): a regular file is measured before it is opened, and
 *       any file is read with at most that many bytes plus one, so a 100 MB file or a 10^7-vertex
 *       document is rejected without being read.
 *   <li>Nesting: the schema has no free-form value, so binding stops at the first token of a value
 *       nested deeper than four levels (a type error there); Jackson's own {@code
 *       StreamReadConstraints} defaults (nesting, number and name lengths) stay in force behind it.
 *   <li>{@link #MAX_VERTICES}, {@link #MAX_EDGES}: checked while binding, at the first element too
 *       many ({@link JobFileSchema.BoundedList}). With the document limit they bound what is built:
 *       the document, at most 2 × 10^5 small bound objects, then the graph.
 *   <li>{@link #MAX_TASKS} (10^6) and {@link #MAX_TASK_NAME_CHARS} (2^25): the total parallelism
 *       and the length of all task names, because {@code inspect} names every task; a 40-byte file
 *       can otherwise ask for 2 × 2^24 tasks, and a 1 MB name at parallelism 10^6 for a terabyte of
 *       output. Together they keep the output under about 40 MiB; at the limits (10^6 tasks in 10^6
 *       regions, 28-character names) the whole command ran in a 160 MiB heap.
 * </ul>
 *
 * <p>Stateless; the reader is thread-safe.
 */
public final class JobFile {
    /** Largest job file read, in bytes (16 MiB). */
    public static final int MAX_DOCUMENT_BYTES = 16 << 20;

    /** Most job vertices in one file. */
    public static final int MAX_VERTICES = 100_000;

    /** Most edges in one file. */
    public static final int MAX_EDGES = 100_000;

    /** Most tasks (sum of parallelisms) in one file. */
    public static final int MAX_TASKS = 1_000_000;

    /** Most characters of all task names ({@code name#subtask}) together: 2^25, 32 Mi. */
    public static final long MAX_TASK_NAME_CHARS = 1L << 25;

    /**
     * Most records per subtask a job file may give a source vertex (10^9, as {@code --records}).
     */
    public static final long MAX_RECORDS_PER_SUBTASK = 1_000_000_000L;

    /** Largest skew factor: a hot subtask generates at most this many times the records. */
    public static final int MAX_SKEW_FACTOR = 1000;

    /**
     * A job file's contents: its graph and what it says about its source vertices' records.
     *
     * @param graph the job graph
     * @param sources the source vertices with {@code records_per_subtask} or {@code skew}, in file
     *     order; the others generate the command's default
     */
    public record Contents(JobGraph graph, List<JobFileSource> sources) {
        /** Copies {@code sources}. */
        public Contents {
            sources = List.copyOf(sources);
        }
    }

    private static final ObjectReader READER = strictMapper().readerFor(JobFileSchema.Job.class);

    private JobFile() {}

    /** Why reading failed, without the exception's class name. */
    private static String reason(IOException e) {
        if (e instanceof java.nio.file.FileSystemException fse && fse.getReason() != null) {
            return fse.getReason();
        }
        return e instanceof java.nio.file.AccessDeniedException
                ? "permission denied"
                : String.valueOf(e.getMessage());
    }

    /**
     * Reads and validates the job file {@code file}. O(file size + V log V + E).
     *
     * @throws JobFileException naming the file and the JSON path, or {@code --job} if the file
     *     cannot be read
     */
    public static JobGraph read(Path file) throws JobFileException {
        return readContents(file).graph();
    }

    /**
     * Reads and validates the job file {@code file}, with what it says about its sources' records.
     * O(file size + V log V + E).
     *
     * @throws JobFileException naming the file and the JSON path, or {@code --job} if the file
     *     cannot be read
     */
    public static Contents readContents(Path file) throws JobFileException {
        byte[] document = readBounded(file);
        try {
            return parseContents(document);
        } catch (JobFileException e) {
            throw e.in(file.toString());
        }
    }

    /** Validates {@code document} (UTF-8 JSON) and builds its job graph. */
    static JobGraph parse(byte[] document) throws JobFileException {
        return parseContents(document).graph();
    }

    /** Validates {@code document} (UTF-8 JSON): its job graph and its sources' records. */
    static Contents parseContents(byte[] document) throws JobFileException {
        JobFileSchema.Job job;
        try {
            job = READER.readValue(document);
        } catch (JsonMappingException e) {
            throw JobFileJsonErrors.describe(e);
        } catch (IOException e) {
            // Syntax errors at the root level, which databind does not wrap with a path.
            throw new JobFileException("$", JobFileJsonErrors.malformed(e));
        }
        return build(present(job, "$", "an object with \"vertices\" and \"edges\""));
    }

    static byte[] readBounded(Path file) throws JobFileException {
        try {
            if (Files.isRegularFile(file) && Files.size(file) > MAX_DOCUMENT_BYTES) {
                throw tooLong(file, "is " + Files.size(file) + " bytes");
            }
            byte[] document;
            try (InputStream in = Files.newInputStream(file)) {
                document = in.readNBytes(MAX_DOCUMENT_BYTES + 1);
            }
            if (document.length > MAX_DOCUMENT_BYTES) {
                throw tooLong(file, "has more than " + MAX_DOCUMENT_BYTES + " bytes");
            }
            return document;
        } catch (NoSuchFileException e) {
            throw new JobFileException("--job " + file, "no such file");
        } catch (IOException e) {
            throw new JobFileException("--job " + file, "cannot read the file: " + reason(e));
        }
    }

    private static JobFileException tooLong(Path file, String size) {
        return new JobFileException(
                file + ": $",
                String.format(
                        "the document %s, above inspect's limit of %d bytes (16 MiB); a job file"
                                + " needs about 40 bytes per vertex and 80 per edge",
                        size, MAX_DOCUMENT_BYTES));
    }

    private static Contents build(JobFileSchema.Job job) throws JobFileException {
        List<JobFileSchema.@Nullable Vertex> vertices =
                present(job.vertices(), "$.vertices", "an array of job vertices");
        List<JobFileSchema.@Nullable Edge> edges =
                present(job.edges(), "$.edges", "an array of edges (may be empty)");
        JobGraphBuilder builder = JobGraph.builder();
        Set<String> names = addVertices(builder, vertices);
        connect(builder, edges, names);
        JobGraph graph;
        try {
            graph = builder.build();
        } catch (IllegalArgumentException e) {
            throw new JobFileException("$.edges", String.valueOf(e.getMessage()));
        }
        return new Contents(graph, sources(graph, vertices));
    }

    /**
     * The sources' records settings, checked: ranges, and that only a vertex without input edges
     * has them. The vertices are present and valid (addVertices checked them). O(V).
     */
    private static List<JobFileSource> sources(
            JobGraph graph, List<JobFileSchema.@Nullable Vertex> vertices) throws JobFileException {
        List<JobFileSource> sources = new ArrayList<>();
        for (int i = 0; i < vertices.size(); i++) {
            JobFileSchema.Vertex vertex = Objects.requireNonNull(vertices.get(i));
            if (!vertex.hasRecordsPerSubtask() && !vertex.hasSkew()) {
                continue;
            }
            String path = "$.vertices[" + i + "]";
            String name = Objects.requireNonNull(vertex.name());
            int v = graph.findVertex(name).orElseThrow();
            Long records =
                    vertex.hasRecordsPerSubtask()
                            ? recordsPerSubtask(
                                    vertex.recordsPerSubtask(), path + ".records_per_subtask")
                            : null;
            JobFileSource.Skew skew =
                    vertex.hasSkew()
                            ? skew(vertex.skew(), path + ".skew", name, graph.parallelism(v))
                            : null;
            if (graph.numInputEdges(v) > 0) {
                String field = vertex.hasRecordsPerSubtask() ? "records_per_subtask" : "skew";
                throw new JobFileException(
                        path + "." + field,
                        String.format(
                                "vertex '%s' has input edges; \"%s\" is allowed only on a source"
                                        + " vertex (one without input edges), whose subtasks"
                                        + " generate the records",
                                name, field));
            }
            sources.add(new JobFileSource(v, name, records, skew));
        }
        return sources;
    }

    private static long recordsPerSubtask(@Nullable BigInteger value, String path)
            throws JobFileException {
        String allowed =
                "an integer in [0, "
                        + MAX_RECORDS_PER_SUBTASK
                        + "], or no field for the command's default";
        BigInteger records = present(value, path, allowed);
        if (records.signum() < 0
                || records.compareTo(BigInteger.valueOf(MAX_RECORDS_PER_SUBTASK)) > 0) {
            throw new JobFileException(path, "must be " + allowed + ", was " + records);
        }
        return records.longValueExact();
    }

    private static JobFileSource.Skew skew(
            JobFileSchema.@Nullable Skew value, String path, String name, int parallelism)
            throws JobFileException {
        JobFileSchema.Skew skew =
                present(
                        value,
                        path,
                        "an object {\"hot_subtasks\": K, \"factor\": F}, or no field for no"
                                + " skew");
        String hotAllowed =
                "an integer in [1, " + parallelism + "] (the parallelism of '" + name + "')";
        BigInteger hot = present(skew.hotSubtasks(), path + ".hot_subtasks", hotAllowed);
        if (hot.signum() <= 0 || hot.compareTo(BigInteger.valueOf(parallelism)) > 0) {
            throw new JobFileException(
                    path + ".hot_subtasks", "must be " + hotAllowed + ", was " + hot);
        }
        String factorAllowed =
                "a number in [1, "
                        + MAX_SKEW_FACTOR
                        + "] (a hot subtask generates factor times the records of the others)";
        BigDecimal factor = present(skew.factor(), path + ".factor", factorAllowed);
        if (factor.compareTo(BigDecimal.ONE) < 0
                || factor.compareTo(BigDecimal.valueOf(MAX_SKEW_FACTOR)) > 0) {
            // toString, not toPlainString: 1e999999999 stays short
            throw new JobFileException(
                    path + ".factor", "must be " + factorAllowed + ", was " + factor);
        }
        return new JobFileSource.Skew(hot.intValueExact(), factor);
    }

    /** Adds every vertex; returns the names in file order. */
    private static Set<String> addVertices(
            JobGraphBuilder builder, List<JobFileSchema.@Nullable Vertex> vertices)
            throws JobFileException {
        Set<String> names = new LinkedHashSet<>();
        long totalTasks = 0;
        long nameChars = 0;
        for (int i = 0; i < vertices.size(); i++) {
            String path = "$.vertices[" + i + "]";
            JobFileSchema.Vertex vertex =
                    present(vertices.get(i), path, "an object with \"name\" and \"parallelism\"");
            String name = present(vertex.name(), path + ".name", "a string");
            int parallelism = parallelism(vertex.parallelism(), path + ".parallelism");
            totalTasks += parallelism;
            if (totalTasks > MAX_TASKS) {
                throw new JobFileException(
                        path + ".parallelism",
                        String.format(
                                "%d makes %d tasks in total, above inspect's limit of %d tasks"
                                        + " (it lists every task); lower the parallelisms",
                                parallelism, totalTasks, MAX_TASKS));
            }
            nameChars += taskNameChars(name, parallelism);
            if (nameChars > MAX_TASK_NAME_CHARS) {
                throw new JobFileException(
                        path,
                        String.format(
                                "its %d task names bring all task names to %d characters, above"
                                        + " inspect's limit of %d (it prints every task name);"
                                        + " shorten the names or lower the parallelisms",
                                parallelism, nameChars, MAX_TASK_NAME_CHARS));
            }
            try {
                builder.addVertex(name, parallelism);
            } catch (IllegalArgumentException e) {
                // The parallelism is checked above, so the builder objects to the name.
                throw new JobFileException(path + ".name", String.valueOf(e.getMessage()));
            }
            names.add(name);
        }
        return names;
    }

    /** The length of {@code name#0}, …, {@code name#(parallelism-1)} together. O(log P). */
    static long taskNameChars(String name, int parallelism) {
        long chars = (long) parallelism * (name.length() + 1);
        long low = 0; // the first subtask index with `digits` digits
        long high = 10; // the first with more
        for (int digits = 1; low < parallelism; digits++) {
            chars += digits * (Math.min(high, parallelism) - low);
            low = high;
            high *= 10;
        }
        return chars;
    }

    private static int parallelism(@Nullable BigInteger value, String path)
            throws JobFileException {
        String allowed = "an integer in [1, " + JobGraph.MAX_PARALLELISM + "]";
        BigInteger parallelism = present(value, path, allowed);
        if (parallelism.signum() <= 0
                || parallelism.compareTo(BigInteger.valueOf(JobGraph.MAX_PARALLELISM)) > 0) {
            throw new JobFileException(path, "must be " + allowed + ", was " + parallelism);
        }
        return parallelism.intValueExact();
    }

    private static void connect(
            JobGraphBuilder builder, List<JobFileSchema.@Nullable Edge> edges, Set<String> names)
            throws JobFileException {
        for (int j = 0; j < edges.size(); j++) {
            String path = "$.edges[" + j + "]";
            JobFileSchema.Edge edge =
                    present(
                            edges.get(j),
                            path,
                            "an object with \"source\", \"target\", \"pattern\" and \"type\"");
            String source = knownVertex(edge.source(), path + ".source", names);
            String target = knownVertex(edge.target(), path + ".target", names);
            DistributionPattern pattern =
                    present(
                            edge.pattern(),
                            path + ".pattern",
                            "one of " + Arrays.toString(DistributionPattern.values()));
            ResultPartitionType type =
                    present(
                            edge.type(),
                            path + ".type",
                            "one of " + Arrays.toString(ResultPartitionType.values()));
            try {
                builder.connect(source, target, pattern, type);
            } catch (IllegalArgumentException e) {
                throw new JobFileException(path, String.valueOf(e.getMessage()));
            }
        }
    }

    private static String knownVertex(@Nullable String name, String path, Set<String> names)
            throws JobFileException {
        String vertex = present(name, path, "the name of a job vertex");
        if (!names.contains(vertex)) {
            throw new JobFileException(
                    path, "unknown job vertex '" + vertex + "'; known: " + sample(names));
        }
        return vertex;
    }

    /** Up to ten names, then how many there are: a message stays short for any job. */
    public static String sample(Collection<String> names) {
        StringBuilder text = new StringBuilder("[");
        int shown = 0;
        for (String name : names) {
            if (shown == 10) {
                return text.append(", ... (").append(names.size()).append(" in all)]").toString();
            }
            text.append(shown++ == 0 ? "'" : ", '").append(name).append('\'');
        }
        return text.append(']').toString();
    }

    /** {@code value}, or a {@link JobFileException} at {@code path} if it is missing or null. */
    static <T> T present(@Nullable T value, String path, String expected) throws JobFileException {
        if (value == null) {
            throw new JobFileException(path, "missing or null; expected " + expected);
        }
        return value;
    }

    /**
     * Databind that accepts each value only in its own JSON type: no coercion of any shape into any
     * type (but an integer for a decimal number), no numbers for enums, no floats for integers,
     * nothing after the root object. Field names are the setters' names in snake case ({@code
     * setHotSubtasks}: {@code hot_subtasks}).
     */
    static JsonMapper strictMapper() {
        JsonMapper.Builder builder =
                JsonMapper.builder()
                        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                        .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                        .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                        .disable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
                        .disable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                        .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS);
        for (LogicalType type : LogicalType.values()) {
            builder.withCoercionConfig(
                    type,
                    config -> {
                        for (CoercionInputShape shape : CoercionInputShape.values()) {
                            // A JSON integer is a number: 10 for a decimal field (skew.factor).
                            config.setCoercion(
                                    shape,
                                    type == LogicalType.Float && shape == CoercionInputShape.Integer
                                            ? CoercionAction.TryConvert
                                            : CoercionAction.Fail);
                        }
                    });
        }
        return builder.propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();
    }
}
