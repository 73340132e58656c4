package io.railyard.benchmarks.inspect;

import java.util.Locale;

/**
 * Bad input to {@code inspect}: a job file or an option the user must change. {@link #where()}
 * names the item (a JSON path such as {@code $.edges[3].pattern}, or an option such as {@code
 * --fail}) and {@link #problem()} says what is wrong and what is allowed. The message is one line:
 * control characters from the file (in a key, a name) are escaped.
 */
public final class JobFileException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String where;
    private final String problem;

    /**
     * An error at {@code where} (a JSON path such as {@code $.edges[3].pattern}, or an option such
     * as {@code --fail}) saying {@code problem}: what is wrong and what is allowed.
     */
    public JobFileException(String where, String problem) {
        super(oneLine(where) + ": " + oneLine(problem));
        this.where = oneLine(where);
        this.problem = oneLine(problem);
    }

    /**
     * {@code text} with its control and line-separator characters escaped ({@code \n}, {@code
     * \u0085}…): a key or a name from the file may hold any, and the error is one line. O(length).
     */
    static String oneLine(String text) {
        StringBuilder line = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean breaks = c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029;
            if (breaks && line == null) {
                line = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (line == null) {
                continue;
            }
            if (!breaks) {
                line.append(c);
            } else if (c == '\n') {
                line.append("\\n");
            } else if (c == '\r') {
                line.append("\\r");
            } else if (c == '\t') {
                line.append("\\t");
            } else {
                line.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            }
        }
        return line == null ? text : line.toString();
    }

    /** The JSON path or option at fault. */
    public String where() {
        return where;
    }

    /** What is wrong with it. */
    public String problem() {
        return problem;
    }

    /** The same error, its place prefixed with {@code context} (such as the file name). */
    JobFileException in(String context) {
        JobFileException located = new JobFileException(context + ": " + where, problem);
        located.initCause(this);
        return located;
    }
}
