package io.railyard.shuffle.partition;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * What the two writers of the sort format share ({@link SortPartitionWriter} through the sort
 * buffer, {@link LanePartitionWriter} straight into lanes): the one {@link SortFile}, and the page
 * plan — {@code sort-buffer-pages + write-batch-pages} working pages, then the index page, then the
 * LZ4 scratch page when the codec compresses. Not thread-safe: owned by the producing task's
 * thread.
 */
abstract class SortFormatWriter extends AbstractPartitionWriter<BlockingPartition>
        implements PartitionWriter {
    /**
     * Everything a writer of the format is made of.
     *
     * @param pages the writer's pages, {@link #pagesNeeded} of them
     * @param path the partition's file, created and open for writing as {@code channel}
     */
    record Parts(
            PartitionId id,
            int numSubpartitions,
            ShuffleOptions options,
            BufferOwner owner,
            List<Page> pages,
            Path path,
            FileChannel channel,
            LongAdder workerBytesWritten,
            LeftoverFiles leftovers) {}

    final SortFile file;
    final FrameCodec codec;
    final @Nullable ByteBuffer scratch;

    SortFormatWriter(Parts parts) {
        super(
                parts.id(),
                PartitionKind.SORT,
                parts.numSubpartitions(),
                parts.owner(),
                parts.pages(),
                parts.workerBytesWritten(),
                parts.leftovers());
        int working = workingPages(parts.options());
        this.file =
                new SortFile(
                        parts.path(),
                        parts.channel(),
                        parts.numSubpartitions(),
                        parts.pages().get(working).buffer(),
                        this::addWritten);
        this.codec = new FrameCodec(parts.options());
        this.scratch = codec.compresses() ? parts.pages().get(working + 1).buffer() : null;
    }

    /** The writer of the format for {@code parts}: the lanes' when it fits, else the buffer's. */
    static SortFormatWriter of(Parts parts) {
        return LanePartitionWriter.fits(parts.options(), parts.numSubpartitions())
                ? new LanePartitionWriter(parts)
                : new SortPartitionWriter(parts);
    }

    /** Pages a writer holds: its guarantee. */
    static int pagesNeeded(ShuffleOptions options) {
        return workingPages(options)
                + 1
                + (options.compression() == ShuffleOptions.Compression.NONE ? 0 : 1);
    }

    /** The sort buffer's and the write batch's pages, which come first. */
    static int workingPages(ShuffleOptions options) {
        return options.sortBufferPages() + options.writeBatchPages();
    }

    @Override
    final List<Path> files() {
        return List.of(file.path());
    }

    @Override
    final Path fileInProgress() {
        return file.path();
    }

    @Override
    final void closeFiles() throws IOException {
        file.close();
    }
}
