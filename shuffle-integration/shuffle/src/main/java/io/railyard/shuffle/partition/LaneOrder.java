package io.railyard.shuffle.partition;

import io.railyard.shuffle.format.CorruptPartitionFileException;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.FrameContext;
import io.railyard.shuffle.format.FrameHeader;

/**
 * The order a reader of one subpartition checks frames in: each belongs to the subpartition's lane
 * or to the broadcast lane, and each lane numbers its frames from 0. Every reader of partition
 * frames (a gate's channel, a hybrid reader, a data server's section reader) keeps one. Confined to
 * its reader's thread; O(1), allocating only the exception it throws.
 */
final class LaneOrder {
    private final int subpartition;
    private int lane;
    private int broadcast;

    LaneOrder(int subpartition) {
        this.subpartition = subpartition;
    }

    /**
     * Checks that {@code header}'s frame is the next of the subpartition's lane or of the broadcast
     * lane.
     *
     * @throws CorruptPartitionFileException naming {@code at} otherwise
     */
    void check(FrameHeader header, FrameContext at) throws CorruptPartitionFileException {
        int frameLane = header.lane();
        int expected;
        if (frameLane == FrameCodec.BROADCAST_LANE) {
            expected = broadcast;
        } else if (frameLane == subpartition) {
            expected = lane;
        } else {
            throw at.corrupt(
                    "frame of lane " + frameLane + " in a section of subpartition " + subpartition);
        }
        if (header.sequence() != expected) {
            throw at.corrupt("frame number " + header.sequence() + ", expected " + expected);
        }
    }

    /** Counts {@code header}'s frame as read (checked by {@link #check}). */
    void count(FrameHeader header) {
        if (header.lane() == FrameCodec.BROADCAST_LANE) {
            broadcast++;
        } else {
            lane++;
        }
    }
}
