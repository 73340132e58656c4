package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.NetworkBufferPool;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.buffer.PoolInvariants;
import io.railyard.shuffle.buffer.RevocationListener;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.FrameContext;
import io.railyard.shuffle.format.FrameHeader;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.HybridReader.Where;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * A hybrid partition and its writer wired as {@link ShuffleWorker#createPartition} wires them — a
 * pool owner whose guarantee is the writer's and whose revocation listener asks the partition to
 * spill, a data file created up front, a spill file at the first spill — but on the test's own
 * {@link NetworkBufferPool}, in a test directory, with an IO "thread" the test runs by hand ({@link
 * #runIo()}) and a data channel that can run code in the middle of a full-mode write-through
 * ({@link #duringWriteThrough}). Also: readers that decode what they take ({@link TestReader}) and
 * a parser of the frames in a partition file ({@link FileFrames}).
 *
 * <p>Single-threaded: the test's thread plays the producer, the IO thread and the pool's callers.
 */
final class HybridRig implements AutoCloseable {
    static final PartitionId ID = new PartitionId(7, 0);
    static final String NAME = ID.toString();

    final ShuffleOptions options;
    final NetworkBufferPool pool;
    final BufferOwner owner;
    final HybridPartition partition;
    final HybridPartitionWriter writer;
    final Path dataFile;
    final Path spillFile;
    final int writerPages;
    private final ArrayDeque<Runnable> io = new ArrayDeque<>();
    private final Revocations revocations = new Revocations();
    private final HookedChannel data;

    /** A rig whose writer is the one the worker would choose. */
    HybridRig(Path dir, ShuffleOptions options, int numSubpartitions, PartitionKind mode)
            throws IOException {
        this(dir, options, numSubpartitions, mode, null);
    }

    /**
     * A rig whose writer writes through lanes ({@code lanes}, where they fit) or the sort buffer;
     * null: the worker's choice.
     */
    HybridRig(
            Path dir,
            ShuffleOptions options,
            int numSubpartitions,
            PartitionKind mode,
            @Nullable Boolean lanes)
            throws IOException {
        this.options = options;
        this.pool = new NetworkBufferPool(options);
        this.writerPages = HybridPartitionWriter.pagesNeeded(options);
        this.owner =
                pool.register(
                        "hybrid writer of '" + NAME + "'",
                        writerPages,
                        ShuffleOptions.SORT_BUFFER_PAGES_KEY,
                        revocations);
        List<Page> taken = new ArrayList<>();
        assertThat(owner.tryRequest(writerPages, taken)).as("the writer's guarantee").isTrue();
        this.dataFile = dir.resolve(NAME + ".data");
        this.spillFile = dir.resolve(NAME + ".spill");
        this.data =
                new HookedChannel(
                        FileChannel.open(
                                dataFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
        LeftoverFiles leftovers = new LeftoverFiles();
        this.partition =
                new HybridPartition(
                        ID,
                        numSubpartitions,
                        mode,
                        dataFile,
                        spillFile,
                        owner,
                        io::add,
                        new HybridCounters(),
                        leftovers);
        revocations.partition = partition;
        HybridPartitionWriter.Parts parts =
                new HybridPartitionWriter.Parts(
                        partition,
                        options,
                        pool,
                        taken,
                        DataFile.of(data),
                        new LongAdder(),
                        leftovers);
        this.writer =
                lanes == null
                        ? HybridPartitionWriter.create(parts)
                        : HybridPartitionWriter.create(parts, lanes);
    }

    /** Options with small pages, for rigs built by hand; the caller sets the budget. */
    static ShuffleOptions.Builder options(int pageSize, int sortBufferPages) {
        return ShuffleOptions.builder()
                .pageSizeBytes(pageSize)
                .sortBufferPages(sortBufferPages)
                .readBatchPages(2)
                .totalPages(1 << 10);
    }

    /** Runs every task queued for the IO thread (spills), including those queued meanwhile. */
    int runIo() {
        int ran = 0;
        for (Runnable task = io.poll(); task != null; task = io.poll()) {
            task.run();
            ran++;
        }
        return ran;
    }

    /** Tasks queued for the IO thread. */
    int queuedIo() {
        return io.size();
    }

    /** Times the pool asked the writer's owner to give pages back. */
    int revocationAsks() {
        return revocations.asks;
    }

    /** Runs {@code hook} at the start of every write-through (a gathering write of the writer). */
    void duringWriteThrough(@Nullable Runnable hook) {
        data.hook = hook;
    }

    /** A reader of {@code subpartition}, attached now. */
    TestReader attach(int subpartition) throws IOException {
        return new TestReader(partition.attach(subpartition, () -> {}), options);
    }

    /**
     * The partition's and the pool's invariants, and the writer owner's pages: the writer's working
     * pages while it is open, plus the partition's resident pages.
     */
    void checkAccounting() {
        partition.checkInvariants();
        PoolInvariants.check(pool);
        int working = writer.isOpen() ? writerPages : 0;
        int resident = partition.residentPages();
        assertThat(owner.pagesInUse())
                .as("pages of the writer's owner = %s working + %s resident", working, resident)
                .isEqualTo(working + resident);
        assertThat(partition.stats().residentPages()).isEqualTo(resident);
    }

    /**
     * Abandons the writer, releases the partition and closes the pool (which fails, naming the
     * owner, if any page was not returned).
     */
    @Override
    public void close() throws IOException {
        writer.close();
        partition.release();
        pool.close();
    }

    /** Forwards revocations to the partition, as the worker's listener does, and counts them. */
    private static final class Revocations implements RevocationListener {
        @Nullable HybridPartition partition;
        int asks;

        @Override
        public void revoke(BufferOwner from, int pages) {
            asks++;
            HybridPartition target = partition;
            if (target != null) {
                target.requestSpill(pages);
            }
        }
    }

    /**
     * A reader that takes at most a given number of frames per call, opens each with its own codec
     * and decodes the records; keeps every record it received since it was attached, and counts the
     * frames of its lane and of the broadcast lane and the bytes of the frames it took.
     */
    static final class TestReader {
        final HybridReader reader;
        final int subpartition;
        final List<byte[]> records = new ArrayList<>();
        int unicastFrames;
        int broadcastFrames;
        long frameBytes;
        private final FrameCodec codec;
        private final ReadStaging staging;
        private final FrameContext context = new FrameContext();
        private final ByteBuffer payload;
        private final RecordDecoder decoder = new RecordDecoder(1);
        private final HybridReader.FrameSink sink = this::accept;
        private final RecordDecoder.RecordSink collect = this::collect;
        private int framesLeft;

        TestReader(HybridReader reader, ShuffleOptions options) {
            this.reader = reader;
            this.subpartition = reader.subpartition();
            this.codec = new FrameCodec(options);
            int pageSize = options.pageSizeBytes();
            ByteBuffer[] run = new ByteBuffer[options.readBatchPages()];
            for (int i = 0; i < run.length; i++) {
                run[i] = ByteBuffer.allocate(pageSize);
            }
            this.staging = new ReadStaging(run, ByteBuffer.allocate(pageSize), pageSize);
            this.payload = ByteBuffer.allocate(pageSize);
        }

        /** Takes at most {@code maxFrames} frames; where the reader stands afterwards. */
        Where read(int maxFrames) throws IOException {
            framesLeft = maxFrames;
            return reader.read(codec, staging, context, sink);
        }

        /** Takes every frame there is: {@link Where#WAIT} or {@link Where#END}. */
        Where readAll() throws IOException {
            return read(Integer.MAX_VALUE);
        }

        int frames() {
            return unicastFrames + broadcastFrames;
        }

        boolean atRecordBoundary() {
            return decoder.atRecordBoundary(0);
        }

        /** As the IO scheduler ends a channel: at the end ({@code completed}) or abandoned. */
        void detach(boolean completed) {
            reader.partition().detach(reader, completed);
        }

        private boolean accept(FrameHeader header, ByteBuffer stored, FrameContext at)
                throws IOException {
            if (framesLeft == 0) {
                return false;
            }
            framesLeft--;
            if (header.lane() == FrameCodec.BROADCAST_LANE) {
                broadcastFrames++;
            } else {
                assertThat(header.lane()).as("lane of a frame").isEqualTo(subpartition);
                unicastFrames++;
            }
            frameBytes += FrameHeader.BYTES + stored.remaining();
            codec.open(header, stored, payload, at);
            decoder.decode(0, payload, collect);
            return true;
        }

        private void collect(int channel, ByteBuffer record) {
            byte[] bytes = new byte[record.remaining()];
            record.get(bytes);
            records.add(bytes);
        }
    }

    /**
     * The frames of one partition file, parsed as the file grows: each frame's header and checksum
     * are checked and its payload opened, in file order. The file must end on a frame boundary
     * whenever it is parsed.
     */
    static final class FileFrames implements AutoCloseable {
        /** Receives each frame. */
        @FunctionalInterface
        interface Visitor {
            void frame(int lane, int sequence, ByteBuffer payload);
        }

        private final Path path;
        private final FrameCodec codec;
        private final FrameContext context = new FrameContext();
        private final ByteBuffer headerBytes = ByteBuffer.allocate(FrameHeader.BYTES);
        private final FrameHeader header = new FrameHeader().wrap(headerBytes, 0);
        private final ByteBuffer stored;
        private final ByteBuffer payload;
        private @Nullable FileChannel channel;
        private long parsed;

        FileFrames(Path path, ShuffleOptions options) {
            this.path = path;
            this.codec = new FrameCodec(options);
            this.stored = ByteBuffer.allocate(options.pageSizeBytes());
            this.payload = ByteBuffer.allocate(options.pageSizeBytes());
        }

        /** Bytes parsed so far (the file's size after {@link #parseNew}). */
        long parsed() {
            return parsed;
        }

        /** Hands every frame written since the last call to {@code visitor}. */
        void parseNew(Visitor visitor) throws IOException {
            FileChannel file = channel;
            if (file == null) {
                if (!Files.exists(path)) {
                    return;
                }
                file = FileChannel.open(path, StandardOpenOption.READ);
                channel = file;
            }
            long size = file.size();
            while (parsed < size) {
                context.at(ID, path, parsed);
                readFully(file, headerBytes.clear(), parsed);
                int length = codec.frameLength(header, context);
                assertThat(parsed + length)
                        .as("end of the frame at %s of %s", parsed, path)
                        .isLessThanOrEqualTo(size);
                readFully(
                        file,
                        stored.clear().limit(length - FrameHeader.BYTES),
                        parsed + FrameHeader.BYTES);
                stored.flip();
                int lane = header.lane();
                int sequence = header.sequence();
                codec.open(header, stored, payload, context);
                visitor.frame(lane, sequence, payload);
                parsed += length;
            }
        }

        private static void readFully(FileChannel file, ByteBuffer into, long at)
                throws IOException {
            long position = at;
            while (into.hasRemaining()) {
                int n = file.read(into, position);
                assertThat(n).as("bytes read at %s", position).isPositive();
                position += n;
            }
        }

        @Override
        public void close() throws IOException {
            FileChannel file = channel;
            channel = null;
            if (file != null) {
                file.close();
            }
        }
    }

    /** A file channel that runs a hook before each gathering write (the writer's write-through). */
    private static final class HookedChannel extends ForwardingFileChannel {
        @Nullable Runnable hook;

        HookedChannel(FileChannel file) {
            super(file);
        }

        @Override
        public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
            Runnable run = hook;
            if (run != null) {
                run.run();
            }
            return file.write(sources, offset, length);
        }
    }
}
