package io.railyard.simulation;

import java.util.Locale;

/**
 * Hot subtasks of one job vertex: subtasks {@code 0 .. hotSubtasks - 1} of {@code vertex} get
 * {@code factor} times the mean work of the vertex's distribution (in place of a sample). Text form
 * {@code VERTEX:K:F}, e.g. {@code join:1:34}: one subtask of {@code join} with 34 times the
 * average.
 *
 * @param vertex the job vertex's name
 * @param hotSubtasks how many subtasks are hot, at least 1 (at most the parallelism, checked when
 *     simulated)
 * @param factor the multiple of the mean, in (0, 1e6]
 */
public record Skew(String vertex, int hotSubtasks, double factor) {
    /** Checks the arguments. */
    public Skew {
        if (vertex.isEmpty()) {
            throw new IllegalArgumentException("the skewed vertex's name is empty");
        }
        if (hotSubtasks < 1) {
            throw new IllegalArgumentException(
                    "the number of hot subtasks must be >= 1, was " + hotSubtasks);
        }
        if (!(factor > 0 && factor <= 1e6)) {
            throw new IllegalArgumentException(
                    "the skew factor must be in (0, 1e6], was " + factor);
        }
    }

    /**
     * Parses {@code VERTEX:K:F} (the vertex name is everything before the last two colons).
     *
     * @throws IllegalArgumentException naming the text and what is allowed
     */
    public static Skew parse(String text) {
        int second = text.lastIndexOf(':');
        int first = second <= 0 ? -1 : text.lastIndexOf(':', second - 1);
        if (first <= 0) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a skew; allowed: VERTEX:K:F, e.g. join:1:34");
        }
        try {
            return new Skew(
                    text.substring(0, first),
                    Integer.parseInt(text.substring(first + 1, second).trim()),
                    Double.parseDouble(text.substring(second + 1).trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "'"
                            + text
                            + "' is not a skew; allowed: VERTEX:K:F with K an integer >= 1 and F"
                            + " a number > 0, e.g. join:1:34",
                    e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + text + "': " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s:%d:%s", vertex, hotSubtasks, factor);
    }
}
