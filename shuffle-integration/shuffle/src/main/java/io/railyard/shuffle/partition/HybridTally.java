package io.railyard.shuffle.partition;

/**
 * The counters of one {@link HybridPartition} ({@link HybridStats}), each change also applied to
 * its worker's {@link HybridCounters}. Not thread-safe: reached only through fields the partition's
 * lock guards (the partition's own, its {@link HybridRegions}', {@link HybridCursors}' and {@link
 * HybridSpill}'s). Every update is O(1) and allocates nothing.
 */
final class HybridTally {
    private final HybridCounters worker;
    private long produced;
    private long writtenToDisk;
    private long spilled;
    private long readFromMemory;
    private long readFromDisk;
    private int resident;
    private int peakResident;
    private int backpressureWaits;

    HybridTally(HybridCounters worker) {
        this.worker = worker;
    }

    /** A region of {@code bytes} was published. */
    void produced(long bytes) {
        produced += bytes;
        worker.produced.add(bytes);
    }

    /** {@code bytes} reached the data file. */
    void writtenToDisk(long bytes) {
        writtenToDisk += bytes;
        worker.writtenToDisk.add(bytes);
    }

    /** {@code bytes} were written to the spill file. */
    void spilled(long bytes) {
        spilled += bytes;
        worker.spilled.add(bytes);
    }

    /** A reader took {@code bytes}, from resident pages if {@code fromMemory}, else from disk. */
    void read(long bytes, boolean fromMemory) {
        if (fromMemory) {
            readFromMemory += bytes;
            worker.readFromMemory.add(bytes);
        } else {
            readFromDisk += bytes;
            worker.readFromDisk.add(bytes);
        }
    }

    /** The partition's resident pages changed by {@code delta}. */
    void resident(int delta) {
        resident += delta;
        peakResident = Math.max(peakResident, resident);
        worker.noteResident(delta);
    }

    /** The pipelined producer waits for its consumers once more. */
    void backpressureWait() {
        backpressureWaits++;
    }

    /** Times the pipelined producer waited for its consumers. */
    int backpressureWaits() {
        return backpressureWaits;
    }

    /** Resident pages now. */
    int residentPages() {
        return resident;
    }

    /** The counters so far; allocates the record. */
    HybridStats stats() {
        return new HybridStats(
                produced,
                writtenToDisk,
                spilled,
                readFromMemory,
                readFromDisk,
                resident,
                peakResident);
    }
}
