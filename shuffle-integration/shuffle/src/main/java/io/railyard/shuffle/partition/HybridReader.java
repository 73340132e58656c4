package io.railyard.shuffle.partition;

import io.railyard.shuffle.buffer.Page;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * One reader of one subpartition of a {@link HybridPartition}: a cursor (region, byte of its
 * section, next frame number of its lane and of the broadcast lane) and the frame loop that takes
 * frames from memory or disk, wherever the partition says they are, checks them, and hands them to
 * a {@link FrameSink}.
 *
 * <p>Not thread-safe: owned by the worker's IO thread (or a test's thread). The cursor fields are
 * written under the partition's lock by {@link HybridPartition}.
 */
final class HybridReader {
    private static final Path NO_FILE = Path.of("");

    /** Where the reader's next bytes are. */
    enum Where {
        /** In resident pages (the region is pinned until the reader reports what it took). */
        MEMORY,
        /** In the data file or the spill file. */
        DISK,
        /** Not produced yet: the reader is parked and woken when a region arrives. */
        WAIT,
        /** Nowhere: the producer finished and the reader took everything. */
        END
    }

    /** Takes checked frames. */
    @FunctionalInterface
    interface FrameSink {
        /**
         * Takes the frame whose header {@code header} views and whose stored payload is {@code
         * stored[position, limit)}; false, taking nothing, if it has no room now.
         */
        boolean accept(FrameHeader header, ByteBuffer stored, FrameContext at) throws IOException;
    }

    final HybridPartition partition;
    final int subpartition;
    // Made on the first read from memory: a reader that never reads from memory (a gate of many
    // channels that each get little) does not carry one.
    private @Nullable FrameHeader memoryHeader;
    private @Nullable Runnable waker;

    // The cursor; written by the partition under its lock.
    int region;
    int offset;
    // The current extent, set by HybridPartition#locate.
    int section;
    int left;
    @Nullable HybridRegion memory;
    int streamAt;
    @Nullable FileChannel file;
    Path path = NO_FILE;
    long position;
    // Continuity: the next frame numbers.
    private int laneSequence;
    private int broadcastSequence;
    private int took;

    HybridReader(HybridPartition partition, int subpartition) {
        this.partition = partition;
        this.subpartition = subpartition;
    }

    /** Called when new data arrives after {@link Where#WAIT} (or the partition is lost). */
    void onData(Runnable waker) {
        this.waker = waker;
    }

    void wake() {
        Runnable run = waker;
        if (run != null) {
            run.run();
        }
    }

    /**
     * Hands frames to {@code sink} until it refuses one ({@link Where#MEMORY} or {@link
     * Where#DISK}: more is there), no data is there yet ({@link Where#WAIT}), or the end ({@link
     * Where#END}). Checks every frame's length, lane and number before the sink sees it.
     *
     * @throws PartitionLostException if the partition is lost or a frame fails a check
     */
    Where read(FrameCodec codec, ReadStaging staging, FrameContext context, FrameSink sink)
            throws IOException {
        return read(codec, staging, context, sink, Long.MAX_VALUE);
    }

    /**
     * As {@link #read(FrameCodec, ReadStaging, FrameContext, FrameSink)}, reading at most about
     * {@code diskBudget} bytes from the file (what the sink can take: the channel's credit), and at
     * least a page per read so that a frame always fits: frames the sink refuses are read again on
     * the next turn, so reading far beyond the credit would read them twice.
     */
    Where read(
            FrameCodec codec,
            ReadStaging staging,
            FrameContext context,
            FrameSink sink,
            long diskBudget)
            throws IOException {
        long budget = diskBudget;
        while (true) {
            Where where = partition.locate(this);
            if (where == Where.WAIT || where == Where.END) {
                return where;
            }
            boolean fromMemory = where == Where.MEMORY;
            int wanted = left;
            took = 0;
            boolean refused;
            try {
                refused =
                        fromMemory
                                ? !readMemory(codec, context, sink)
                                : !readDisk(codec, staging, context, sink, budget);
            } finally {
                partition.consumed(this, took, fromMemory);
            }
            if (!fromMemory) {
                budget -= took;
            }
            if (refused && took < wanted) {
                return where;
            }
        }
    }

