package io.railyard.regions.scheduling;

import java.util.BitSet;

/**
 * A set of region ids polled lowest id first: a bit per region and a cursor at the lowest id that
 * may be queued. Region ids are topological, so this is the scheduling order.
 *
 * <p>{@link #add(int)} is O(1); a sequence of {@link #poll()} calls costs O(polled + span / 64),
 * where span is the distance between the lowest and the highest id queued since the queue was last
 * empty. Unlike a binary heap, draining k consecutive regions costs O(k), not O(k log k). Not
 * thread-safe.
 */
final class RankQueue {
    private final BitSet queued;
    private int low;

    RankQueue(int numRegions) {
        this.queued = new BitSet(numRegions);
        this.low = numRegions;
    }

    /** Queues {@code region}; queuing a queued region has no effect. */
    void add(int region) {
        queued.set(region);
        if (region < low) {
            low = region;
        }
    }

    /** Removes and returns the lowest queued region, or -1 when empty. */
    int poll() {
        int region = queued.nextSetBit(low);
        if (region < 0) {
            low = Integer.MAX_VALUE;
            return -1;
        }
        queued.clear(region);
        low = region + 1;
        return region;
    }
}
