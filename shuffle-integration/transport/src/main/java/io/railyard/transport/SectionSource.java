package io.railyard.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import io.netty.util.ReferenceCountUtil;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.SectionReader;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.PartitionId;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a stream of finished blocking partitions sends: the frames of each partition's subpartition,
 * channel after channel, as they lie in the files ({@link SectionReader}), packed into FRAMES
 * pieces of at most a reader's page. Confined to the stream's event loop once built (the opener
 * thread builds it).
 */
final class SectionSource {
    private final SectionReader[] readers;
    private final PartitionId[] partitions;
    private int channel;
    private long bytesLeft;

    private SectionSource(SectionReader[] readers, PartitionId[] partitions, long bytesLeft) {
        this.readers = readers;
        this.partitions = partitions;
        this.bytesLeft = bytesLeft;
    }

    /**
     * Whether every one of {@code partitions} is one a section reader sends, for a reader whose
     * pages ({@code readerPage}) hold any frame the holder ({@code holder}) wrote.
     */
    static boolean serves(List<ResultPartition> partitions, int readerPage, ShuffleWorker holder) {
        if (readerPage < holder.options().pageSizeBytes()) {
            return false;
        }
        for (ResultPartition partition : partitions) {
            if (!SectionReader.reads(partition)) {
                return false;
            }
        }
        return true;
    }

    /**
     * A source over {@code subpartition} of {@code partitions}, which {@code holder} wrote; reads
     * each sort partition's index entries.
     *
     * @throws PartitionLostException if a partition was released or its index cannot be read
     */
    static SectionSource open(
            List<ResultPartition> partitions, int subpartition, ShuffleWorker holder)
            throws PartitionLostException {
        SectionReader[] readers = new SectionReader[partitions.size()];
        PartitionId[] ids = new PartitionId[partitions.size()];
        long bytes = 0;
        try {
            for (int i = 0; i < readers.length; i++) {
                ids[i] = partitions.get(i).id();
                readers[i] = holder.openSections(partitions.get(i), subpartition);
                bytes += readers[i].bytesLeft();
            }
        } catch (PartitionLostException | RuntimeException e) {
            for (SectionReader reader : readers) {
                if (reader != null) {
                    reader.close();
                }
            }
            throw e;
        }
        return new SectionSource(readers, ids, bytes);
    }

    /**
     * Whether a frame is left in any channel; moves to the channel that has the next one.
     *
     * @throws PartitionLostException if that channel's partition was released or cannot be read
     */
    boolean hasNext() throws PartitionLostException {
        while (channel < readers.length) {
            if (readers[channel].hasNext()) {
                return true;
            }
            channel++;
        }
        return false;
    }

    /** The partition of the channel being sent (the one a failure names). */
    PartitionId current() {
        return partitions[Math.min(channel, partitions.length - 1)];
    }

    /**
     * One FRAMES piece ready to write, in order: byte buffers (the frame header, group headers and
     * the frames of short sections, read into memory) and file regions (the frames of longer runs,
     * which hold their file until written or dropped).
     *
     * @param messages what to write, in order; each written or released exactly once
     * @param bytes the frame bytes it carries
     * @param fromFiles of those, the bytes in file regions
     * @param backlog the backlog its header tells
     */
    record Piece(List<Object> messages, int bytes, int fromFiles, int backlog) {}

    /**
     * The next piece of stream {@code stream}, for a reader of {@code pageSize}-byte pages: runs of
     * whole frames, channel after channel, at most {@value Wire#MAX_GROUPS} of them, whose frames
     * take at most a page and open to at most a page. A section's rest shorter than a page is read
     * into the piece's buffer (one read, and the frames of many channels leave in one write); a
     * longer one goes as file regions. Null if no frame is left. The header's backlog is what
     * {@link #backlog} says after the piece.
     *
     * @throws PartitionLostException if a partition was released, or a file cannot be read or holds
     *     a corrupt frame; nothing of the piece is left held
     */
    @Nullable Piece nextPiece(ByteBufAllocator alloc, int stream, int pageSize)
            throws PartitionLostException {
        if (!hasNext()) {
            return null;
        }
        PieceBuilder piece = new PieceBuilder(alloc, stream, pageSize);
        try {
            while (piece.groups < Wire.MAX_GROUPS
                    && hasNext()
                    && piece.add(channel, readers[channel])) {
                bytesLeft -= piece.lastRun;
            }
            if (piece.groups == 0) {
                throw new IllegalStateException(
                        "a frame of "
                                + current()
                                + " does not fit the reader's page of "
                                + pageSize);
            }
            return piece.build(backlog(pageSize));
        } catch (PartitionLostException | RuntimeException e) {
            piece.drop();
            throw e;
        } finally {
            piece.buffer.release();
        }
    }