    /** Frames out of the pinned region's pages; false if the sink refused one. */
    private boolean readMemory(FrameCodec codec, FrameContext context, FrameSink sink)
            throws IOException {
        HybridRegion region = java.util.Objects.requireNonNull(memory);
        Page[] pages = java.util.Objects.requireNonNull(region.pages);
        int[] starts = region.pageStart();
        int at = streamAt;
        int end = streamAt + left;
        int page = region.pageOf(at);
        // Views of their own: IO threads of other workers may read the same pages at once.
        int viewed = page;
        ByteBuffer buffer = pages[page].buffer().duplicate();
        while (at < end) {
            while (at >= starts[page + 1]) {
                page++;
            }
            if (page != viewed) {
                buffer = pages[page].buffer().duplicate();
                viewed = page;
            }
            int inPage = at - starts[page];
            context.at(partition, partition.dataFile(), at).inMemory(region.index);
            FrameHeader reused = memoryHeader;
            if (reused == null) {
                reused = new FrameHeader();
                memoryHeader = reused;
            }
            FrameHeader header = reused.wrap(buffer, inPage);
            int frameLength = codec.frameLength(header, context);
            if (frameLength > end - at || inPage + frameLength > starts[page + 1] - starts[page]) {
                throw context.corrupt(
                        "frame of " + frameLength + " bytes runs past its section or page");
            }
            checkLane(header, context);
            ByteBuffer stored =
                    buffer.limit(inPage + frameLength).position(inPage + FrameHeader.BYTES);
            boolean accepted;
            try {
                accepted = sink.accept(header, stored, context);
            } finally {
                buffer.clear();
            }
            if (!accepted) {
                return false;
            }
            countFrame(header);
            at += frameLength;
            took += frameLength;
        }
        return true;
    }

    /** Frames out of one read of the file; false if the sink refused one. */
    private boolean readDisk(
            FrameCodec codec,
            ReadStaging staging,
            FrameContext context,
            FrameSink sink,
            long budget)
            throws IOException {
        FileChannel channel = java.util.Objects.requireNonNull(file);
        long wanted = Math.max(budget, staging.pageSize());
        int length = (int) Math.min(left, Math.min(staging.capacity(), wanted));
        int got;
        try {
            got = staging.read(channel, position, length);
        } catch (IOException e) {
            throw new PartitionLostException(
                    partition.name(),
                    partition.id(),
                    "reading " + path + " at " + position + ": " + e,
                    e);
        }
        int at = 0;
        while (at < left) {
            context.at(partition, path, position + at);
            if (at + FrameHeader.BYTES > got) {
                return checkNotTruncated(got < length, context);
            }
            FrameHeader header = staging.header(at);
            int frameLength = codec.frameLength(header, context);
            if (frameLength > left - at) {
                throw context.corrupt(
                        "frame of "
                                + frameLength
                                + " bytes runs past its section ("
                                + (left - at)
                                + " bytes left)");
            }
            if (at + frameLength > got) {
                return checkNotTruncated(got < length, context);
            }
            checkLane(header, context);
            if (!sink.accept(header, staging.stored(at, frameLength), context)) {
                return false;
            }
            countFrame(header);
            at += frameLength;
            took += frameLength;
        }
        return true;
    }

    /** A frame cut by the end of the read: read on next time, unless the file ended there. */
    private static boolean checkNotTruncated(boolean endOfFile, FrameContext context)
            throws CorruptPartitionFileException {
        if (endOfFile) {
            throw context.corrupt("the file ends inside a frame (truncated)");
        }
        return true;
    }

    private void checkLane(FrameHeader header, FrameContext context)
            throws CorruptPartitionFileException {
        int lane = header.lane();
        int expected;
        if (lane == FrameCodec.BROADCAST_LANE) {
            expected = broadcastSequence;
        } else if (lane == subpartition) {
            expected = laneSequence;
        } else {
            throw context.corrupt(
                    "frame of lane " + lane + " in a section of subpartition " + subpartition);
        }
        if (header.sequence() != expected) {
            throw context.corrupt("frame number " + header.sequence() + ", expected " + expected);
        }
    }

    private void countFrame(FrameHeader header) {
        if (header.lane() == FrameCodec.BROADCAST_LANE) {
            broadcastSequence++;
        } else {
            laneSequence++;
        }
    }
}
