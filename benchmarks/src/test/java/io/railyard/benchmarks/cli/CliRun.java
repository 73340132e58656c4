package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;

/**
 * One run of {@code benchmarks.jar}'s command line in this process, through {@link Main#run}
 * (dispatch, error handlers and all): its exit code, stdout and stderr, with the assertions of
 * ARCHITECTURE.md's reliability row 36.
 *
 * @param exit the exit code
 * @param out what went to stdout
 * @param err what went to stderr
 */
record CliRun(int exit, String out, String err) {

    /** Runs {@code args} with paths in the default file system. */
    static CliRun of(String... args) {
        return in(FileSystems.getDefault(), args);
    }

    /** Runs {@code args} with paths resolved in {@code fileSystem}. */
    static CliRun in(FileSystem fileSystem, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(args, new PrintWriter(out), new PrintWriter(err), fileSystem);
        return new CliRun(exit, out.toString(), err.toString());
    }

    /**
     * A usage error: exit code 2, nothing on stdout, exactly one line on stderr that starts with
     * the command's name.
     */
    CliRun isUsageError() {
        assertThat(exit).as("exit code; stdout: %s; stderr: %s", out, err).isEqualTo(2);
        assertThat(out).as("stdout").isEmpty();
        return isOneLine();
    }

    /** A failure of the run: exit code 1 and exactly one line on stderr. */
    CliRun isFailure() {
        assertThat(exit).as("exit code; stdout: %s; stderr: %s", out, err).isEqualTo(1);
        return isOneLine();
    }

    /** Success: exit code 0 and nothing on stderr. */
    CliRun succeeded() {
        assertThat(exit).as("exit code; stderr: %s", err).isZero();
        assertThat(err).as("stderr").isEmpty();
        return this;
    }

    /** Success with a single line on stdout, returned. */
    String json() {
        succeeded();
        assertThat(out.lines()).hasSize(1);
        return out.strip();
    }

    private CliRun isOneLine() {
        assertThat(err).as("stderr").endsWith(System.lineSeparator());
        assertThat(err.lines()).as("stderr lines").hasSize(1);
        assertThat(err).as("stderr").doesNotContain("\tat ").doesNotContain("Exception:");
        return this;
    }
}
