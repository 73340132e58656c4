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
    private static final int ANY = -1;

    private final int subpartition;
    private int lane;
    private int broadcast;

    /** The order of a reader from a lane's first frame, numbered 0. */
    LaneOrder(int subpartition) {
        this.subpartition = subpartition;
    }

    private LaneOrder(int subpartition, int first) {
        this.subpartition = subpartition;
        this.lane = first;
        this.broadcast = first;
    }

    /**
     * The order of a reader that starts in the middle of its lanes (one region of a stream): the
     * first frame of each lane may have any number, the next ones follow it.
     */
    static LaneOrder fromAny(int subpartition) {
        return new LaneOrder(subpartition, ANY);
    }

    /** Starts again in the middle of its lanes, as {@link #fromAny} does. */
    void restartAnywhere() {
        lane = ANY;
        broadcast = ANY;
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
        if (expected != ANY && header.sequence() != expected) {
            throw at.corrupt("frame number " + header.sequence() + ", expected " + expected);
        }
    }

    /** Counts {@code header}'s frame as read (checked by {@link #check}). */
    void count(FrameHeader header) {
        if (header.lane() == FrameCodec.BROADCAST_LANE) {
            broadcast = header.sequence() + 1;
        } else {
            lane = header.sequence() + 1;
        }
    }
}
