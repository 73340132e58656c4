package io.railyard.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * Stands before a TLS data server's {@link SslHandler} and looks at a connection's first bytes: a
 * TLS record passes (the guard leaves the pipeline, handing on what it read); anything else is a
 * reader without TLS, told in plaintext that the connection is refused (an ERROR for stream 0,
 * {@link Wire}) and closed — so the reader fails with that message instead of taking the close for
 * a lost worker. Counted as refused and logged with the peer. Confined to its connection's event
 * loop.
 */
final class PlaintextGuard extends ByteToMessageDecoder {
    /** Set on a connection the guard refused: its TLS handshake then fails, not counted again. */
    static final AttributeKey<Boolean> REFUSED = AttributeKey.valueOf("railyard.plaintextRefused");

    /** Bytes of a TLS record header: what tells a TLS record from anything else. */
    private static final int RECORD_HEADER = 5;

    private final DataServer server;

    PlaintextGuard(DataServer server) {
        this.server = server;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < RECORD_HEADER) {
            return;
        }
        if (SslHandler.isEncrypted(in, false)) {
            ctx.pipeline().remove(this);
            return;
        }
        in.skipBytes(in.readableBytes());
        ctx.channel().attr(REFUSED).set(true);
        server.counters().refused.increment();
        String peer = String.valueOf(ctx.channel().remoteAddress());
        DataServer.log(
                Level.WARNING,
                "data server " + server.address() + " refused " + peer + ": it spoke without TLS");
        var unused =
                ctx.writeAndFlush(
                                Wire.error(
                                        ctx.alloc(),
                                        0,
                                        Wire.REFUSED,
                                        0,
                                        0,
                                        "data server "
                                                + server.address()
                                                + " requires TLS; this reader connected without it"))
                        .addListener(ChannelFutureListener.CLOSE);
    }
}
