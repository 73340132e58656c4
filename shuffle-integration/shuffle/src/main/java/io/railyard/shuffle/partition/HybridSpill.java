package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * The spilling of one {@link HybridPartition}: what it was asked ({@link SpillRequests}: by the
 * pool's revocation listener, or the writer above the memory fraction), and the spill itself, on
 * the worker's IO thread — newest regions first (the data consumers need latest), full mode
 * dropping regions already written, selective mode writing the unconsumed rest of each region's
 * sections to the spill file before dropping it.
 *
 * <p>Threading: its state and the regions it spills are guarded by the partition's monitor, which
 * every method here takes (reentrantly where the partition calls it under its lock: {@link
 * #takeOwed}). The spill file is written with the lock released; pages are recycled and the
 * partition failed after it is released too. {@link #request} only enqueues, so the revocation
 * listener never blocks.
 */
final class HybridSpill {
    private final HybridPartition partition;
    private final boolean fullMode;
    private final HybridFiles files;
    private final BufferOwner owner;
    private final Executor io;

    @GuardedBy("partition")
    private final HybridRegions regions;

    @GuardedBy("partition")
    private final HybridTally tally;

    @GuardedBy("partition")
    private final SpillRequests requests = new SpillRequests();

    /**
     * The spilling of {@code partition}'s {@code regions} to the spill file of {@code files}, on
     * {@code io}, counted in {@code tally} (both guarded by the partition's monitor); {@code owner}
     * holds the resident pages.
     */
    HybridSpill(
            HybridPartition partition,
            HybridRegions regions,
            HybridTally tally,
            HybridFiles files,
            BufferOwner owner,
            Executor io) {
        this.partition = partition;
        this.fullMode = partition.kind() == PartitionKind.HYBRID_FULL;
        this.regions = regions;
        this.tally = tally;
        this.files = files;
        this.owner = owner;
        this.io = io;
    }

    /**
     * Asks the IO thread to move {@code pages} resident pages out of memory; nothing once the
     * partition is lost. Only enqueues (the first ask since the last spill started). O(1).
     */
    void request(int pages) {
        boolean submit;
        synchronized (partition) {
            if (partition.isLostLocked() || pages <= 0) {
                return;
            }
            submit = requests.ask(pages);
        }
        if (submit) {
            io.execute(this::spillRequested);
        }
    }

    /**
     * The pages owed (asked for before, not freeable then), now to be asked again: the partition
     * calls it, under its lock, when pages became freeable (a resident region published, a
     * write-through ended).
     */
    int takeOwed() {
        synchronized (partition) {
            return requests.takeOwed();
        }
    }

    /** Runs a requested spill; on the IO thread. */
    private void spillRequested() {
        int want;
        synchronized (partition) {
            want = requests.start();
        }
        try {
            int owed = Math.min(want - spill(want), owner.borrowedPages()); // asked, still held
            synchronized (partition) {
                requests.owe(owed);
            }
        } catch (IOException e) {
            partition.fail(
                    "spilling to "
                            + files.spillFile()
                            + " failed after "
                            + files.spillFileBytes()
                            + " bytes: "
                            + e,
                    e);
        }
    }

    /**
     * Moves at least {@code pages} resident pages out of memory if it can, newest regions first:
     * full mode drops regions already written (one still being written through or read goes the
     * moment that ends); selective mode writes the unconsumed rest of each region's sections to the
     * spill file, then drops it. Returns the pages freed now. On the IO thread (or a test's).
     */
    int spill(int pages) throws IOException {
        List<HybridRegion> victims = new ArrayList<>();
        List<Page> drop = new ArrayList<>();
        int[][] from;
        synchronized (partition) {
            if (partition.isLostLocked()) {
                return 0;
            }
            boolean readOnce = partition.isReadOnce();
            int freed = 0;
            for (int r = regions.size() - 1; r >= 0 && freed < pages; r--) {
                HybridRegion region = regions.get(r);
                if (!region.maySpill(readOnce)) {
                    continue;
                }
                freed += region.residentPages();
                if (fullMode) {
                    // On disk, or once its write-through ends: drop defers a busy region to then.
                    // Skipping it would forget this ask, and the pool does not ask again.
                    drop.addAll(regions.drop(region));
                } else {
                    region.pin(); // nobody drops or reads it while it is written out
                    victims.add(region);
                }
            }
            from = new int[victims.size()][];
            for (int v = 0; v < victims.size(); v++) {
                from[v] = victims.get(v).unconsumedFrom();
            }
        }
        partition.recycle(drop);
        int freed = drop.size();
        if (!victims.isEmpty()) {
            freed += spillOut(victims, from);
        }
        return freed;
    }

    /** Writes the needed rest of each victim to the spill file, then drops the victims. */
    private int spillOut(List<HybridRegion> victims, int[][] from) throws IOException {
        long[][] offsets = new long[victims.size()][];
        long[] written = new long[1];
        try {
            for (int v = 0; v < victims.size(); v++) {
                offsets[v] = files.spill(victims.get(v), from[v], written);
            }
        } catch (IOException e) {
            List<Page> drop = new ArrayList<>();
            synchronized (partition) {
                for (HybridRegion region : victims) {
                    drop.addAll(regions.dropped(region.unpin()));
                }
            }
            partition.recycle(drop);
            throw e;
        }
        List<Page> drop = new ArrayList<>();
        synchronized (partition) {
            tally.spilled(written[0]);
            for (int v = 0; v < victims.size(); v++) {
                HybridRegion region = victims.get(v);
                region.spilled(offsets[v], from[v]);
                drop.addAll(regions.dropped(region.unpin()));
                drop.addAll(regions.drop(region));
            }
        }
        partition.recycle(drop);
        return drop.size();
    }
}
