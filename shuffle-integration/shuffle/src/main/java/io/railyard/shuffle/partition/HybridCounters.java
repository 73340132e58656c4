package io.railyard.shuffle.partition;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The hybrid counters of one worker, summed over its hybrid partitions (bytes of frames, headers
 * included). Thread-safe; every update is O(1) and allocates nothing.
 */
final class HybridCounters {
    final LongAdder produced = new LongAdder();
    final LongAdder writtenToDisk = new LongAdder();
    final LongAdder spilled = new LongAdder();
    final LongAdder readFromMemory = new LongAdder();
    final LongAdder readFromDisk = new LongAdder();
    private final AtomicInteger resident = new AtomicInteger();
    private final AtomicInteger peakResident = new AtomicInteger();

    /** Resident pages of all hybrid partitions changed by {@code delta}. */
    void noteResident(int delta) {
        int now = resident.addAndGet(delta);
        peakResident.accumulateAndGet(now, Math::max);
    }

    /** Resident pages now. */
    int resident() {
        return resident.get();
    }

    /** The most resident pages at once so far. */
    int peakResident() {
        return peakResident.get();
    }
}
