package io.railyard.shuffle.partition;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.LaneStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A {@link HybridPartitionWriter} for few subpartitions: each lane (every subpartition and the
 * broadcast lane) writes its records straight into frames in a page of its own, and a page full of
 * frames is published at once as a region of one section — resident in that page, with a borrowed
 * page taking its place in the lane, or written to the data file when no page can be borrowed, the
 * lane then filling its page again. A record is copied once (into its frame), where the sort buffer
 * copies it twice; consumers see data a page at a time, without waiting for a buffer to fill.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Used when every lane can hold one of the writer's sort pages ({@link #lanesFit}); memory is
 *       the sort writer's ({@link #pagesNeeded}).
 *   <li>A record may continue in the lane's next page, so in its next region: a reader reads its
 *       lane's sections as one stream of frames numbered across regions, as in {@link
 *       LanePartitionWriter}'s files. A switch between broadcast and unicast records publishes
 *       every lane's open page first, which keeps both kinds in order in every subpartition.
 *   <li>A reader steps over the regions of other lanes (empty sections for it): O(lanes) per page
 *       it reads, which is why the worker prefers lanes only for few subpartitions.
 * </ul>
 *
 * <p>Not thread-safe: owned by the producing task's thread. Appending is O(record length) and
 * allocates nothing but a region per page filled.
 */
final class LaneHybridWriter extends HybridPartitionWriter {
    private static final int EMPTY = 0;
    private static final int UNICAST = 1;
    private static final int BROADCAST = 2;

    private final int numSubpartitions;
    // The writer's working pages (the base class returns them): lane i fills pages.get(i).
    private final List<Page> pages;
    // Lanes 0..n-1 are the subpartitions, lane n the broadcast lane.
    private final LaneStream[] lanes;
    private int mode = EMPTY;

    LaneHybridWriter(Parts parts) {
        super(parts);
        ShuffleOptions options = parts.options();
        this.numSubpartitions = parts.partition().numSubpartitions();
        this.pages = parts.pages();
        FrameCodec codec = new FrameCodec(options);
        @Nullable ByteBuffer scratch =
                codec.compresses() ? pages.get(options.sortBufferPages() + 1).buffer() : null;
        this.lanes = new LaneStream[numSubpartitions + 1];
        for (int lane = 0; lane <= numSubpartitions; lane++) {
            int index = lane;
            lanes[lane] =
                    new LaneStream(
                            codec,
                            scratch,
                            page -> pageFull(index, page),
                            pages.get(lane).buffer());
            lanes[lane].start(lane == numSubpartitions ? FrameCodec.BROADCAST_LANE : lane, 0);
        }
    }

    /** Each full lane page is published at once, alone: nothing to pause for. */
    @Override
    int pagesToSeal() {
        return 0;
    }

    @Override
    void append(ByteBuffer record, int subpartition) throws IOException {
        add(record, subpartition, UNICAST);
    }

    @Override
    void appendBroadcast(ByteBuffer record) throws IOException {
        add(record, numSubpartitions, BROADCAST);
    }

    private void add(ByteBuffer record, int lane, int recordMode) throws IOException {
        if (mode != recordMode) {
            sealBuffered(); // broadcast and unicast records never share a region
            mode = recordMode;
        }
        LaneStream stream = lanes[lane];
        stream.putLength(record.remaining());
        stream.putBytes(record);
    }

    /** Publishes every lane's open page. O(lanes). */
    @Override
    void sealBuffered() throws IOException {
        if (mode == BROADCAST) {
            seal(numSubpartitions);
        } else if (mode == UNICAST) {
            for (int lane = 0; lane < numSubpartitions; lane++) {
                seal(lane);
            }
        }
        mode = EMPTY;
    }

    private void seal(int lane) throws IOException {
        lanes[lane].finishLane();
        lanes[lane].drain();
    }

    @Override
    void discardWorking() {
        // Every page the writer holds is one of its working pages: the base class returns them.
    }

    /**
     * {@link LaneStream.FrameOutput} of {@code lane}: its page of sealed frames becomes a region of
     * one section; returns the page the lane fills next.
     */
    private ByteBuffer pageFull(int lane, ByteBuffer frames) throws IOException {
        int bytes = frames.limit();
        boolean broadcast = lane == numSubpartitions;
        int[] sectionStart;
        if (broadcast) {
            sectionStart = new int[] {0, bytes};
        } else {
            sectionStart = new int[numSubpartitions + 1];
            Arrays.fill(sectionStart, lane + 1, numSubpartitions + 1, bytes);
        }
        Page next = mayStayResident() ? borrow() : null;
        if (next == null) {
            long at = dataEnd();
            writeData(frames);
            publishOnDisk(broadcast, sectionStart, at);
            return frames; // the lane fills it again
        }
        Page full = pages.set(lane, next); // the full page goes to the region, the borrowed one
        publishResident(broadcast, sectionStart, new Page[] {full}, new int[] {0, bytes});
        return next.buffer();
    }
}
