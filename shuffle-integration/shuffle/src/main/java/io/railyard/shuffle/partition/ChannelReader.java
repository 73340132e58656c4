package io.railyard.shuffle.partition;

import org.jspecify.annotations.Nullable;

/**
 * One input channel of a gate: a cursor over the sections of one subpartition of one partition (for
 * a blocking partition: region, byte offset, bytes left in the section, frame order of its lanes;
 * for a hybrid one: its {@link HybridReader}). The cursor fields are confined to the IO thread;
 * {@code done} is volatile. Its turn (waiting, in service) is its gate's, kept by the gate under
 * its lock.
 */
final class ChannelReader implements Runnable, SectionCursor {
    final LocalInputGate gate;
    final int index;
    final ResultPartition partition;
    private final int subpartition;
    @Nullable ReadFile file;
    boolean started;
    volatile boolean done;

    /** Bytes worth reading for it this turn (its gate's {@link LocalInputGate#turnBytes()}). */
    long turnBytes;

    /** The reader of a hybrid partition, once the IO thread attached it. */
    @Nullable HybridReader hybrid;

    int region;
    long offset;
    long remaining;
    final LaneOrder order;

    ChannelReader(LocalInputGate gate, int index, ResultPartition partition, int subpartition) {
        this.gate = gate;
        this.index = index;
        this.partition = partition;
        this.subpartition = subpartition;
        this.order = new LaneOrder(subpartition);
    }

    @Override
    public int subpartition() {
        return subpartition;
    }

    /**
     * Its hybrid partition has new data for it (the reader's waker: the channel itself, so that a
     * channel carries no callback object of its own).
     */
    @Override
    public void run() {
        gate.dataAvailable(this);
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
