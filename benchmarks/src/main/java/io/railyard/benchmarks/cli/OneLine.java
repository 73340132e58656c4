package io.railyard.benchmarks.cli;

import com.google.common.base.Throwables;
import io.railyard.failover.JobFailedException;
import java.util.Locale;

/** Text made safe for one line on a terminal. */
final class OneLine {
    private OneLine() {}

    /**
     * {@code text} with line breaks, tabs and other control characters (which a file name, a vertex
     * name or an exception message may hold) written as escapes. O(length).
     */
    static String of(String text) {
        StringBuilder line = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                line.append("\\n");
            } else if (c == '\r') {
                line.append("\\r");
            } else if (c == '\t') {
                line.append("\\t");
            } else if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                line.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                line.append(c);
            }
        }
        return line.toString();
    }

    /**
     * A failure in one line, without a stack trace: its text (a {@link JobFailedException}'s
     * message alone: it names the task and why it was not restarted) and, when it has a cause, the
     * root cause's class and message, which the wrappers' messages may not repeat. O(cause chain).
     */
    static String ofFailure(Throwable failure) {
        String text =
                failure instanceof JobFailedException
                        ? String.valueOf(failure.getMessage())
                        : failure.toString();
        Throwable root = Throwables.getRootCause(failure);
        return of(root == failure ? text : text + "; root cause: " + root);
    }
}
