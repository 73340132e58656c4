package io.railyard.shuffle.partition;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.LaneStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Writes a sort-based partition of few subpartitions in the sort format ({@link SortFile}) without
 * the sort buffer: each lane (every subpartition and the broadcast lane) writes its records
 * straight into frames in a page of its own, as the hash writer does, and a full page joins the
 * lane's chain of the current region; when no page is free, the region is written — every lane's
 * chain in subpartition order, one gathering write, no copy — and the pages come back. So a record
 * is copied once (into its frame), where the sort buffer copies it twice (into the buffer, then
 * into a frame): at one subpartition the sort writer was slower than the hash writer by that copy.
 * Flink's sort-merge partition makes the same choice (a hash-based data buffer while it has a
 * buffer per subpartition).
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Used when every lane can hold a page and as many again are left for chains ({@link #fits});
 *       memory is the sort writer's ({@link SortFormatWriter#pagesNeeded}): its sort and batch
 *       pages serve as lane pages.
 *   <li>A region ends when the pages run out, possibly inside a record: the record's frames
 *       continue in the next region's section of its lane, and a reader reads a lane's sections as
 *       one stream of frames numbered across regions. A switch between broadcast and unicast
 *       records ends the region first, as in the sort buffer, which keeps both kinds in order in
 *       every subpartition.
 *   <li>Pages are named by index: the lanes fill their views, the writes use a second view of the
 *       same memory, so writing a chain never disturbs a lane's page.
 * </ul>
 *
 * <p>Not thread-safe: owned by the producing task's thread. Appending is O(record length) and
 * allocates nothing; a region write is O(lanes + pages).
 */
final class LanePartitionWriter extends SortFormatWriter {
    private static final int EMPTY = 0;
    private static final int UNICAST = 1;
    private static final int BROADCAST = 2;
    private static final int NONE = -1;

    /** A region ends once its first section streamed this much (sections stay below 2 GiB). */
    private static final long STREAM_LIMIT = 1L << 30;

    private final ByteBuffer[] fill;
    private final ByteBuffer[] write;
    private final int[] free;
    private int freeCount;
    // Lanes 0..n-1 are the subpartitions, lane n the broadcast lane.
    private final LaneStream[] lanes;
    private final int[] current;
    private final int[][] chain;
    private final int[][] chainBytes;
    private final int[] chainLength;
    private final ByteBuffer[] gather;
    private int mode = EMPTY;
    private boolean writingRegion;
    private boolean regionBegun;
    // Bytes of the region's first section written as its pages filled (see pageFull).
    private long streamed;

    LanePartitionWriter(Parts parts) {
        super(parts);
        List<Page> pages = parts.pages();
        int numSubpartitions = parts.numSubpartitions();
        int arena = workingPages(parts.options());
        this.fill = new ByteBuffer[arena];
        this.write = new ByteBuffer[arena];
        for (int i = 0; i < arena; i++) {
            fill[i] = pages.get(i).buffer();
            write[i] = fill[i].duplicate();
        }
        int laneCount = numSubpartitions + 1;
        this.lanes = new LaneStream[laneCount];
        this.current = new int[laneCount];
        this.chain = new int[laneCount][arena];
        this.chainBytes = new int[laneCount][arena];
        this.chainLength = new int[laneCount];
        this.gather = new ByteBuffer[arena];
        this.free = new int[arena];
        for (int lane = 0; lane < laneCount; lane++) {
            int index = lane;
            current[lane] = index;
            lanes[lane] = new LaneStream(codec, scratch, page -> pageFull(index), fill[index]);
            lanes[lane].start(lane == numSubpartitions ? FrameCodec.BROADCAST_LANE : lane, 0);
        }
        for (int i = laneCount; i < arena; i++) {
            free[freeCount++] = i;
        }
    }

    /**
     * Whether a writer of {@code numSubpartitions} is one of these: every lane (n + 1) can hold a
     * page, and as many pages again are left for the chains.
     */
    static boolean fits(ShuffleOptions options, int numSubpartitions) {
        long lanes = numSubpartitions + 1L;
        return 2 * lanes <= workingPages(options);
    }

    @Override
    void append(ByteBuffer record, int subpartition) throws IOException {
        add(record, subpartition, UNICAST);
    }

    @Override
    void appendBroadcast(ByteBuffer record) throws IOException {
        add(record, numSubpartitions(), BROADCAST);
    }

    private void add(ByteBuffer record, int lane, int recordMode) throws IOException {
        if (mode != recordMode) {
            writeRegion(NONE); // broadcast and unicast never share a region
            mode = recordMode;
        }
        LaneStream stream = lanes[lane];
        stream.putLength(record.remaining());
        stream.putBytes(record);
    }

    @Override
    BlockingPartition complete() throws IOException {
        writeRegion(NONE);
        return file.finish(id());
    }

    /**
     * {@link LaneStream.FrameOutput} of {@code lane}: its page of sealed frames joins its chain;
     * returns the page it fills next — the same one while the region is being written (it is
     * written before the lane writes again), else a free page, after writing the region if none is
     * left.
     */
    private ByteBuffer pageFull(int lane) throws IOException {
        int page = current[lane];
        if (!writingRegion && lane == firstLane()) {
            return stream(lane, page);
        }
        int at = chainLength[lane]++;
        chain[lane][at] = page;
        chainBytes[lane][at] = fill[page].limit();
        if (writingRegion) {
            return fill[page];
        }
        if (freeCount == 0) {
            current[lane] = NONE; // its page is written with the region and comes back
            writeRegionInsideRecord(lane);
        }
        current[lane] = free[--freeCount];
        return fill[current[lane]];
    }

    /** Ends the region while {@code lane} writes a record, which goes on in the next region. */
    private void writeRegionInsideRecord(int lane) throws IOException {
        int recordMode = mode;
        writeRegion(lane);
        mode = recordMode; // the next region is of the same kind
    }

    /** Bytes the chains hold. O(lanes). */
    private long chainedBytes() {
        long bytes = 0;
        for (int lane = 0; lane < lanes.length; lane++) {
            bytes += (long) chainLength[lane] * fill[0].capacity();
        }
        return bytes;
    }

    /** The lane whose section opens the region: the only one streamed. */
    private int firstLane() {
        return mode == BROADCAST ? numSubpartitions() : mode == UNICAST ? 0 : NONE;
    }

    /**
     * Writes a full page of the region's first section at once (nothing precedes it in the region,
     * so its bytes need not wait in a chain): the page stays the lane's, and the bytes written pass
     * through the cache once, as the hash writer's do. At one subpartition nothing is buffered.
     */
    private ByteBuffer stream(int lane, int page) throws IOException {
        if (!regionBegun) {
            file.beginRegion(Long.MAX_VALUE); // it streams full pages: a large region
            regionBegun = true;
        }
        gather[0] = write[page].limit(fill[page].limit()).position(0);
        streamed += gather[0].remaining();
        file.write(gather, 1);
        if (streamed >= STREAM_LIMIT) {
            writeRegionInsideRecord(lane);
        }
        return fill[page];
    }

    /**
     * Writes the region the chains hold, if any: seals every lane's open frame ({@code
     * handingOver}, whose page is being handed over right now, has none) and writes each lane's
     * chain as its section, in subpartition order (or the broadcast chain as the one section).
     */
    private void writeRegion(int handingOver) throws IOException {
        writingRegion = true;
        try {
            for (int lane = 0; lane < lanes.length; lane++) {
                if (lane != handingOver) {
                    lanes[lane].finishLane();
                    lanes[lane].drain();
                }
            }
            if (mode != EMPTY) {
                if (!regionBegun) {
                    file.beginRegion(chainedBytes());
                }
                if (mode == BROADCAST) {
                    writeChain(numSubpartitions(), FrameCodec.BROADCAST_LANE);
                } else {
                    for (int s = 0; s < numSubpartitions(); s++) {
                        writeChain(s, s);
                    }
                }
                file.endRegion();
            }
        } finally {
            writingRegion = false;
        }
        mode = EMPTY;
        regionBegun = false;
        streamed = 0;
    }

    /**
     * Writes {@code lane}'s chain as one section (after what it streamed, if it opens the region)
     * and frees its pages but the lane's own.
     */
    private void writeChain(int lane, int sectionLane) throws IOException {
        int length = chainLength[lane];
        long bytes = lane == firstLane() ? streamed : 0;
        for (int i = 0; i < length; i++) {
            int page = chain[lane][i];
            gather[i] = write[page].limit(chainBytes[lane][i]).position(0);
            bytes += chainBytes[lane][i];
            if (page != current[lane]) {
                free[freeCount++] = page;
            }
        }
        if (length > 0) {
            file.write(gather, length);
        }
        file.section(sectionLane, bytes);
        chainLength[lane] = 0;
    }
}
