package io.railyard.shuffle.partition;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.NetworkBufferPool;
import io.railyard.shuffle.buffer.Page;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The producer's side of a {@link HybridPartition}: records are collected in a sort buffer (memory
 * independent of the number of subpartitions) and sealed into regions that consumers can read at
 * once — when the buffer is full, on {@link #flush()}, and at {@link #finish()}.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Memory: the guarantee is {@code sort-buffer-pages + 1 [+ 1 LZ4 scratch]} pages. A region is
 *       sealed into pages borrowed one at a time beyond it while the pool's pages in use stay below
 *       {@code shuffle.hybrid.memory-fraction} of all pages (and, if set, enough consumers are
 *       attached); the region is then <em>resident</em>. When a page cannot be borrowed, what the
 *       region holds so far is written to the data file, its pages go back, and the rest of the
 *       region is written as it is sealed, through the one guaranteed page: that region lives on
 *       disk only. Above the memory fraction the writer also asks the IO thread to move {@code
 *       shuffle.hybrid.spill-fraction} of the partition's resident pages out of memory.
 *   <li>Full mode writes every resident region through to the data file right after it is published
 *       (consumers read it from memory meanwhile).
 *   <li>A finished writer returns its working pages and lowers its guarantee to 0; the partition
 *       keeps only borrowed pages, which the pool can ask back.
 * </ul>
 *
 * <p>Not thread-safe: owned by the producing task's thread.
 */
public final class HybridPartitionWriter extends AbstractPartitionWriter<HybridPartition> {
    private final HybridPartition partition;
    private final NetworkBufferPool pool;
    private final BufferOwner owner;
    private final FileChannel data;
    private final SortBuffer buffer;
    private final LaneStream lane;
    private final SortBuffer.SectionSink sink = this::section;
    private final SortBuffer.Overflow overflow = new Overflow();
    private final ByteBuffer slot;
    private final int memoryLimitPages;
    private final double spillFraction;
    private final int attachedForResidence;
    private final List<Page> regionPages = new ArrayList<>();
    private int[] pageStarts = new int[16];
    private int[] sectionStart = new int[0];
    private int sections;
    private boolean regionBroadcast;
    private boolean resident;
    private boolean regionEnding;
    private @Nullable Page filling;
    private long regionFileOffset;
    private long dataEnd;

    @SuppressWarnings("TooManyParameters") // built only by ShuffleWorker, which owns every part
    HybridPartitionWriter(
            HybridPartition partition,
            ShuffleOptions options,
            NetworkBufferPool pool,
            List<Page> pages,
            FileChannel data,
            LongAdder workerBytesWritten,
            LeftoverFiles leftovers) {
        super(
                partition.name(),
                partition.id(),
                partition.numSubpartitions(),
                partition.owner(),
                pages,
                workerBytesWritten,
                leftovers);
        this.partition = partition;
        this.pool = pool;
        this.owner = partition.owner();
        this.data = data;
        int pageSize = options.pageSizeBytes();
        int sortPages = options.sortBufferPages();
        ByteBuffer[] arena = new ByteBuffer[sortPages];
        for (int i = 0; i < sortPages; i++) {
            arena[i] = pages.get(i).buffer();
        }
        this.buffer = new SortBuffer(arena, pageSize, partition.numSubpartitions());
        this.slot = pages.get(sortPages).buffer();
        FrameCodec codec = new FrameCodec(options);
        @Nullable ByteBuffer scratch =
                codec.compresses() ? pages.get(sortPages + 1).buffer() : null;
        this.lane = new LaneStream(codec, scratch, this::writePage, slot);
        this.memoryLimitPages =
                (int) Math.floor(options.hybridMemoryFraction() * pool.totalPages());
        this.spillFraction = options.hybridSpillFraction();
        this.attachedForResidence =
                (int)
                        Math.ceil(
                                options.hybridResidentAttachedFraction()
                                        * partition.numSubpartitions());
    }

    /** Pages a writer holds: its guarantee. */
    static int pagesNeeded(ShuffleOptions options) {
        return options.sortBufferPages()
                + 1
                + (options.compression() == ShuffleOptions.Compression.NONE ? 0 : 1);
    }

    /** The partition, readable from now on (consumers may attach before any record). */
    public HybridPartition partition() {
        return partition;
    }

    /**
     * Seals what is buffered as a region now, so that consumers can read it (a producer that wants
     * low latency calls this periodically). O(buffered bytes + subpartitions).
     *
     * @throws PartitionWriteException if writing failed (the partition is failed and lost)
     */
    public void flush() throws IOException {
        guarded(this::sealBuffered);
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

    @Override
    HybridPartition complete() throws IOException {
        sealBuffered();
        data.close();
        partition.finishProducing();
        return partition;
    }

    @Override
    List<Path> files() {
        return partition.files();
    }

    @Override
    Path fileInProgress() {
        return partition.dataFile();
    }

    @Override
    void closeFiles() throws IOException {
        data.close();
    }

    @Override
    void discarding(@Nullable Throwable propagating) {
        Page current = filling;
        filling = null;
        for (Page page : regionPages) {
            owner.recycle(page);
        }
        regionPages.clear();
        if (current != null) {
            owner.recycle(current);
        }
        partition.writerFailed(
                propagating == null
                        ? "the producer abandoned it before finishing"
                        : "the producer failed: " + propagating.getMessage(),
                propagating,
                propagating);
    }

    @Override
    void ownerDone(BufferOwner writerOwner, boolean finished) {
        if (finished) {
            writerOwner.lowerGuarantee(0);
        }
        partition.writerDone();
    }

    private void sealBuffered() throws IOException {
        if (!buffer.isEmpty()) {
            beginRegion(buffer.isBroadcast());
            buffer.drain(lane, sink);
            endRegion();
        }
    }

    // ---- one region ----

    private void beginRegion(boolean broadcast) {
        regionBroadcast = broadcast;
        sectionStart = new int[broadcast ? 2 : partition.numSubpartitions() + 1];
        sections = 0;
        regionPages.clear();
        resident = false;
        regionFileOffset = dataEnd;
        if (partition.attachedReaders() >= attachedForResidence) {
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
        Page full = java.util.Objects.requireNonNull(filling);
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
                owner.recycle(unused);
            }
            publishResident();
        } else {
            HybridRegion region = new HybridRegion(regionBroadcast, sectionStart, null, null);
            region.fileOffset = regionFileOffset;
            publishOrLose(region);
        }
    }

    private void publishResident() throws IOException {
        Page[] pages = regionPages.toArray(new Page[0]);
        int[] starts = Arrays.copyOf(pageStarts, pages.length + 1);
        regionPages.clear();
        HybridRegion region = new HybridRegion(regionBroadcast, sectionStart, pages, starts);
        boolean full = partition.mode() == HybridPartition.Mode.FULL;
        region.writing = full;
        if (!partition.publish(region)) {
            for (Page page : pages) {
                owner.recycle(page);
            }
            throw lost();
        }
        if (full) {
            long at = dataEnd;
            ByteBuffer[] views = region.views(0, region.length());
            long written = 0;
            while (written < region.length()) {
                written += data.write(views);
            }
            dataEnd += written;
            addWritten(written);
            partition.written(region, at);
        }
    }

    private void publishOrLose(HybridRegion region) throws PartitionLostException {
        if (!partition.publish(region)) {
            throw lost();
        }
    }

    private PartitionLostException lost() {
        PartitionLostException lost = partition.lostException();
        return lost != null
                ? lost
                : new PartitionLostException(
                        partition.name(), partition.id(), "the partition is lost", null);
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
            owner.recycle(page);
        }
        regionPages.clear();
        resident = false;
    }

    private void writeData(ByteBuffer page) throws IOException {
        long written = 0;
        while (page.hasRemaining()) {
            written += data.write(page);
        }
        dataEnd += written;
        addWritten(written);
    }

    /**
     * A page beyond the guarantee, or null: when the pool is at the memory fraction (the IO thread
     * is then asked to free some of this partition's resident pages) or cannot lend.
     */
    private @Nullable Page borrow() {
        if (pool.pagesInUse() >= memoryLimitPages) {
            int resident = partition.residentPages();
            if (resident > 0) {
                partition.requestSpill((int) Math.ceil(spillFraction * resident));
            }
            return null;
        }
        return owner.tryRequest();
    }
}
