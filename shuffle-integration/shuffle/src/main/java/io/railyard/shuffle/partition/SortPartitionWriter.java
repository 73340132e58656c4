package io.railyard.shuffle.partition;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.LaneStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Writes a sort-based blocking partition: records are appended to a {@link SortBuffer} in arrival
 * order, linked per subpartition; when the buffer is full it is spilled as one region of the
 * partition's one {@link SortFile}: an index block, then the sections, subpartition after
 * subpartition. There is no merge step. (A partition of few subpartitions is written by {@link
 * LanePartitionWriter} instead, in the same format without the buffer's copy.)
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Memory is {@link SortFormatWriter#pagesNeeded}: {@code sort-buffer-pages +
 *       write-batch-pages + 1 (index) [+ 1 (LZ4 scratch)]} pages, whatever the number of
 *       subpartitions; the heap holds three ints per subpartition.
 *   <li>The buffer's layout, broadcast records and records larger than the buffer: see {@link
 *       SortBuffer}.
 *   <li>Frames are gathered {@code write-batch-pages} at a time into one write call.
 * </ul>
 *
 * <p>Not thread-safe: owned by the producing task's thread.
 */
final class SortPartitionWriter extends SortFormatWriter implements SortBuffer.Overflow {
    private final SortBuffer buffer;
    private final ByteBuffer[] batch;
    private final LaneStream lane;
    private int batchCount;

    SortPartitionWriter(Parts parts) {
        super(parts);
        ShuffleOptions options = parts.options();
        List<Page> pages = parts.pages();
        int pageSize = options.pageSizeBytes();
        int sortPages = options.sortBufferPages();
        ByteBuffer[] arena = new ByteBuffer[sortPages];
        for (int i = 0; i < sortPages; i++) {
            arena[i] = pages.get(i).buffer();
        }
        this.buffer = new SortBuffer(arena, pageSize, parts.numSubpartitions());
        this.batch = new ByteBuffer[options.writeBatchPages()];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = pages.get(sortPages + i).buffer();
        }
        this.lane = new LaneStream(codec, scratch, this::collect, batch[0]);
    }

    @Override
    void append(ByteBuffer record, int subpartition) throws IOException {
        buffer.append(record, subpartition, this);
    }

    @Override
    void appendBroadcast(ByteBuffer record) throws IOException {
        buffer.append(record, FrameCodec.BROADCAST_LANE, this);
    }

    /** {@link SortBuffer.Overflow}: the record is written as a region of its own. */
    @Override
    public void writeAlone(ByteBuffer record, int recordLane) throws IOException {
        file.beginRegion(
                record.remaining(),
                recordLane == FrameCodec.BROADCAST_LANE ? null : new int[] {recordLane});
        buffer.drainAlone(record, recordLane, lane, file);
        endRegion();
    }

    @Override
    BlockingPartition complete() throws IOException {
        spill();
        return file.finish(id());
    }

    /** Writes what is buffered as one region: its index block and its sections. */
    @Override
    public void spill() throws IOException {
        if (!buffer.isEmpty()) {
            file.beginRegion(buffer.bufferedBytes(), buffer.lanesWithData(file.sparseLimit()));
            buffer.drain(lane, file);
            endRegion();
        }
    }

    private void endRegion() throws IOException {
        lane.drain();
        flushBatch();
        file.endRegion();
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
        file.write(batch, batchCount);
        if (batchCount < batch.length) {
            // The lane is filling batch[batchCount]: make it the batch's first page.
            ByteBuffer filling = batch[batchCount];
            batch[batchCount] = batch[0];
            batch[0] = filling;
        }
        batchCount = 0;
    }
}
