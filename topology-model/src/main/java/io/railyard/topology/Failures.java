package io.railyard.topology;

import org.jspecify.annotations.Nullable;

/**
 * Collecting failures of steps that must all run (closing, deleting, releasing): the first one is
 * thrown at the end, the later ones ride along as suppressed.
 */
public final class Failures {
    private Failures() {}

    /**
     * {@code next} added to the failures so far: {@code next} itself if there were none, else
     * {@code first} with {@code next} suppressed in it. O(1).
     */
    public static <E extends Exception> E add(@Nullable E first, E next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
