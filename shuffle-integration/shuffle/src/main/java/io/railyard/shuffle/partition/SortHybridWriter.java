package io.railyard.shuffle.partition;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.LaneStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A {@link HybridPartitionWriter} for any number of subpartitions: records are collected in a sort
 * buffer (memory independent of the number of subpartitions) and drained as one region when the
 * buffer is full, on {@link #flush()}, and at {@link #finish()}.
 *
 * <p>A region is sealed into pages borrowed one at a time while memory allows (it is then
 * resident); when a page cannot be borrowed, what the region holds so far is written to the data
 * file, its pages go back, and the rest of the region is written as it is sealed, through the one
 * guaranteed page: that region lives on disk only.
 *
 * <p>Not thread-safe: owned by the producing task's thread. Appending is O(record length); a drain
 * is O(buffered bytes + subpartitions).
 */
final class SortHybridWriter extends HybridPartitionWriter {
    private final int numSubpartitions;
    private final SortBuffer buffer;
    private final LaneStream lane;
    private final SortBuffer.SectionSink sink = this::section;
    private final SortBuffer.Overflow overflow = new Overflow();
    private final ByteBuffer slot;
    private final List<Page> regionPages = new ArrayList<>();
    private int[] pageStarts = new int[16];
    private int[] sectionStart = new int[0];
    private int sections;
    private boolean regionBroadcast;
    private boolean resident;
    private boolean regionEnding;
    private @Nullable Page filling;
    private long regionFileOffset;

    SortHybridWriter(Parts parts) {
        super(parts);
        this.numSubpartitions = parts.partition().numSubpartitions();
        ShuffleOptions options = parts.options();
        List<Page> pages = parts.pages();
        int sortPages = options.sortBufferPages();
        ByteBuffer[] arena = new ByteBuffer[sortPages];
        for (int i = 0; i < sortPages; i++) {
            arena[i] = pages.get(i).buffer();
        }
        this.buffer = new SortBuffer(arena, options.pageSizeBytes(), numSubpartitions);
        this.slot = pages.get(sortPages).buffer();
        FrameCodec codec = new FrameCodec(options);
        @Nullable ByteBuffer scratch =
                codec.compresses() ? pages.get(sortPages + 1).buffer() : null;
        this.lane = new LaneStream(codec, scratch, this::writePage, slot);
    }

    @Override
    void append(ByteBuffer record, int subpartition) throws IOException {
        buffer.append(record, subpartition, overflow);
    }

    @Override
    void appendBroadcast(ByteBuffer record) throws IOException {
        buffer.append(record, FrameCodec.BROADCAST_LANE, overflow);
    }

    /** When a record does not fit the buffer: seal what it holds; a huge record is sealed alone. */
    private final class Overflow implements SortBuffer.Overflow {
        @Override
        public void spill() throws IOException {
            sealBuffered();
        }

        @Override
        public void writeAlone(ByteBuffer record, int recordLane) throws IOException {
            beginRegion(recordLane == FrameCodec.BROADCAST_LANE);
            buffer.drainAlone(record, recordLane, lane, sink);
            endRegion();
        }
    }

    /** A page per page of buffered bytes, and one for the frames' headers. */
    @Override
    int pagesToSeal() {
        return buffer.isEmpty() ? 0 : buffer.bufferedBytes() / buffer.pageSize() + 2;
    }

    @Override
    void sealBuffered() throws IOException {
        if (!buffer.isEmpty()) {
            beginRegion(buffer.isBroadcast());
            buffer.drain(lane, sink);
            endRegion();
        }
    }

    @Override
    void discardWorking() {
        Page current = filling;
        filling = null;
        for (Page page : regionPages) {
            owner().recycle(page);
        }
        regionPages.clear();
        if (current != null) {
            owner().recycle(current);
        }
    }

    // ---- one region ----

    private void beginRegion(boolean broadcast) throws IOException {
        regionBroadcast = broadcast;
        sectionStart = new int[broadcast ? 2 : numSubpartitions + 1];
        sections = 0;
        regionPages.clear();
        resident = false;
        regionFileOffset = dataEnd();
        if (mayStayResident()) {
            Page first = borrow();
            if (first != null) {
                resident = true;
                filling = first;
                lane.switchPage(first.buffer());
            }
        }
    }

    /** {@link SortBuffer.SectionSink}: the section of {@code sectionLane} ended. */
    private void section(int sectionLane, long bytes) throws IOException {
        long end = (long) sectionStart[sections] + bytes;
        if (end > Integer.MAX_VALUE) {
            throw new IOException("a hybrid region of " + end + " bytes exceeds 2 GiB - 1");
        }
        sectionStart[++sections] = (int) end;
    }

    /**
     * {@link LaneStream.FrameOutput}: a page of sealed frames. Resident: it joins the region and a
     * fresh page is borrowed (if none can be, the region moves to disk); else it is written.
     */
    private ByteBuffer writePage(ByteBuffer page) throws IOException {
        if (!resident) {
            writeData(page);
            return page;
        }
        Page full = Objects.requireNonNull(filling);
        filling = null;
        addRegionPage(full, page.limit());
        if (regionEnding) {
            return slot;
        }
        Page next = borrow();
        if (next == null) {
            moveToDisk();
            return slot;
        }
        filling = next;
        return next.buffer();
    }

    private void endRegion() throws IOException {
        regionEnding = true;
        try {
            lane.drain();
        } finally {
            regionEnding = false;
        }
        if (resident) {
            Page unused = filling; // borrowed for frames that did not come: the region ended
            filling = null;
            if (unused != null) {
                lane.switchPage(slot);
                owner().recycle(unused);
            }
            Page[] pages = regionPages.toArray(new Page[0]);
            int[] starts = Arrays.copyOf(pageStarts, pages.length + 1);
            regionPages.clear();
            publishResident(regionBroadcast, sectionStart, pages, starts);
        } else {
            publishOnDisk(regionBroadcast, sectionStart, regionFileOffset);
        }
    }

    private void addRegionPage(Page page, int bytes) {
        int index = regionPages.size();
        if (index + 1 >= pageStarts.length) {
            pageStarts = Arrays.copyOf(pageStarts, pageStarts.length * 2);
        }
        if (index == 0) {
            pageStarts[0] = 0;
        }
        pageStarts[index + 1] = pageStarts[index] + bytes;
        regionPages.add(page);
    }

    /** The region cannot stay in memory: what it holds goes to the data file, its pages back. */
    private void moveToDisk() throws IOException {
        for (int i = 0; i < regionPages.size(); i++) {
            ByteBuffer page = regionPages.get(i).buffer();
            page.limit(pageStarts[i + 1] - pageStarts[i]).position(0);
            writeData(page);
        }
        for (Page page : regionPages) {
            owner().recycle(page);
        }
        regionPages.clear();
        resident = false;
    }
}
