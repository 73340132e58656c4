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
 * Writes a sort-based blocking partition: records are appended to a {@link SortBuffer} in arrival
 * order, linked per subpartition; when the buffer is full it is spilled as one region of the
 * partition's one file: an index block of one {@link IndexEntry} per subpartition, then the
 * sections, subpartition after subpartition. There is no merge step.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Memory is {@code sort-buffer-pages + write-batch-pages + 1 (index) [+ 1 (LZ4 scratch)]}
 *       pages, whatever the number of subpartitions; the heap holds three ints per subpartition.
 *   <li>The buffer's layout, broadcast records and records larger than the buffer: see {@link
 *       SortBuffer}.
 *   <li>Frames are gathered {@code write-batch-pages} at a time into one write call.
 *   <li>One file, not a data file and an index file: creating files dominated writing at 1,000 ×
 *       1,000. The index block's room is skipped when a region starts (its size is known: n
 *       entries) and its pages are written into it with positional writes as the sections end, so
 *       data and index stream out together; the heap keeps one offset per region to find the blocks
 *       again.
 * </ul>
 *
 * <p>Not thread-safe: owned by the producing task's thread.
 */
final class SortPartitionWriter extends AbstractPartitionWriter<BlockingPartition>
        implements PartitionWriter, SortBuffer.SectionSink {
    private final Path dataPath;
    private final FileChannel data;
    private final SortBuffer buffer;
    private final ByteBuffer[] batch;
    private final ByteBuffer indexPage;
    private final SortIndex indexFormat = new SortIndex();
    private final LaneStream lane;
    private int batchCount;
    private int regions;
    private long[] regionStarts = new long[4];
    private long dataBytes;
    // Where the index page's entries go in the current region's index block.
    private long indexWriteAt;

    SortPartitionWriter(
            String name,
            int numSubpartitions,
            ShuffleOptions options,
            BufferOwner owner,
            List<Page> pages,
            Path dataPath,
            FileChannel data,
            LongAdder workerBytesWritten,
            LeftoverFiles leftovers) {
        super(name, numSubpartitions, owner, pages, workerBytesWritten, leftovers);
        this.dataPath = dataPath;
        this.data = data;
        int pageSize = options.pageSizeBytes();
        int sortPages = options.sortBufferPages();
        ByteBuffer[] arena = new ByteBuffer[sortPages];
        for (int i = 0; i < sortPages; i++) {
            arena[i] = pages.get(i).buffer();
        }
        this.buffer = new SortBuffer(arena, pageSize, numSubpartitions);
        this.batch = new ByteBuffer[options.writeBatchPages()];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = pages.get(sortPages + i).buffer();
        }
        this.indexPage = pages.get(sortPages + batch.length).buffer();
        FrameCodec codec = new FrameCodec(options);
        @Nullable ByteBuffer scratch =
                codec.compresses() ? pages.get(sortPages + batch.length + 1).buffer() : null;
        this.lane = new LaneStream(codec, scratch, this::collect, batch[0]);
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
        add(record, subpartition);
    }

    @Override
    void appendBroadcast(ByteBuffer record) throws IOException {
        add(record, FrameCodec.BROADCAST_LANE);
    }

    private void add(ByteBuffer record, int recordLane) throws IOException {
        if (buffer.tryAppend(record, recordLane)) {
            return;
        }
        spill();
        if (!buffer.fitsEmpty(record.remaining())) {
            beginRegion();
            buffer.drainAlone(record, recordLane, lane, this);
            lane.drain();
            endRegion();
        } else if (!buffer.tryAppend(record, recordLane)) {
            throw new IllegalStateException("a record that fits an empty sort buffer was refused");
        }
    }

    @Override
    BlockingPartition complete() throws IOException {
        spill();
        data.close();
        return new SortPartition(
                name(),
                numSubpartitions(),
                dataPath,
                Arrays.copyOf(regionStarts, regions),
                dataBytes);
    }

    @Override
    List<Path> files() {
        return List.of(dataPath);
    }

    @Override
    Path fileInProgress() {
        return dataPath;
    }

    @Override
    void closeFiles() throws IOException {
        data.close();
    }

    /** Writes what is buffered as one region: its index block and its sections. */
    private void spill() throws IOException {
        if (!buffer.isEmpty()) {
            beginRegion();
            buffer.drain(lane, this);
            lane.drain();
            endRegion();
        }
    }

    /** {@link SortBuffer.SectionSink}: a section ended; its index entries go out. */
    @Override
    public void section(int sectionLane, long bytes) throws IOException {
        if (bytes > Integer.MAX_VALUE) {
            throw new IOException("a section of " + bytes + " bytes exceeds 2 GiB - 1");
        }
        long start = dataBytes;
        dataBytes += bytes;
        if (sectionLane == FrameCodec.BROADCAST_LANE) {
            for (int s = 0; s < numSubpartitions(); s++) {
                putIndexEntry(start, (int) bytes, s);
            }
        } else {
            putIndexEntry(start, (int) bytes, sectionLane);
        }
    }

    /** Leaves room for the region's index block; its sections follow it. */
    private void beginRegion() throws IOException {
        if (regions == regionStarts.length) {
            regionStarts = Arrays.copyOf(regionStarts, regions * 2);
        }
        regionStarts[regions] = dataBytes;
        indexWriteAt = dataBytes;
        dataBytes += (long) numSubpartitions() * IndexEntry.BYTES;
        data.position(dataBytes);
    }

    private void endRegion() throws IOException {
        flushBatch();
        flushIndex();
        regions++;
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

    /** Writes the index page's entries into the region's index block (not moving the data). */
    private void flushIndex() throws IOException {
        indexPage.flip();
        long from = indexWriteAt;
        while (indexPage.hasRemaining()) {
            indexWriteAt += data.write(indexPage, indexWriteAt);
        }
        addWritten(indexWriteAt - from);
        indexPage.clear();
    }
}
