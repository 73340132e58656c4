package io.railyard.shuffle.partition;

import static com.google.common.base.Preconditions.checkArgument;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.format.CorruptPartitionFileException;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.FrameContext;
import io.railyard.shuffle.format.FrameHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The frames of one subpartition of a finished {@link BlockingPartition}, walked as ranges of its
 * data file, for a sender that sends them as they lie on disk (a data server's zero-copy path):
 * every {@link Run} is whole frames, checked as a local reader checks them — magic, version, codec,
 * lengths, lane and frame number, within their section and the file — except for the checksum,
 * which the receiver verifies when it opens the frames ({@link FrameCodec#open}).
 *
 * <p>The data file stays open while the reader or any run not yet {@link Run#sent() sent} holds it,
 * also across a release of the partition (a socket may still be sending from it); after a release,
 * {@link #next} fails with {@link PartitionLostException}.
 *
 * <p>Not thread-safe: one sender's thread walks it; {@link Run#sent()} may be called from any
 * thread. Each call of {@link #next} reads one 24-byte frame header per frame (one positioned read,
 * from the page cache for a file just written) and at most one index entry per section it enters,
 * and allocates the run it returns.
 */
public final class SectionReader implements SectionCursor, AutoCloseable {
    private final BlockingPartition partition;
    private final int subpartition;
    private final int pageSize; // of the frames: the holder's
    private final LongAdder bytesRead;
    private final ByteBuffer headerBytes = ByteBuffer.allocate(FrameHeader.BYTES);
    private final FrameHeader header = new FrameHeader().wrap(headerBytes, 0);
    private final FrameHeader inMemory = new FrameHeader();
    private final FrameContext context = new FrameContext();
    private @Nullable Held file;
    private long fileSize;
    private int region = -1;
    private long offset;
    private long remaining;
    private final LaneOrder order;
    private int peeked = -1; // the checked length of the frame at offset, or -1
    private boolean done;
    private long bytesLeft;

    private SectionReader(
            BlockingPartition partition,
            int subpartition,
            ShuffleOptions options,
            LongAdder bytesRead) {
        this.partition = partition;
        this.subpartition = subpartition;
        this.pageSize = options.pageSizeBytes();
        this.order = new LaneOrder(subpartition);
        this.bytesRead = bytesRead;
    }

    /** Sums the lengths of the subpartition's sections (one index entry per region). */
    private long sumSections() throws IOException {
        long total = 0;
        for (int r = 0; r < partition.regionCount(); r++) {
            partition.loadSection(this, r);
            total += remaining;
        }
        offset = 0;
        remaining = 0;
        return total;
    }

    /**
     * A reader of {@code subpartition} of {@code partition}, whose frames were written with {@code
     * options}' page size (the worker's that holds it), adding the bytes of its runs to {@code
     * bytesRead}. {@link ShuffleWorker#openSections} is the public way in.
     *
     * <p>Reads the index entry of each region of a sort partition (to learn {@link #bytesLeft()});
     * opens no file of a hash partition.
     *
     * @throws IllegalArgumentException if {@code partition} is not a finished blocking partition,
     *     or {@code subpartition} is not one of its subpartitions
     * @throws PartitionLostException if the partition was released or its index cannot be read
     */
    static SectionReader open(
            ResultPartition partition,
            int subpartition,
            ShuffleOptions options,
            LongAdder bytesRead)
            throws PartitionLostException {
        checkArgument(
                partition instanceof BlockingPartition,
                "partition '%s' is not a finished blocking partition",
                partition.name());
        partition.checkSubpartition(subpartition);
        SectionReader reader =
                new SectionReader((BlockingPartition) partition, subpartition, options, bytesRead);
        try {
            reader.bytesLeft = reader.sumSections();
        } catch (PartitionLostException e) {
            throw e;
        } catch (IOException e) {
            throw reader.lost(e);
        }
        return reader;
    }

    /** Whether {@code partition} is one a section reader reads. */
    public static boolean reads(ResultPartition partition) {
        return partition instanceof BlockingPartition;
    }

    @Override
    public int subpartition() {
        return subpartition;
    }

    @Override
    public void setSection(long offset, long length) {
        this.offset = offset;
        this.remaining = length;
    }

    /**
     * The next run of whole frames from where the reader stands, at most {@code maxBytes} bytes on
     * disk (headers included) and {@code maxPayload} bytes of payload once opened; null if the next
     * frame does not fit those, or no frame is left ({@link #isDone()}). A run ends at the end of
     * its section: the next section may lie elsewhere in the file.
     *
     * @throws PartitionLostException if the partition was released, its file cannot be read, or a
     *     frame is corrupt ({@link CorruptPartitionFileException}, naming the file and offset)
     */
    public @Nullable Run next(int maxBytes, int maxPayload) throws PartitionLostException {
        Held held = standing();
        if (held == null) {
            return null;
        }
        long start = offset;
        int bytes = 0;
        int payload = 0;
        int frames = 0;
        while (remaining > 0 && offset == start + bytes) {
            int length = peek(held);
            int opened = header.uncompressedLength();
            if (bytes + length > maxBytes || payload + opened > maxPayload) {
                break;
            }
            order.count(header);
            peeked = -1;
            bytesLeft -= length;
            bytes += length;
            payload += opened;
            frames++;
            offset += length;
            remaining -= length;
        }
        if (frames == 0) {
            return null;
        }
        held.holders.incrementAndGet();
        bytesRead.add(bytes);
        return new Run(held, start, bytes, payload, frames, true);
    }

    /**
     * The next run, as {@link #next} returns it, read into {@code into} (from its position, which
     * moves past the run) with one positioned read of at most {@code into.remaining()} bytes of the
     * section: cheaper than {@link #next} for a short section, whose frames it checks in memory.
     * The run does not hold the file ({@link Run#sent()} does nothing). Null if the next frame does
     * not fit {@code into} or {@code maxPayload}, or no frame is left.
     *
     * @throws PartitionLostException as {@link #next} does
     */
    public @Nullable Run read(ByteBuffer into, int maxPayload) throws PartitionLostException {
        Held held = standing();
        if (held == null) {
            return null;
        }
        int start = into.position();
        int want = (int) Math.min(into.remaining(), remaining);
        readFully(held, into.duplicate().limit(start + want));
        int bytes = 0;
        int payload = 0;
        int frames = 0;
        while (want - bytes >= FrameHeader.BYTES) {
            inMemory.wrap(into, start + bytes);
            context.at(partition.id(), held.path, offset + bytes);
            int length = FrameCodec.frameLength(inMemory, pageSize, context);
            if (length > remaining - bytes) {
                throw context.corrupt(
                        "frame of "
                                + length
                                + " bytes runs past its section ("
                                + (remaining - bytes)
                                + " bytes left)");
            }
            int opened = inMemory.uncompressedLength();
            if (length > want - bytes || payload + opened > maxPayload) {
                break;
            }
            order.check(inMemory, context);
            order.count(inMemory);
            bytes += length;
            payload += opened;
            frames++;
        }
        if (frames == 0) {
            return null;
        }
        long position = offset;
        peeked = -1;
        offset += bytes;
        remaining -= bytes;
        bytesLeft -= bytes;
        into.position(start + bytes);
        bytesRead.add(bytes);
        return new Run(held, position, bytes, payload, frames, false);
    }

    /** Fills {@code view} from where the reader stands in {@code held}'s file. */
    private void readFully(Held held, ByteBuffer view) throws PartitionLostException {
        int start = view.position();
        try {
            while (view.hasRemaining()) {
                if (held.channel.read(view, offset + view.position() - start) < 0) {
                    context.at(partition.id(), held.path, offset + view.position() - start);
                    throw context.corrupt("the data file ends inside a section (truncated)");
                }
            }
        } catch (PartitionLostException e) {
            throw e;
        } catch (IOException e) {
            throw lost(e);
        }
    }

    /**
     * The open file, the reader standing on its next frame; null if none is left.
     *
     * @throws PartitionLostException if the partition was released, or its file or index cannot be
     *     read
     */
    private @Nullable Held standing() throws PartitionLostException {
        if (partition.isReleased()) {
            throw new PartitionLostException(partition.id(), "the partition was released", null);
        }
        if (!positioned()) {
            return null;
        }
        Held held = file;
        if (held == null) {
            throw new IllegalStateException("positioned without a file");
        }
        return held;
    }

    /**
     * Bytes of frames left in the section the reader stands in (after {@link #hasNext()}: at least
     * one frame's unless done). O(1).
     */
    public long bytesLeftInSection() {
        return done ? 0 : remaining;
    }

    /** Whether every frame of the subpartition was returned in a run. */
    public boolean isDone() {
        return done;
    }

    /** Bytes of frames not yet returned in a run, over all sections. O(1). */
    public long bytesLeft() {
        return bytesLeft;
    }

    /**
     * Whether a frame is left: moves to the next non-empty section if the current one is used up,
     * opening the data file at the first; false (and done, the file let go) if none is left.
     *
     * @throws PartitionLostException if the partition was released, or its file or index cannot be
     *     read
     */
    public boolean hasNext() throws PartitionLostException {
        return standing() != null;
    }

    private boolean positioned() throws PartitionLostException {
        while (remaining == 0 && !done) {
            if (region + 1 >= partition.regionCount()) {
                done = true;
                close();
                return false;
            }
            region++;
            try {
                if (file == null) {
                    Path path = partition.dataFile(subpartition);
                    FileChannel channel = partition.openForSending(path);
                    file = new Held(partition, path, channel);
                    fileSize = channel.size();
                }
                partition.loadSection(this, region);
            } catch (PartitionLostException e) {
                throw e;
            } catch (IOException e) {
                throw lost(e);
            }
        }
        return !done;
    }

    /** The checked length of the frame at {@code offset}, its header in {@link #header}. */
    private int peek(Held held) throws PartitionLostException {
        if (peeked >= 0) {
            return peeked;
        }
        context.at(partition.id(), held.path, offset);
        headerBytes.clear();
        try {
            while (headerBytes.hasRemaining()) {
                if (held.channel.read(headerBytes, offset + headerBytes.position()) < 0) {
                    throw context.corrupt("the data file ends inside a frame (truncated)");
                }
            }
        } catch (PartitionLostException e) {
            throw e;
        } catch (IOException e) {
            throw lost(e);
        }
        headerBytes.clear();
        int length = FrameCodec.frameLength(header, pageSize, context);
        if (length > remaining) {
            throw context.corrupt(
                    "frame of "
                            + length
                            + " bytes runs past its section ("
                            + remaining
                            + " bytes left)");
        }
        if (offset + length > fileSize) {
            throw context.corrupt("the data file ends inside a frame (truncated)");
        }
        order.check(header, context);
        peeked = length;
        return length;
    }

    private PartitionLostException lost(IOException e) {
        return new PartitionLostException(
                partition.id(),
                "reading subpartition "
                        + subpartition
                        + " of "
                        + partition.dataFile(subpartition)
                        + ": "
                        + e,
                e);
    }

    /** Lets go of the data file (runs not yet sent still hold it). Idempotent. */
    @Override
    public void close() {
        done = true;
        Held held = file;
        if (held != null) {
            file = null;
            held.letGo();
        }
    }

    /** An open data file and the reader and runs holding it. */
    private static final class Held {
        final BlockingPartition partition;
        final Path path;
        final FileChannel channel;
        final AtomicInteger holders = new AtomicInteger(1);

        Held(BlockingPartition partition, Path path, FileChannel channel) {
            this.partition = partition;
            this.path = path;
            this.channel = channel;
        }

        void letGo() {
            if (holders.decrementAndGet() == 0) {
                partition.doneSending(channel);
            }
        }
    }

    /**
     * Whole frames of one section, as they lie in the data file: {@link #length()} bytes from
     * {@link #position()} of {@link #channel()}, {@link #payloadBytes()} bytes once opened. Holds
     * the file open until {@link #sent()}.
     */
    public static final class Run {
        private final Held file;
        private final long position;
        private final int length;
        private final int payloadBytes;
        private final int frames;
        private final AtomicInteger sent;

        Run(Held file, long position, int length, int payloadBytes, int frames, boolean holds) {
            this.file = file;
            this.position = position;
            this.length = length;
            this.payloadBytes = payloadBytes;
            this.frames = frames;
            this.sent = new AtomicInteger(holds ? 0 : 1);
        }

        /** The data file; valid until {@link #sent()}. Not to be closed by the caller. */
        public FileChannel channel() {
            return file.channel;
        }

        /** Where the run starts in the file. */
        public long position() {
            return position;
        }

        /** Bytes of the run on disk, frame headers included. */
        public int length() {
            return length;
        }

        /** Bytes of payload its frames open to. */
        public int payloadBytes() {
            return payloadBytes;
        }

        /** Frames in the run. */
        public int frames() {
            return frames;
        }

        /**
         * The run's bytes were sent, or will not be: lets go of the file (a run {@link #read} into
         * memory does not hold it). Idempotent.
         */
        public void sent() {
            if (sent.getAndSet(1) == 0) {
                file.letGo();
            }
        }
    }
}