    /**
     * A piece being built: one buffer for its headers and short runs, cut into slices around the
     * file regions of long runs.
     */
    private static final class PieceBuilder {
        final ByteBuf buffer;
        final int pageSize;
        final List<Object> messages = new ArrayList<>(3);
        int bytes;
        int payload;
        int fromFiles;
        int groups;
        int lastRun;
        int segment; // where the buffer's part not yet in messages starts

        PieceBuilder(ByteBufAllocator alloc, int stream, int pageSize) {
            this.pageSize = pageSize;
            int capacity =
                    Wire.HEADER
                            + Wire.FRAMES_HEADER
                            + Wire.MAX_GROUPS * Wire.GROUP_HEADER
                            + pageSize;
            this.buffer = alloc.ioBuffer(capacity);
            buffer.writeInt(Wire.MAGIC).writeByte(Wire.FRAMES).writeInt(0).writeInt(stream);
            buffer.writeInt(0); // the backlog, set by build
        }

        /**
         * Adds the next run of {@code reader} as a group of {@code channel}; false if its next
         * frame does not fit what is left of the piece.
         */
        boolean add(int channel, SectionReader reader) throws PartitionLostException {
            int groupAt = buffer.writerIndex();
            buffer.writeZero(Wire.GROUP_HEADER);
            SectionReader.Run run;
            if (reader.bytesLeftInSection() < pageSize) {
                ByteBuffer into =
                        buffer.internalNioBuffer(groupAt + Wire.GROUP_HEADER, pageSize - bytes);
                run = reader.read(into, pageSize - payload);
                if (run != null) {
                    buffer.writerIndex(buffer.writerIndex() + run.length());
                }
            } else {
                run = reader.next(pageSize - bytes, pageSize - payload);
                if (run != null) {
                    messages.add(buffer.retainedSlice(segment, buffer.writerIndex() - segment));
                    segment = buffer.writerIndex();
                    messages.add(new RunRegion(run));
                    fromFiles += run.length();
                }
            }
            if (run == null) {
                buffer.writerIndex(groupAt);
                return false;
            }
            buffer.setInt(groupAt, channel).setLong(groupAt + 4, run.position());
            buffer.setInt(groupAt + 12, run.length());
            groups++;
            bytes += run.length();
            payload += run.payloadBytes();
            lastRun = run.length();
            return true;
        }

        Piece build(int backlog) {
            int body = Wire.FRAMES_HEADER + groups * Wire.GROUP_HEADER + bytes;
            buffer.setInt(5, body).setInt(Wire.HEADER + 4, backlog);
            if (buffer.writerIndex() > segment) {
                messages.add(buffer.retainedSlice(segment, buffer.writerIndex() - segment));
            }
            return new Piece(messages, bytes, fromFiles, backlog);
        }

        void drop() {
            for (Object message : messages) {
                ReferenceCountUtil.release(message);
            }
        }
    }

    /**
     * The pages the frames left take at least, packed without a gap: at least 1 while a frame is
     * left (a lower bound on the pieces to come, see {@link Wire}). O(1).
     */
    int backlog(int pageSize) {
        return bytesLeft <= 0 ? 0 : (int) Math.min(1 << 20, (bytesLeft + pageSize - 1) / pageSize);
    }

    /**
     * A run of frames going out as a file region: sent with sendfile(2) where the transport can
     * (epoll, NIO on Linux); it lets go of the file once written or dropped, never closing it (the
     * partition shares its channel).
     */
    private static final class RunRegion extends DefaultFileRegion {
        private final SectionReader.Run run;

        RunRegion(SectionReader.Run run) {
            super(run.channel(), run.position(), run.length());
            this.run = run;
        }

        @Override
        protected void deallocate() {
            run.sent();
        }
    }

    /** Lets go of every file. Idempotent. */
    void close() {
        for (SectionReader reader : readers) {
            reader.close();
        }
    }
}
