package io.railyard.benchmarks.cli;

import io.railyard.benchmarks.inspect.JobFileException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How every command reports what went wrong: one line on stderr, prefixed with the command's name,
 * never a stack trace (unless {@code -Drailyard.stacktrace=true}); exit code 2 for a usage error
 * (an option's value, a bad job file, an output path that cannot be written) and 1 for a failure of
 * the run (an I/O error, memory). Stdout gets nothing from here, so what a command printed before
 * the failure stays intact.
 */
final class CliErrors
        implements CommandLine.IParameterExceptionHandler, CommandLine.IExecutionExceptionHandler {
    /** Set to {@code true} to also print the stack trace of a failure (for bug reports). */
    static final String STACK_TRACE_PROPERTY = "railyard.stacktrace";

    @Override
    public int handleParseException(ParameterException e, String[] args) {
        return usage(e.getCommandLine(), e);
    }

    @Override
    public int handleExecutionException(
            Exception e, CommandLine commandLine, ParseResult parseResult) {
        if (e instanceof ParameterException usage) {
            return usage(commandLine, usage);
        }
        if (e instanceof JobFileException job) {
            return print(commandLine, String.valueOf(job.getMessage()), ExitCode.USAGE, null);
        }
        if (e instanceof CommandFailure failure) {
            return print(commandLine, String.valueOf(failure.getMessage()), ExitCode.SOFTWARE, e);
        }
        if (e instanceof IOException io) {
            return print(commandLine, "failed: " + describe(io), ExitCode.SOFTWARE, e);
        }
        if (e instanceof UncheckedIOException unchecked) {
            return print(
                    commandLine,
                    "failed: " + describe(Objects.requireNonNull(unchecked.getCause())),
                    ExitCode.SOFTWARE,
                    e);
        }
        return print(
                commandLine,
                "failed: "
                        + e
                        + " (an internal error; run with -D"
                        + STACK_TRACE_PROPERTY
                        + "=true for the stack trace)",
                ExitCode.SOFTWARE,
                e);
    }

    /** The line for a first argument that is neither a command nor a benchmark regex. */
    static String unknownCommand(CommandLine cli, String word) {
        List<String> commands = Main.commands(cli);
        String suggestion = closest(word, commands);
        return String.format(
                Locale.ROOT,
                "%s: unknown command '%s'%s (commands: %s; a JMH benchmark regex must match a"
                        + " benchmark name, listed by 'jmh -l')",
                cli.getCommandName(),
                OneLine.of(word),
                suggestion == null ? "" : "; did you mean '" + suggestion + "'?",
                String.join(", ", commands));
    }

    /** What went wrong with a file, in the words a person uses. */
    static String describe(IOException e) {
        if (e instanceof FileSystemException fse) {
            String reason = fse.getReason();
            String what =
                    reason != null
                            ? reason
                            : e instanceof NoSuchFileException
                                    ? "no such file or directory"
                                    : e instanceof AccessDeniedException
                                            ? "permission denied"
                                            : e instanceof FileAlreadyExistsException
                                                    ? "already exists"
                                                    : e instanceof NotDirectoryException
                                                            ? "not a directory"
                                                            : e
                                                                            instanceof
                                                                            DirectoryNotEmptyException
                                                                    ? "directory not empty"
                                                                    : e.getClass().getSimpleName();
            String file = fse.getFile();
            return file == null ? what : file + ": " + what;
        }
        return String.valueOf(e.getMessage());
    }

    private static int usage(CommandLine commandLine, ParameterException e) {
        String message = String.valueOf(e.getMessage());
        if (e instanceof UnmatchedArgumentException unmatched
                && !unmatched.getSuggestions().isEmpty()) {
            message += "; did you mean " + String.join(" or ", unmatched.getSuggestions()) + "?";
        }
        return print(
                commandLine,
                message + " (see '" + commandLine.getCommandSpec().qualifiedName() + " --help')",
                ExitCode.USAGE,
                null);
    }

    private static int print(
            CommandLine commandLine, String message, int exitCode, @Nullable Throwable cause) {
        PrintWriter err = commandLine.getErr();
        err.println(commandLine.getCommandName() + ": " + OneLine.of(message));
        if (cause != null && Boolean.getBoolean(STACK_TRACE_PROPERTY)) {
            cause.printStackTrace(err);
        }
        err.flush();
        return exitCode;
    }

    /** The candidate nearest to {@code word} by edit distance, if it is near enough. */
    private static @Nullable String closest(String word, List<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int distance = editDistance(word, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return bestDistance <= Math.max(2, word.length() / 3) ? best : null;
    }

    private static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
