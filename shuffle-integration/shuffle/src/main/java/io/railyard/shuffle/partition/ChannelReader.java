package io.railyard.shuffle.partition;

import org.jspecify.annotations.Nullable;

/**
 * One session of a gate's channel with the IO thread: a cursor over the sections of one
 * subpartition of one partition — all of a finished blocking partition (region, byte offset, bytes
 * left in the section, frame order of its lanes), or one region of a hybrid partition that is not
 * in memory (its {@link HybridReader}). A gate opens one per feed entry it reads from disk and
 * drops it when the IO thread ended it, so channel state exists only while there is data to read.
 * The cursor fields are confined to the IO thread; {@code done} is volatile. Its turn (waiting, in
 * service) is its gate's, kept by the gate under its lock in the session's {@link #slot}.
 */
final class ChannelReader implements SectionCursor {
    final LocalInputGate gate;
    final int index;
    final int slot;
    final ResultPartition partition;
    private final int subpartition;

    /** The hybrid region it reads, or null for a blocking partition (all of it). */
    final @Nullable HybridRegion hybridRegion;

    @Nullable ReadFile file;
    boolean started;
    volatile boolean done;

    /** Bytes worth reading for it this turn (its gate's {@link LocalInputGate#turnBytes()}). */
    long turnBytes;

    /** The reader of a hybrid region, once the IO thread attached it. */
    @Nullable HybridReader hybrid;

    int region;
    long offset;
    long remaining;
    final LaneOrder order;

    /**
     * A session of {@code gate}'s channel {@code index} (the partition's index in its feed) in
     * session slot {@code slot}, reading {@code subpartition} of {@code partition} — of its region
     * {@code region} only, for a hybrid partition.
     */
    ChannelReader(
            LocalInputGate gate,
            int index,
            int slot,
            ResultPartition partition,
            int subpartition,
            @Nullable HybridRegion region) {
        this.gate = gate;
        this.index = index;
        this.slot = slot;
        this.partition = partition;
        this.subpartition = subpartition;
        this.hybridRegion = region;
        this.order = new LaneOrder(subpartition);
    }

    @Override
    public int subpartition() {
        return subpartition;
    }

    /** The partition, which must be a blocking one. */
    BlockingPartition blocking() {
        return (BlockingPartition) partition;
    }

    @Override
    public void setSection(long offset, long length) {
        this.offset = offset;
        this.remaining = length;
    }
}
