package io.railyard.shuffle.partition;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.LaneStream;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Writes a hash-based blocking partition: one file and one page per subpartition; a full page of
 * frames is written to its subpartition's file. The baseline: simple and fast at small parallelism,
 * but its memory and open files grow with the number of subpartitions and a broadcast record is
 * written once per subpartition. Not thread-safe: owned by the producing task's thread.
 */
final class HashPartitionWriter extends AbstractPartitionWriter<BlockingPartition>
        implements PartitionWriter {
    private final List<Path> paths;
    private final FileChannel[] files;
    private final LaneStream[] lanes;
    private final long[] fileBytes;
    private int lastWritten;

    HashPartitionWriter(
            PartitionId id,
            ShuffleOptions options,
            BufferOwner owner,
            List<Page> pages,
            List<Path> paths,
            FileChannel[] files,
            LongAdder workerBytesWritten,
            LeftoverFiles leftovers) {
        super(id, PartitionKind.HASH, files.length, owner, pages, workerBytesWritten, leftovers);
        this.paths = paths;
        this.files = files;
        int n = files.length;
        FrameCodec codec = new FrameCodec(options);
        @Nullable ByteBuffer scratch = codec.compresses() ? pages.get(n).buffer() : null;
        this.lanes = new LaneStream[n];
        this.fileBytes = new long[n];
        for (int s = 0; s < n; s++) {
            int subpartition = s;
            lanes[s] =
                    new LaneStream(
                            codec,
                            scratch,
                            page -> writePage(subpartition, page),
                            pages.get(s).buffer());
            lanes[s].start(s, 0);
        }
    }

    /** Pages a writer of {@code n} subpartitions holds: one per subpartition [+ LZ4 scratch]. */
    static int pagesNeeded(ShuffleOptions options, int n) {
        return n + (options.compression() == ShuffleOptions.Compression.NONE ? 0 : 1);
    }

    @Override
    void append(ByteBuffer record, int subpartition) throws IOException {
        LaneStream lane = lanes[subpartition];
        lane.putLength(record.remaining());
        lane.putBytes(record);
    }

    @Override
    void appendBroadcast(ByteBuffer record) throws IOException {
        int start = record.position();
        for (LaneStream lane : lanes) {
            record.position(start);
            lane.putLength(record.remaining());
            lane.putBytes(record);
        }
    }

    @Override
    BlockingPartition complete() throws IOException {
        long total = 0;
        for (int s = 0; s < lanes.length; s++) {
            lanes[s].finishLane();
            lanes[s].drain();
            total += fileBytes[s];
        }
        closeFiles();
        return new HashPartition(id(), paths, fileBytes, total);
    }

    @Override
    List<Path> files() {
        return paths;
    }

    @Override
    Path fileInProgress() {
        return paths.isEmpty() ? Path.of("") : paths.get(lastWritten);
    }

    @Override
    void closeFiles() throws IOException {
        IOException first = null;
        for (FileChannel file : files) {
            try {
                file.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private ByteBuffer writePage(int subpartition, ByteBuffer page) throws IOException {
        lastWritten = subpartition;
        while (page.hasRemaining()) {
            // Counted per call: a short write followed by a failure still names every byte.
            int written = files[subpartition].write(page);
            fileBytes[subpartition] += written;
            addWritten(written);
        }
        return page;
    }
}
