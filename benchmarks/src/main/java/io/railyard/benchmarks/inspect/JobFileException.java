package io.railyard.benchmarks.inspect;

/**
 * Bad input to {@code inspect}: a job file or an option the user must change. {@link #where()}
 * names the item (a JSON path such as {@code $.edges[3].pattern}, or an option such as {@code
 * --fail}) and {@link #problem()} says what is wrong and what is allowed.
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
        super(where + ": " + problem);
        this.where = where;
        this.problem = problem;
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
