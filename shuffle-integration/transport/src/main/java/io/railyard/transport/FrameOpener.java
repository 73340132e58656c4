package io.railyard.transport;

import io.netty.buffer.ByteBuf;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.format.CorruptPartitionFileException;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.FrameContext;
import io.railyard.shuffle.format.FrameHeader;
import io.railyard.topology.PartitionId;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * Opens the frames a FRAMES piece carries as they lie in the producer's file: checks each one as a
 * local reader does (magic, version, codec, lengths, checksum) and copies or decompresses its
 * payload into a page. Confined to one connection's event loop; allocates two buffer views per
 * frame.
 */
final class FrameOpener {
    private final FrameCodec codec;
    private final FrameHeader header = new FrameHeader();
    private final FrameContext context = new FrameContext();
    private final String file;

    /** An opener for a reader of {@code options}' page size, of frames from {@code worker}. */
    FrameOpener(ShuffleOptions options, InetSocketAddress worker) {
        this.codec = new FrameCodec(options);
        this.file = "at worker " + worker;
    }

    /**
     * Opens the {@code bytes} bytes of frames at {@code body}'s reader index (not moving it), the
     * run from {@code position} of partition {@code partition}'s file, into {@code page} from
     * {@code at}; returns the payload bytes written.
     *
     * @throws CorruptPartitionFileException if a frame fails a check (the partition is lost)
     * @throws ProtocolException if the run ends inside a frame or opens beyond the page
     */
    int open(ByteBuf body, int bytes, PartitionId partition, long position, ByteBuffer page, int at)
            throws CorruptPartitionFileException {
        ByteBuffer frames = body.nioBuffer(body.readerIndex(), bytes);
        int written = 0;
        int p = 0;
        while (p < bytes) {
            if (bytes - p < FrameHeader.BYTES) {
                throw new ProtocolException("a FRAMES group ends inside a frame header");
            }
            context.at(partition, file, position + p);
            header.wrap(frames, p);
            int length = codec.frameLength(header, context);
            if (length > bytes - p) {
                throw new ProtocolException("a FRAMES group ends inside a frame");
            }
            int payload = header.uncompressedLength();
            if (payload > page.capacity() - at - written) {
                throw new ProtocolException("a FRAMES piece opens to more than a page");
            }
            ByteBuffer stored = frames.duplicate();
            stored.limit(p + length).position(p + FrameHeader.BYTES);
            codec.open(header, stored, page.slice(at + written, payload), context);
            written += payload;
            p += length;
        }
        return written;
    }
}
