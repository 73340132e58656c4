package io.railyard.shuffle.partition;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

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
 *   <li>Memory is {@code sort-buffer-pages + write-batch-pages + 1 (index) [+ 1 (LZ4 scratch)]}
 *       pages, whatever the number of subpartitions; the heap holds three ints per subpartition.
 *   <li>The buffer's layout, broadcast records and records larger than the buffer: see {@link
 *       SortBuffer}.
 *   <li>Frames are gathered {@code write-batch-pages} at a time into one write call.
 * </ul>
 *
 * <p>Not thread-safe: owned by the producing task's thread.
 */
final class SortPartitionWriter extends AbstractPartitionWriter<BlockingPartition>
        implements PartitionWriter {
    private final SortFile file;
    private final SortBuffer buffer;
    private final ByteBuffer[] batch;
    private final LaneStream lane;
    private int batchCount;

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
        ByteBuffer indexPage = pages.get(sortPages + batch.length).buffer();
        this.file = new SortFile(dataPath, data, numSubpartitions, indexPage, this::addWritten);
        FrameCodec codec = new FrameCodec(options);
        @Nullable ByteBuffer scratch =
                codec.compresses() ? pages.get(sortPages + batch.length + 1).buffer() : null;
        this.lane = new LaneStream(codec, scratch, this::collect, batch[0]);
    }

    /** Pages a writer holds: its guarantee (the same for {@link LanePartitionWriter}). */
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
            file.beginRegion();
            buffer.drainAlone(record, recordLane, lane, file);
            endRegion();
        } else if (!buffer.tryAppend(record, recordLane)) {
            throw new IllegalStateException("a record that fits an empty sort buffer was refused");
        }
    }

    @Override
    BlockingPartition complete() throws IOException {
        spill();
        return file.finish(name());
    }

    @Override
    List<Path> files() {
        return List.of(file.path());
    }

    @Override
    Path fileInProgress() {
        return file.path();
    }

    @Override
    void closeFiles() throws IOException {
        file.close();
    }

    /** Writes what is buffered as one region: its index block and its sections. */
    private void spill() throws IOException {
        if (!buffer.isEmpty()) {
            file.beginRegion();
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
