package io.railyard.benchmarks.inspect;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code inspect}, {@code simulate} and {@code run} read as a job: a Railyard job file ({@link
 * JobFile}) or a plan Flink publishes ({@link FlinkPlan}), told apart by content — a document whose
 * top-level object has {@code "plan"} or {@code "nodes"} is a Flink plan, anything else a job file
 * — or named with {@code --format}. Both are read within the same limits ({@link
 * JobFile#MAX_DOCUMENT_BYTES} and the rest) and fail the same way ({@link JobFileException}).
 * O(file size + V log V + E).
 */
public final class JobDocument {
    private static final JsonFactory JSON = new JsonFactory();

    private JobDocument() {}

    /** The kinds of job document. */
    public enum Format {
        /** Told by content (the class notes). */
        AUTO,
        /** A Railyard job file. */
        RAILYARD,
        /** A Flink plan: {@code {"plan": …}}, a bare plan, or a {@code /jobs/:jobid} document. */
        FLINK_PLAN;

        /** The option value naming it: {@code auto}, {@code railyard}, {@code flink-plan}. */
        public String optionValue() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * A job document read.
     *
     * @param contents its graph and its sources' records (none for a Flink plan)
     * @param format what it was, {@link Format#RAILYARD} or {@link Format#FLINK_PLAN}
     * @param warnings what reading a Flink plan had to assume, one line each (none for a job file)
     */
    public record Read(JobFile.Contents contents, Format format, List<String> warnings) {
        /** Copies the warnings. */
        public Read {
            warnings = List.copyOf(warnings);
        }
    }

    /**
     * Reads the job document {@code file} as {@code format}, a Flink plan's vertices at the
     * parallelisms {@code vertexParallelism} gives (by vertex name or Flink id).
     *
     * @throws JobFileException naming the file and the JSON path, {@code --job} if the file cannot
     *     be read, or {@code --vertex-parallelism} for a job file or a vertex the plan lacks
     */
    public static Read read(Path file, Format format, Map<String, Integer> vertexParallelism)
            throws JobFileException {
        byte[] document = JobFile.readBounded(file);
        try {
            return parse(document, format, vertexParallelism);
        } catch (JobFileException e) {
            throw e.where().startsWith("--") ? e : e.in(file.toString());
        }
    }

    /** As {@link #read}, of {@code document} (UTF-8 JSON). */
    static Read parse(byte[] document, Format format, Map<String, Integer> vertexParallelism)
            throws JobFileException {
        Format actual = format == Format.AUTO ? detect(document) : format;
        if (actual == Format.FLINK_PLAN) {
            FlinkPlan.Result plan = FlinkPlan.parse(document, vertexParallelism);
            return new Read(new JobFile.Contents(plan.graph(), List.of()), actual, plan.warnings());
        }
        if (!vertexParallelism.isEmpty()) {
            throw new JobFileException(
                    "--vertex-parallelism",
                    "applies to a Flink plan only; this is a Railyard job file, whose vertices"
                            + " state their parallelism (edit the file instead)");
        }
        return new Read(JobFile.parseContents(document), actual, List.of());
    }

    /**
     * {@link Format#FLINK_PLAN} if the top-level object of {@code document} has a {@code "plan"} or
     * {@code "nodes"} key, else {@link Format#RAILYARD} — also for a document that is not JSON,
     * whose error the job-file reader then names. Streams the keys and skips their values, without
     * binding anything. O(document).
     */
    static Format detect(byte[] document) {
        try (JsonParser parser = JSON.createParser(document)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return Format.RAILYARD;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String key = parser.currentName();
                if ("plan".equals(key) || "nodes".equals(key)) {
                    return Format.FLINK_PLAN;
                }
                parser.nextToken();
                parser.skipChildren();
            }
            return Format.RAILYARD;
        } catch (IOException e) {
            return Format.RAILYARD;
        }
    }
}
