package io.railyard.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Cuts the byte stream of one connection into {@link Frame}s, checking every header before it waits
 * for a body: the magic, a known type, and a length within what that type may have for this side's
 * page size ({@link Wire#maxBody}). A header that fails a check throws {@link ProtocolException}
 * and the decoder ignores everything after it (the handler closes the connection), so a peer's
 * claim never makes it buffer more than one page and a header.
 *
 * <p>Confined to its connection's event loop, as every Netty handler is.
 */
final class FrameDecoder extends ByteToMessageDecoder {
    private final int pageSize;
    private boolean failed;

    /** A decoder for a side whose pages are {@code pageSize} bytes. */
    FrameDecoder(int pageSize) {
        this.pageSize = pageSize;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= Wire.HEADER) {
            int start = in.readerIndex();
            int magic = in.getInt(start);
            byte type = in.getByte(start + 4);
            int length = in.getInt(start + 5);
            String problem = check(magic, type, length, pageSize);
            if (problem != null) {
                failed = true;
                in.skipBytes(in.readableBytes());
                throw new ProtocolException(problem);
            }
            if (in.readableBytes() < Wire.HEADER + length) {
                return;
            }
            in.skipBytes(Wire.HEADER);
            out.add(new Frame(type, in.readRetainedSlice(length)));
        }
    }

    /**
     * What is wrong with a header of {@code magic}, {@code type} and {@code length} for a receiver
     * of {@code pageSize}-byte pages; null if nothing.
     */
    static @Nullable String check(int magic, byte type, int length, int pageSize) {
        if (magic != Wire.MAGIC) {
            return String.format("wrong magic 0x%08x (expected 0x%08x)", magic, Wire.MAGIC);
        }
        int max = Wire.maxBody(type, pageSize);
        if (max < 0) {
            return "unknown frame type " + type;
        }
        if (length < Wire.minBody(type) || length > max) {
            return Wire.name(type)
                    + " frame of "
                    + length
                    + " bytes; it must be in ["
                    + Wire.minBody(type)
                    + ", "
                    + max
                    + "]";
        }
        return null;
    }
}
