package io.railyard.shuffle.partition;

import io.railyard.shuffle.PartitionLostException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LocalInputGate}'s walk along the log of its {@link PartitionFeed}, on the consumer's
 * thread: one cursor (the next entry), the batch of entries copied from the feed at a time (one
 * lock of the feed per batch, not per entry), and what it does with each entry — skips one without
 * data for the gate's subpartition, reads a resident region where it lies ({@link MemoryReads}),
 * and opens a session with the IO thread for the others ({@link LocalInputGate#openSession}) —
 * until it has a buffer, every session slot is taken, the entry's partition is busy, or the log
 * ends (then it parks on the feed). Entries of one partition are read one after another: an entry
 * waits while an earlier one of its partition is with the IO thread, or handed over and not polled.
 *
 * <p>Not thread-safe: confined to the gate's consumer (or the thread that opened the gate, before
 * it hands it over), but for the tests' {@link #beforePark} hook, which any thread may set. It
 * reaches the gate's shared state only through the gate's methods, which take the gate's monitor;
 * it holds no lock itself. O(1) per entry plus a batch copy per {@value #BATCH} entries; allocates
 * nothing but in {@link #abandonRest} (and what the memory reads allocate).
 */
final class FeedWalk {
    /** Feed entries copied at a time. */
    static final int BATCH = 64;

    private final LocalInputGate gate;
    private final PartitionFeed feed;
    private final int subpartition;
    private final MemoryReads memory;

    // The cursor into the feed and the batch of entries copied from it.
    private int position;
    private final int[] batchPartition = new int[BATCH];
    private final @Nullable HybridRegion[] batchRegion = new HybridRegion[BATCH];
    private int batchAt;
    private int batchSize;

    private volatile @Nullable Runnable beforePark; // tests: runs as the consumer parks

    /**
     * A walk of {@code gate}, reading {@code subpartition} of {@code feed}, from its first entry.
     */
    FeedWalk(LocalInputGate gate, PartitionFeed feed, int subpartition, MemoryReads memory) {
        this.gate = gate;
        this.feed = feed;
        this.subpartition = subpartition;
        this.memory = memory;
    }

    /** The position of the next entry in the feed's log. */
    int position() {
        return position;
    }

    /** Whether it reads a region in memory (frames are left, or it waits for room for one). */
    boolean readingInMemory() {
        return memory.reading();
    }

    /** The gate closed: the region read in memory is let go (read once: its data goes). */
    void abandonMemoryRead() {
        memory.abandon();
    }

    /** Tests: see {@link LocalInputGate#beforePark}. */
    void beforePark(@Nullable Runnable hook) {
        this.beforePark = hook;
    }

    /**
     * Reads on along the feed: the region it reads in memory, then the next entries — skipping
     * those without data for it, reading the resident ones in memory, handing the others to the IO
     * thread — until it has a buffer, a session slot or the entry's partition is busy, or the log
     * ends (then it parks on the feed). The sessions it opened go to the IO thread at the end, in
     * one lock.
     */
    InputGate.@Nullable Buffer next() throws PartitionLostException {
        try {
            return readOn();
        } finally {
            gate.dispatchOpened();
        }
    }

    private InputGate.@Nullable Buffer readOn() throws PartitionLostException {
        while (true) {
            if (memory.reading()) {
                InputGate.Buffer next = memory.next();
                if (next != null || memory.reading()) {
                    return next; // a buffer, or it waits for room for a compressed frame
                }
            }
            if (!hasEntry()) {
                if (waitForEntries()) {
                    return null;
                }
                continue; // entries arrived meanwhile
            }
            int index = batchPartition[batchAt];
            HybridRegion region = batchRegion[batchAt];
            if (region == null) {
                if (holdsDataFor(index) && !gate.openSession(index, null)) {
                    return null; // every slot is taken: woken when a session ends
                }
            } else if (region.holdsDataFor(subpartition)) {
                gate.hybridRegionSeen();
                // An earlier region of its partition may still be with the IO thread, or handed
                // over but not polled: its buffers come first.
                int busy = gate.channelBusy(index);
                if (busy == LocalInputGate.QUEUED) {
                    LocalBuffer queued = gate.takePublished();
                    if (queued != null) {
                        return queued;
                    }
                    continue; // polled meanwhile? look again
                }
                if (busy == LocalInputGate.READING) {
                    return null; // woken when its session ends
                }
                if (!memory.start(index, region) && !gate.openSession(index, region)) {
                    return null;
                }
            }
            batchAt++;
            position++;
        }
    }

    /**
     * Whether the finished blocking partition at {@code index} has frames for the gate: one without
     * is skipped with no IO session (a sink of 10,000 reads few of them when sources send little).
     */
    private boolean holdsDataFor(int index) {
        ResultPartition partition = Objects.requireNonNull(feed.partition(index));
        return !(partition instanceof BlockingPartition blocking)
                || blocking.holdsDataFor(subpartition);
    }

    /**
     * Starts reading at once: hands the IO thread the first entries that are on disk (as many as it
     * has session slots), before the consumer's first poll; what is in memory waits for the
     * consumer. On the thread that opened the gate, which then hands it to its consumer.
     */
    void prefetch() {
        try {
            while (hasEntry()) {
                if (batchRegion[batchAt] != null
                        || (holdsDataFor(batchPartition[batchAt])
                                && !gate.openSession(batchPartition[batchAt], null))) {
                    return; // a hybrid region, or every slot is taken
                }
                batchAt++;
                position++;
            }
        } finally {
            gate.dispatchOpened();
        }
    }

    /**
     * Whether there is an entry at the cursor, copying the next batch from the feed when the last
     * one is used up; false at the end of the log so far.
     */
    private boolean hasEntry() {
        if (batchAt == batchSize) {
            batchSize = feed.entries(position, batchPartition, batchRegion, BATCH);
            batchAt = 0;
            return batchSize > 0;
        }
        return true;
    }

    /**
     * At the end of the log: the feed's failure (thrown), its end, or a wait for its next entry;
     * false if entries arrived meanwhile (read on).
     */
    private boolean waitForEntries() throws PartitionLostException {
        PartitionLostException lost = feed.failure();
        if (lost != null) {
            gate.fail(lost);
            throw lost;
        }
        Runnable hook = beforePark;
        if (hook != null) {
            hook.run();
        }
        if (feed.park(gate, position)) {
            return true; // woken by the next entry, the end or a failure
        }
        if (feed.isComplete() && position == feed.size()) {
            gate.readToTheEnd();
            return true;
        }
        return feed.failure() == null && position >= feed.size();
    }

    /**
     * Lets go of the regions from the cursor on with data for the gate's subpartition, which it
     * will not read (it closed early): of a partition read once, that data goes. O(entries left);
     * allocates a batch of its own.
     */
    void abandonRest() {
        int[] partitions = new int[BATCH];
        HybridRegion[] regions = new HybridRegion[BATCH];
        for (int from = position; ; ) {
            int n = feed.entries(from, partitions, regions, BATCH);
            if (n == 0) {
                return;
            }
            for (int e = 0; e < n; e++) {
                HybridRegion region = regions[e];
                if (region != null && region.holdsDataFor(subpartition)) {
                    region.partition().abandonRegion(region, subpartition, feed);
                }
            }
            from += n;
        }
    }
}
