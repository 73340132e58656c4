package io.railyard.shuffle.partition;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.format.CorruptPartitionFileException;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.FrameContext;
import io.railyard.shuffle.format.FrameHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One reader of one subpartition of a {@link HybridPartition}: a cursor (region, byte of its
 * section, next frame number of its lane and of the broadcast lane) and the frame loop that takes
 * frames from memory or disk, wherever the partition says they are, checks them, and hands them to
 * a {@link FrameSink}.
 *
 * <p>Not thread-safe: confined to the worker's IO thread (or a test's thread). The partition moves
 * the cursor and points it at the next bytes through the methods below, called on that thread from
 * {@link #read} (under the partition's lock, which guards none of these fields: no other thread
 * touches them). Only {@link #wake()} is called from other threads.
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

    private final HybridPartition partition;
    private final int subpartition;
    private final Runnable waker;
    // Made on the first read from memory: a reader that never reads from memory (a gate of many
    // channels that each get little) does not carry one.
    private @Nullable FrameHeader memoryHeader;

    // The cursor: region, and byte of its section; the end of the regions it reads.
    private int region;
    private final int endRegion;
    private int offset;
    // The current extent, set by the partition (atMemory, atDisk): bytes left of the section, and
    // either a pinned region's pages with the stream offset of the next byte, or a file position.
    private int left;
    private @Nullable HybridRegion memory;
    private Page @Nullable [] memoryPages;
    private int streamAt;
    private @Nullable FileChannel file;
    private Path path = NO_FILE;
    private long position;
    private final LaneOrder order; // continuity: the next frame numbers
    private int took;

    /**
     * A reader of {@code subpartition}'s sections of regions {@code [fromRegion, endRegion)}, at
     * the first frame of the first ({@code endRegion} {@link Integer#MAX_VALUE}: the whole stream,
     * from region 0); {@code waker} runs on new data. A reader that starts past region 0 does not
     * know the number of its lanes' first frames: it checks that they follow each other from the
     * first it reads.
     */
    HybridReader(
            HybridPartition partition,
            int subpartition,
            Runnable waker,
            int fromRegion,
            int endRegion) {
        this.partition = partition;
        this.subpartition = subpartition;
        this.order =
                fromRegion == 0 ? new LaneOrder(subpartition) : LaneOrder.fromAny(subpartition);
        this.waker = waker;
        this.region = fromRegion;
        this.endRegion = endRegion;
    }

    /** The end of the regions it reads (exclusive), or {@link Integer#MAX_VALUE}. */
    int endRegion() {
        return endRegion;
    }

    /** The partition read. */
    HybridPartition partition() {
        return partition;
    }

    /** The subpartition read. */
    int subpartition() {
        return subpartition;
    }

    /** Runs the waker: new data arrived after {@link Where#WAIT} (or the partition is lost). */
    void wake() {
        waker.run();
    }

    // ---- the cursor, moved by the partition ----

    /** The region the cursor is in. */
    int region() {
        return region;
    }

    /** The byte of the region's section the cursor is at. */
    int offset() {
        return offset;
    }

    /** Moves the cursor to the first byte of the next region. */
    void nextRegion() {
        region++;
        offset = 0;
    }

    /**
     * Points the reader at the next {@code left} bytes in the pinned {@code pages} of {@code
     * pinned}, from stream byte {@code streamAt}.
     */
    void atMemory(HybridRegion pinned, Page[] pages, int streamAt, int left) {
        this.memory = pinned;
        this.memoryPages = pages;
        this.streamAt = streamAt;
        this.left = left;
    }

    /** Points the reader at the next {@code left} bytes at {@code position} of {@code file}. */
    void atDisk(FileChannel file, Path path, long position, int left) {
        this.memory = null;
        this.memoryPages = null;
        this.file = file;
        this.path = path;
        this.position = position;
        this.left = left;
    }

    /**
     * Moves the cursor over the {@code bytes} taken of the current extent; returns the region whose
     * pages the reader had pinned (the caller unpins it), or null if it read from disk.
     */
    @Nullable HybridRegion advance(int bytes) {
        offset += bytes;
        return releasePin();
    }

    /** Forgets the pinned region, if any, and returns it (the caller unpins it). */
    @Nullable HybridRegion releasePin() {
        HybridRegion pinned = memory;
        memory = null;
        memoryPages = null;
        return pinned;
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
        HybridRegion region = Objects.requireNonNull(memory);
        Page[] pages = Objects.requireNonNull(memoryPages);
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
            context.at(partition.id(), partition.dataFile(), at).inMemory(region.index());
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
            order.check(header, context);
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
            order.count(header);
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
        FileChannel channel = Objects.requireNonNull(file);
        long wanted = Math.max(budget, staging.pageSize());
        int length = (int) Math.min(left, Math.min(staging.capacity(), wanted));
        int got;
        try {
            got = staging.read(channel, position, length);
        } catch (IOException e) {
            throw new PartitionLostException(
                    partition.id(), "reading " + path + " at " + position + ": " + e, e);
        }
        int at = 0;
        while (at < left) {
            context.at(partition.id(), path, position + at);
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
            order.check(header, context);
            if (!sink.accept(header, staging.stored(at, frameLength), context)) {
                return false;
            }
            order.count(header);
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
}
