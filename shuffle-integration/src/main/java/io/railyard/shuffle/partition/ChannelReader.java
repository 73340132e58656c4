package io.railyard.shuffle.partition;

import org.jspecify.annotations.Nullable;

/**
 * One input channel of a gate: a cursor over the sections of one subpartition of one partition
 * (region, byte offset, bytes left in the section, next frame number of its lane and of the
 * broadcast lane). Cursor fields belong to the IO thread; {@code scheduled} is guarded by the
 * scheduler's lock.
 */
final class ChannelReader {
    final InputGate gate;
    final int index;
    final BlockingPartition partition;
    private final int subpartition;
    @Nullable ReadFile file;
    boolean scheduled;
    boolean started;
    volatile boolean done;

    /** Pages the gate reserved for this channel's current turn; guarded by the gate. */
    int credit;

    /** Whether it waits in its gate's FIFO for a turn; guarded by the gate. */
    boolean wanting;

    int region;
    long offset;
    long remaining;
    int laneSequence;
    int broadcastSequence;

    ChannelReader(InputGate gate, int index, BlockingPartition partition, int subpartition) {
        this.gate = gate;
        this.index = index;
        this.partition = partition;
        this.subpartition = subpartition;
    }

    int subpartition() {
        return subpartition;
    }

    void setSection(long offset, long length) {
        this.offset = offset;
        this.remaining = length;
    }
}
