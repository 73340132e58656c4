package io.railyard.benchmarks;

/**
 * Bad input to {@code inspect}: a job file or an option the user must change. {@link #where()}
 * names the item (a JSON path such as {@code $.edges[3].pattern}, or an option such as {@code
 * --fail}) and {@link #problem()} says what is wrong and what is allowed.
 */
final class InspectException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String where;
    private final String problem;

    InspectException(String where, String problem) {
        super(where + ": " + problem);
        this.where = where;
        this.problem = problem;
    }

    /** The JSON path or option at fault. */
    String where() {
        return where;
    }

    /** What is wrong with it. */
    String problem() {
        return problem;
    }

    /** The same error, its place prefixed with {@code context} (such as the file name). */
    InspectException in(String context) {
        InspectException located = new InspectException(context + ": " + where, problem);
        located.initCause(this);
        return located;
    }

    /**
     * The message on one line: line breaks and other control characters (which a vertex name or a
     * file name may hold) are written as escapes, so that the error stays one line on stderr.
     */
    String oneLine() {
        String message = where + ": " + problem;
        StringBuilder line = new StringBuilder(message.length());
        for (int i = 0; i < message.length(); i++) {
            char c = message.charAt(i);
            if (c == '\n') {
                line.append("\\n");
            } else if (c == '\r') {
                line.append("\\r");
            } else if (c == '\t') {
                line.append("\\t");
            } else if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                line.append(String.format("\\u%04x", (int) c));
            } else {
                line.append(c);
            }
        }
        return line.toString();
    }
}
