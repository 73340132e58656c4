package io.railyard.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Netty's event loops and channel classes: native epoll where it loads (Linux), NIO elsewhere.
 * Stateless.
 */
final class NettyIo {
    private NettyIo() {}

    /** Connections of this process's data servers and clients open now (both ends count). */
    static final AtomicInteger OPEN_CONNECTIONS = new AtomicInteger();

    /** Event-loop groups of this process not shut down. */
    static final AtomicInteger OPEN_GROUPS = new AtomicInteger();

    /**
     * Counts its connection in {@link #OPEN_CONNECTIONS} from active to inactive; first in every
     * pipeline. Both events run on the connection's event loop, also while the loop shuts down (a
     * close future's listener may be dropped then, so it is not used for this).
     */
    @ChannelHandler.Sharable
    static final class Counted extends ChannelInboundHandlerAdapter {
        static final Counted INSTANCE = new Counted();

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            OPEN_CONNECTIONS.incrementAndGet();
            ctx.fireChannelActive();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            OPEN_CONNECTIONS.decrementAndGet();
            ctx.fireChannelInactive();
        }
    }

    /**
     * Sets up a connection's pipeline, the same on both sides: the connection counter, TLS if
     * {@code tls} is not null, heartbeats and the peer timeout ({@code options}), the frame decoder
     * for {@code pageSize}-byte pages, then {@code handler}.
     */
    static void pipeline(
            Channel channel,
            TransportOptions options,
            int pageSize,
            ChannelHandler handler,
            @Nullable SslHandler tls) {
        channel.pipeline().addLast(Counted.INSTANCE);
        if (tls != null) {
            channel.pipeline().addLast(tls);
        }
        channel.pipeline()
                .addLast(
                        new IdleStateHandler(
                                options.peerTimeout().toMillis(),
                                options.heartbeatInterval().toMillis(),
                                0,
                                TimeUnit.MILLISECONDS),
                        new FrameDecoder(pageSize),
                        handler);
    }

    /**
     * Handles {@code event} if it is the heartbeat timer's: a heartbeat on a connection that sent
     * nothing for the interval; {@code silent} (which logs and closes) on one that received nothing
     * for the peer timeout. False if the event is not the timer's. A failed heartbeat closes the
     * connection, which its streams hear of: nothing waits on the futures.
     */
    @SuppressWarnings("FutureReturnValueIgnored")
    static boolean onIdle(ChannelHandlerContext ctx, Object event, Runnable silent) {
        if (!(event instanceof IdleStateEvent idle)) {
            return false;
        }
        if (idle.state() == IdleState.READER_IDLE) {
            silent.run();
            ctx.close();
        } else if (idle.state() == IdleState.WRITER_IDLE) {
            ctx.writeAndFlush(Wire.header(ctx.alloc(), Wire.PING, 0, 0));
        }
        return true;
    }

    /** What went wrong: the decoder's cause rather than Netty's wrapper around it. */
    static Throwable reason(Throwable cause) {
        return cause instanceof DecoderException && cause.getCause() != null
                ? cause.getCause()
                : cause;
    }

    /** Whether the native epoll transport is in use. */
    static boolean epoll() {
        return Epoll.isAvailable();
    }

    /** An event-loop group of {@code threads} daemon threads named {@code name}. */
    static EventLoopGroup group(int threads, String name) {
        IoHandlerFactory handler =
                epoll() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        OPEN_GROUPS.incrementAndGet();
        return new MultiThreadIoEventLoopGroup(
                threads, new DefaultThreadFactory(name, true), handler);
    }

    /** The server channel class. */
    static Class<? extends ServerChannel> serverChannel() {
        return epoll() ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** The client channel class. */
    static Class<? extends Channel> clientChannel() {
        return epoll() ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** Shuts {@code group} down at once and waits up to 10 s for its threads. */
    static void shutdown(EventLoopGroup group) {
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(10_000);
        OPEN_GROUPS.decrementAndGet();
    }
}
