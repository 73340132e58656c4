package io.railyard.shuffle.partition;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Writes a sort-based blocking partition: records are appended to a sort buffer in arrival order,
 * linked per subpartition; when the buffer is full it is spilled as one region of the data file,
 * subpartition after subpartition, and one index block is appended. There is no merge step.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Memory is {@code sort-buffer-pages + write-batch-pages + 1 (index) [+ 1 (LZ4 scratch)]}
 *       pages, whatever the number of subpartitions; the heap holds three ints per subpartition.
 *   <li>A record in the buffer is {@code length (4) | next record of its subpartition (4) | bytes};
 *       headers never straddle pages, bytes may. A record larger than the whole buffer is written
 *       as a region of its own, streamed straight into frames.
 *   <li>Broadcast records are buffered once and spilled as one section all subpartitions read (lane
 *       -1). A switch between broadcast and unicast records ends the region, which keeps the order
 *       of both kinds within every subpartition.
 *   <li>Frames are gathered {@code write-batch-pages} at a time into one write call.
 * </ul>
 *
 * <p>Not thread-safe: owned by the producing task's thread.
 */
final class SortPartitionWriter extends AbstractPartitionWriter {
    // A buffered record's header (see the design notes): length, then the next record's position.
    private static final int RECORD_LENGTH_OFFSET = 0;
    private static final int RECORD_NEXT_OFFSET = 4;
    private static final int RECORD_HEADER = 8;
    private static final int NONE = -1;
    private static final int EMPTY = 0;
    private static final int UNICAST = 1;
    private static final int BROADCAST = 2;

    private final Path dataPath;
    private final Path indexPath;
    private final FileChannel data;
    private final FileChannel index;
    private final ByteBuffer[] arena;
    private final int pageSize;
    private final int arenaCapacity;
    private final int[] first;
    private final int[] last;
    private final int[] sequence;
    private final ByteBuffer[] batch;
    private final ByteBuffer indexPage;
    private final SortIndex indexFormat = new SortIndex();
    private final LaneStream lane;
    private int broadcastFirst = NONE;
    private int broadcastLast = NONE;
    private int broadcastSequence;
    private int mode = EMPTY;
    private int arenaPosition;
    private int batchCount;
    private int regions;
    private long dataBytes;

