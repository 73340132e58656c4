package io.railyard.regions.scheduling;

import io.railyard.topology.FixedBits;

/**
 * A set of region ids polled lowest id first: a bit per region, and the lowest and highest id that
 * may be queued. Region ids are topological, so this is the scheduling order.
 *
 * <p>{@link #add(int)} is O(1); a sequence of {@link #poll()} calls costs O(polled + span / 64),
 * where span is the distance between the lowest and the highest id queued since the queue was last
 * empty — the poll that finds it empty included, which stops at the highest id instead of scanning
 * to the end of the bits (that scan made a stream of one-region events, such as the consumers of a
 * pointwise blocking edge, cost O(regions / 64) each). Unlike a binary heap, draining k consecutive
 * regions costs O(k), not O(k log k). Not thread-safe.
 */
final class RankQueue {
    private final FixedBits queued;
    private int low; // every queued id is in [low, high]; empty when low > high
    private int high = -1;

    RankQueue(int numRegions) {
        this.queued = new FixedBits(numRegions);
        this.low = numRegions;
    }

    /** Queues {@code region}; queuing a queued region has no effect. */
    void add(int region) {
        queued.set(region);
        low = Math.min(low, region);
        high = Math.max(high, region);
    }

    /** Removes and returns the lowest queued region, or -1 when empty. */
    int poll() {
        if (low > high) {
            return -1;
        }
        int region = queued.nextSetBit(low); // exists: high is queued until it is polled
        queued.clear(region);
        if (region == high) { // the highest, polled last: the queue is empty
            low = Integer.MAX_VALUE;
            high = -1;
        } else {
            low = region + 1;
        }
        return region;
    }
}
