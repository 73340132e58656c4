package io.railyard.benchmarks.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * A file a command writes its results to ({@code --json}, {@code --chart}): checked before any
 * measuring starts, so that a bad path costs nothing, and written at the end through a temporary
 * file in the same directory and a rename, so that a failed write leaves neither a partial file nor
 * a lost earlier one.
 *
 * <p>The check creates nothing that stays: it probes the nearest existing directory on the path
 * with a temporary file (deleted at once). Missing parent directories are created only when the
 * results are written. Probing, rather than asking for permissions, is what also catches a
 * read-only file system and works for root, who may write anywhere else.
 */
final class OutputFile {
    private static final ObjectWriter PRETTY = new ObjectMapper().writerWithDefaultPrettyPrinter();

    private final String option;
    private final Path path;

    private OutputFile(String option, Path path) {
        this.option = option;
        this.path = path;
    }

    /**
     * Checks that {@code path}, given as {@code option}, can be written; {@code suffix} (such as
     * {@code ".png"}) is appended if the path lacks it. O(depth of the path).
     *
     * @throws ParameterException (a usage error) naming the option, the path and what is wrong
     */
    static OutputFile check(CommandSpec spec, String option, Path path, @Nullable String suffix) {
        if (Files.isDirectory(path)) {
            throw new ParameterException(
                    spec.commandLine(),
                    option
                            + " "
                            + path
                            + ": cannot write there: it is a directory; give a file name");
        }
        Path target = path;
        String name = String.valueOf(path.getFileName());
        if (suffix != null && !name.endsWith(suffix)) {
            target = path.resolveSibling(name + suffix);
        }
        OutputFile file = new OutputFile(option, target);
        String problem = file.problem();
        if (problem != null) {
            throw new ParameterException(
                    spec.commandLine(), option + " " + path + ": cannot write there: " + problem);
        }
        return file;
    }

    /** The path written (with the suffix). */
    Path path() {
        return path;
    }

    /** The option that named it. */
    String option() {
        return option;
    }

    /**
     * Writes {@code document} as indented JSON (see {@link #write}) and tells {@code out} where it
     * went.
     */
    void writeJson(JsonNode document, PrintWriter out) throws IOException {
        write(stream -> PRETTY.writeValue(stream, document));
        out.println("JSON written to " + path);
        out.flush();
    }

    /** Writes the file: {@code content} into a temporary file beside it, then a rename. */
    void write(Content content) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path temp = Files.createTempFile(parent, ".railyard-", ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(temp, StandardOpenOption.WRITE)) {
                content.writeTo(out);
            }
            try {
                Files.move(
                        temp,
                        path,
                        StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** What a file's content is written by. */
    @FunctionalInterface
    interface Content {
        /** Writes the content to {@code out}, which the caller closes. */
        void writeTo(OutputStream out) throws IOException;
    }

    /** Why the path cannot be written, or null if it can. */
    private @Nullable String problem() {
        if (Files.isDirectory(path)) {
            return "it is a directory; give a file name";
        }
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)
                && !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            return "it exists and is not a regular file";
        }
        Path directory = path.toAbsolutePath().getParent();
        while (directory != null && !Files.exists(directory)) {
            directory = directory.getParent();
        }
        if (directory == null) {
            return "no existing directory on the path";
        }
        if (!Files.isDirectory(directory)) {
            return directory + " is not a directory";
        }
        try {
            Files.delete(Files.createTempFile(directory, ".railyard-probe-", ".tmp"));
        } catch (IOException | UnsupportedOperationException e) {
            return "cannot create a file in " + directory + " (" + probeFailure(e) + ")";
        }
        return null;
    }

    private static String probeFailure(Exception e) {
        return e instanceof IOException io ? CliErrors.describe(io) : String.valueOf(e);
    }
}
