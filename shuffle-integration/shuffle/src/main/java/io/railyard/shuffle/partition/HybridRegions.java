package io.railyard.shuffle.partition;

import io.railyard.shuffle.buffer.Page;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The regions one {@link HybridPartition} published, in order, and their resident pages: every page
 * a region gives up is taken off the partition's resident count ({@link HybridTally}) here and
 * returned to recycle, so the count always equals the pages the regions hold.
 *
 * <p>Not thread-safe: reached only through fields the partition's lock guards (the partition's own,
 * its {@link HybridCursors}' and its {@link HybridSpill}'s); every method must be called with that
 * lock held. It never recycles a page itself: the caller recycles what it returns after releasing
 * the lock. O(1) per call but where noted; a drop allocates the list of its pages.
 */
final class HybridRegions {
    private final List<HybridRegion> regions = new ArrayList<>();
    private final HybridTally tally;

    /** No region yet; pages are counted resident in {@code tally}. */
    HybridRegions(HybridTally tally) {
        this.tally = tally;
    }

    /** Regions published so far. */
    int size() {
        return regions.size();
    }

    /** Region {@code index}, the index-th published. */
    HybridRegion get(int index) {
        return regions.get(index);
    }

    /** Every region so far, in order (the live list: read it, do not keep it). */
    List<HybridRegion> all() {
        return regions;
    }

    /** {@code region}, numbered {@link #size()}, is published: its pages count as resident. */
    void add(HybridRegion region) {
        regions.add(region);
        tally.resident(region.residentPages());
    }

    /** Whether {@code subpartition} passed some region: it read, or gave up, data. O(regions). */
    boolean passedAny(int subpartition) {
        for (HybridRegion region : regions) {
            if (region.hasPassed(subpartition)) {
                return true;
            }
        }
        return false;
    }

    /** Resident pages of the regions a reader pins now. O(regions). */
    int pinnedPages() {
        int pinned = 0;
        for (HybridRegion region : regions) {
            pinned += region.pinnedPages();
        }
        return pinned;
    }

    /** Subpartition {@code s} no longer needs {@code region}; its pages to recycle join drop. */
    void pass(HybridRegion region, int s, List<Page> drop) {
        if (region.pass(s)) {
            drop.addAll(drop(region));
        }
    }

    /**
     * Drops the pages of every region no subpartition needs any more (as {@link #drop}); returns
     * the pages to recycle. O(regions).
     */
    List<Page> dropUnneeded() {
        List<Page> drop = new ArrayList<>(0);
        for (HybridRegion region : regions) {
            if (region.readersLeft() == 0) {
                drop.addAll(drop(region));
            }
        }
        return drop;
    }

    /**
     * Drops {@code region}'s pages now, or marks them to go when no reader copies from them and no
     * write-through runs; returns the pages to recycle.
     */
    List<Page> drop(HybridRegion region) {
        return dropped(region.drop());
    }

    /**
     * Takes {@code pages}, which a region just gave up (null: none), off the resident count and
     * returns them to recycle.
     */
    List<Page> dropped(Page @Nullable [] pages) {
        if (pages == null) {
            return List.of();
        }
        tally.resident(-pages.length);
        return List.of(pages); // recycle() then wakes a pipelined producer pausing for room
    }

    /**
     * Drops every region's pages, or marks them for later where a reader copies from them or, with
     * {@code writerGone} false, a write-through still runs (it drops them when it ends).
     * O(regions).
     */
    List<Page> dropAll(boolean writerGone) {
        List<Page> drop = new ArrayList<>();
        for (HybridRegion region : regions) {
            if (writerGone) {
                region.writerGone(); // the writer that was writing it failed: no write runs
            }
            drop.addAll(drop(region));
        }
        return drop;
    }

    /**
     * Checks the regions of a partition of {@code numSubpartitions} ({@code fullMode}, {@code
     * lost}) against each other and the resident count: see {@link
     * HybridPartition#checkInvariants()}. O(regions × subpartitions).
     */
    void checkInvariants(int numSubpartitions, boolean fullMode, boolean lost) {
        HybridInvariants.check(regions, numSubpartitions, fullMode, lost, tally.residentPages());
    }
}
