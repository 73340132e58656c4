package io.railyard.shuffle.partition;

/**
 * What a {@link HybridPartition} was asked to spill: pages requested since its IO-thread spill was
 * queued, and pages owed — asked for before but not freeable then (a region still being sealed, or
 * written through). The pool asks once per shortfall, so what is owed is asked again when a
 * resident region is published or a write-through ends.
 *
 * <p>Not thread-safe: reached only through its {@link HybridSpill}'s field, which the partition's
 * lock guards. O(1) per call; allocates nothing.
 */
final class SpillRequests {
    private int requested;
    private boolean queued;
    private int owed;

    /** {@code pages} more are asked for; true if the spill must be queued (it was not yet). */
    boolean ask(int pages) {
        requested += pages;
        boolean submit = !queued;
        queued = true;
        return submit;
    }

    /**
     * The queued spill starts: the pages it should free, and nothing is requested, owed or queued
     * any more. An ask repeats the shortfall it is about, so what is owed is not added to it.
     */
    int start() {
        int want = Math.max(requested, owed);
        requested = 0;
        owed = 0;
        queued = false;
        return want;
    }

    /** A spill could not free {@code pages} of what it was asked: they are owed. */
    void owe(int pages) {
        owed = Math.max(owed, pages);
    }

    /** The pages owed, now to be asked again; nothing is owed any more. */
    int takeOwed() {
        int pages = owed;
        owed = 0;
        return pages;
    }
}
