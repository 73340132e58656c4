package io.railyard.benchmarks.cli;

/**
 * A run that failed for a reason outside the user's options (a full disk, a file that vanished):
 * reported as one line, exit code 1, by {@link CliErrors}.
 */
final class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A failure whose message says what failed and what to do. */
    CommandFailure(String message, Throwable cause) {
        super(message, cause);
    }

    /** A failure without an underlying exception. */
    CommandFailure(String message) {
        super(message);
    }
}