    SortPartitionWriter(
            String name,
            int numSubpartitions,
            ShuffleOptions options,
            BufferOwner owner,
            List<Page> pages,
            Path dataPath,
            Path indexPath,
            FileChannel data,
            FileChannel index,
            LongAdder workerBytesWritten,
            LeftoverFiles leftovers) {
        super(name, numSubpartitions, owner, pages, workerBytesWritten, leftovers);
        this.dataPath = dataPath;
        this.indexPath = indexPath;
        this.data = data;
        this.index = index;
        this.pageSize = options.pageSizeBytes();
        int sortPages = options.sortBufferPages();
        this.arena = new ByteBuffer[sortPages];
        for (int i = 0; i < sortPages; i++) {
            arena[i] = pages.get(i).buffer();
        }
        this.arenaCapacity = sortPages * pageSize;
        this.batch = new ByteBuffer[options.writeBatchPages()];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = pages.get(sortPages + i).buffer();
        }
        this.indexPage = pages.get(sortPages + batch.length).buffer();
        FrameCodec codec = new FrameCodec(options);
        @Nullable ByteBuffer scratch =
                codec.compresses() ? pages.get(sortPages + batch.length + 1).buffer() : null;
        this.lane = new LaneStream(codec, scratch, this::collect, batch[0]);
        this.first = new int[numSubpartitions];
        this.last = new int[numSubpartitions];
        this.sequence = new int[numSubpartitions];
        Arrays.fill(first, NONE);
        Arrays.fill(last, NONE);
        indexPage.clear();
    }

    /** Pages a writer holds: its guarantee. */
    static int pagesNeeded(ShuffleOptions options) {
        return options.sortBufferPages()
                + options.writeBatchPages()
                + 1
                + (options.compression() == ShuffleOptions.Compression.NONE ? 0 : 1);
    }

    @Override
    void append(ByteBuffer record, int subpartition) throws IOException {
        if (mode == BROADCAST) {
            spill(null, 0);
        }
        int position = reserve(record.remaining());
        if (position < 0) {
            spill(record, subpartition);
            return;
        }
        link(position, subpartition);
        mode = UNICAST;
        copyIn(record, position + RECORD_HEADER);
    }

    @Override
    void appendBroadcast(ByteBuffer record) throws IOException {
        if (mode == UNICAST) {
            spill(null, 0);
        }
        int position = reserve(record.remaining());
        if (position < 0) {
            spill(record, FrameCodec.BROADCAST_LANE);
            return;
        }
        if (broadcastLast == NONE) {
            broadcastFirst = position;
        } else {
            setNext(broadcastLast, position);
        }
        broadcastLast = position;
        mode = BROADCAST;
        copyIn(record, position + RECORD_HEADER);
    }

    @Override
    BlockingPartition complete() throws IOException {
        spill(null, 0);
        data.close();
        index.close();
        return new SortPartition(
                name(), numSubpartitions(), dataPath, indexPath, regions, dataBytes);
    }

    @Override
    List<Path> files() {
        return List.of(dataPath, indexPath);
    }

    @Override
    Path fileInProgress() {
        return dataPath;
    }

    @Override
    void closeFiles() throws IOException {
        IOException failure = null;
        for (FileChannel file : new FileChannel[] {data, index}) {
            try {
                file.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Where a record of {@code length} bytes goes in the buffer (spilling first if it does not
     * fit), with its header written; -1 if it is larger than the whole buffer.
     */
    private int reserve(int length) throws IOException {
        long need = (long) RECORD_HEADER + length;
        if (need + pageSize > arenaCapacity) {
            return -1; // might not fit even in an empty buffer once aligned
        }
        int position = aligned(arenaPosition);
        if (position + need > arenaCapacity) {
            spill(null, 0);
            position = 0;
        }
        ByteBuffer page = arena[position / pageSize];
        page.putInt(position % pageSize + RECORD_LENGTH_OFFSET, length);
        page.putInt(position % pageSize + RECORD_NEXT_OFFSET, NONE);
        arenaPosition = position + (int) need;
        return position;
    }

    private int aligned(int position) {
        int room = pageSize - position % pageSize;
        return room < RECORD_HEADER ? position + room : position;
    }

    private void link(int position, int subpartition) {
        if (last[subpartition] == NONE) {
            first[subpartition] = position;
        } else {
            setNext(last[subpartition], position);
        }
        last[subpartition] = position;
    }

    private void setNext(int record, int next) {
        arena[record / pageSize].putInt(record % pageSize + RECORD_NEXT_OFFSET, next);
    }

    private void copyIn(ByteBuffer record, int position) {
        int at = position;
        int end = record.limit();
        while (record.position() < end) {
            ByteBuffer page = arena[at / pageSize];
            int offset = at % pageSize;
            int n = Math.min(pageSize - offset, end - record.position());
            page.put(offset, record, record.position(), n);
            record.position(record.position() + n);
            at += n;
        }
    }

    /**
     * Writes the buffered records as one region (or, when {@code direct} is given, the buffered
     * region and then a region holding only that record in {@code directLane}).
     */
    private void spill(@Nullable ByteBuffer direct, int directLane) throws IOException {
        if (mode != EMPTY) {
            writeRegion(null, 0);
        }
        if (direct != null) {
            mode = directLane == FrameCodec.BROADCAST_LANE ? BROADCAST : UNICAST;
            writeRegion(direct, directLane);
        }
    }

    private void writeRegion(@Nullable ByteBuffer direct, int directLane) throws IOException {
        int n = numSubpartitions();
        if (mode == BROADCAST) {
            long start = dataBytes;
            lane.start(FrameCodec.BROADCAST_LANE, broadcastSequence);
            writeChain(broadcastFirst, direct);
            broadcastSequence = lane.finishLane();
            int length = sectionLength(lane.laneBytes());
            dataBytes += length;
            for (int s = 0; s < n; s++) {
                putIndexEntry(start, length, s);
            }
        } else {
            for (int s = 0; s < n; s++) {
                long start = dataBytes;
                lane.start(s, sequence[s]);
                writeChain(first[s], directLane == s ? direct : null);
                sequence[s] = lane.finishLane();
                int length = sectionLength(lane.laneBytes());
                dataBytes += length;
                putIndexEntry(start, length, s);
            }
        }
        lane.drain();
        flushBatch();
        flushIndex();
        regions++;
        arenaPosition = 0;
        Arrays.fill(first, NONE);
        Arrays.fill(last, NONE);
        broadcastFirst = NONE;
        broadcastLast = NONE;
        mode = EMPTY;
    }

    private int sectionLength(long bytes) throws IOException {
        if (bytes > Integer.MAX_VALUE) {
            throw new IOException("a section of " + bytes + " bytes exceeds 2 GiB - 1");
        }
        return (int) bytes;
    }

    private void writeChain(int head, @Nullable ByteBuffer direct) throws IOException {
        if (direct != null) {
            lane.putLength(direct.remaining());
            lane.putBytes(direct);
            return;
        }
        for (int record = head; record != NONE; ) {
            ByteBuffer headerPage = arena[record / pageSize];
            int length = headerPage.getInt(record % pageSize + RECORD_LENGTH_OFFSET);
            int next = headerPage.getInt(record % pageSize + RECORD_NEXT_OFFSET);
            lane.putLength(length);
            int at = record + RECORD_HEADER;
            int remaining = length;
            while (remaining > 0) {
                ByteBuffer page = arena[at / pageSize];
                int offset = at % pageSize;
                int count = Math.min(pageSize - offset, remaining);
                page.limit(offset + count).position(offset);
                lane.putBytes(page);
                page.clear();
                at += count;
                remaining -= count;
            }
            record = next;
        }
    }

    /** {@link LaneStream.FrameOutput}: collects sealed frames, writing them a batch at a time. */
    private ByteBuffer collect(ByteBuffer frame) throws IOException {
        batchCount++;
        if (batchCount == batch.length) {
            flushBatch();
        }
        return batch[batchCount];
    }

    private void flushBatch() throws IOException {
        if (batchCount == 0) {
            return;
        }
        long expected = 0;
        for (int i = 0; i < batchCount; i++) {
            expected += batch[i].remaining();
        }
        long written = 0;
        while (written < expected) {
            written += data.write(batch, 0, batchCount);
        }
        addWritten(written);
        if (batchCount < batch.length) {
            // The lane is filling batch[batchCount]: make it the batch's first page.
            ByteBuffer filling = batch[batchCount];
            batch[batchCount] = batch[0];
            batch[0] = filling;
        }
        batchCount = 0;
    }

    private void putIndexEntry(long start, int length, int subpartition) throws IOException {
        if (indexPage.remaining() < IndexEntry.BYTES) {
            flushIndex();
        }
        indexFormat.put(indexPage, start, length, regions, subpartition);
    }

    private void flushIndex() throws IOException {
        indexPage.flip();
        while (indexPage.hasRemaining()) {
            index.write(indexPage);
        }
        indexPage.clear();
    }
}
