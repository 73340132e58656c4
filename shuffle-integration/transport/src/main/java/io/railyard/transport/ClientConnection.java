package io.railyard.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.topology.PartitionId;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The reading side of the one connection from this worker to another worker's data server: its
 * streams, multiplexed by id. Connects with bounded retries and a doubling back-off; a connection
 * that cannot be made, or is lost, fails every stream on it as a lost worker; a connection with no
 * stream for the idle timeout closes. Confined to its event loop (other threads hand it work with
 * {@link #open}, {@link #credit} and {@link #cancel}).
 */
// Netty's write and close futures: a failed write closes the connection, which every stream on
// it hears of (channelInactive); nothing waits on them.
@SuppressWarnings("FutureReturnValueIgnored")
final class ClientConnection extends ChannelInboundHandlerAdapter {
    private static final System.Logger LOG = System.getLogger(ClientConnection.class.getName());

    private final TransportClient client;
    private final InetSocketAddress address;
    private final EventLoop loop;
    private final FrameOpener opener;
    private final List<RemoteInputGate.Stream> pending = new ArrayList<>();
    private final Map<Integer, RemoteInputGate.Stream> streams = new HashMap<>();
    private @Nullable Channel channel;
    private byte @Nullable [] nonce;
    private boolean closed;
    private int nextId = 1;
    private int attempts;
    private long idleSince;

    ClientConnection(TransportClient client, InetSocketAddress address, EventLoop loop) {
        this.client = client;
        this.address = address;
        this.loop = loop;
        this.opener = new FrameOpener(client.shuffle(), address);
    }

    InetSocketAddress address() {
        return address;
    }

    /** Starts connecting, on its event loop. */
    void start() {
        execute(this::connect);
    }

    private void connect() {
        if (closed) {
            return; // a retry scheduled before the connection closed
        }
        attempts++;
        TransportOptions options = client.options();
        Bootstrap bootstrap =
                new Bootstrap()
                        .group(loop)
                        .channel(NettyIo.clientChannel())
                        .option(ChannelOption.TCP_NODELAY, true)
                        .option(
                                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                                (int)
                                        Math.min(
                                                Integer.MAX_VALUE,
                                                options.connectTimeout().toMillis()))
                        .handler(
                                new ChannelInitializer<SocketChannel>() {
                                    @Override
                                    protected void initChannel(SocketChannel ch) {
                                        TransportTls tls = options.tls();
                                        NettyIo.pipeline(
                                                ch,
                                                options,
                                                client.pageSize(),
                                                ClientConnection.this,
                                                tls == null
                                                        ? null
                                                        : tls.clientHandler(ch.alloc(), address));
                                    }
                                });
        ChannelFuture connecting = bootstrap.connect(address);
        connecting.addListener(
                f -> {
                    if (f.isSuccess()) {
                        client.counters().connections.increment();
                        return;
                    }
                    if (closed) {
                        return;
                    }
                    if (attempts < options.connectAttempts()) {
                        long wait = options.retryBackoff().toMillis() << (attempts - 1);
                        loop.schedule(this::connect, wait, TimeUnit.MILLISECONDS);
                    } else {
                        failAll(
                                "worker at "
                                        + address
                                        + " cannot be reached after "
                                        + attempts
                                        + " attempts: "
                                        + f.cause());
                    }
                });
    }

    /**
     * True: the handler is added to the channel of each connection attempt in turn (a retry's
     * channel replaces the one that failed), never to two channels at once.
     */
    @Override
    public boolean isSharable() {
        return true;
    }

    /** Opens {@code stream} on this connection (or on a fresh one, if this one closed). */
    void open(RemoteInputGate.Stream stream) {
        execute(
                () -> {
                    if (closed) {
                        ClientConnection fresh;
                        try {
                            fresh = client.connection(address);
                        } catch (IllegalStateException clientClosed) {
                            stream.gate.fail(
                                    new PartitionLostException(
                                            stream.partitions[0],
                                            "the reading worker closed its transport",
                                            null));
                            return;
                        }
                        fresh.open(stream);
                        return;
                    }
                    if (nonce == null) {
                        pending.add(stream);
                    } else {
                        send(stream);
                    }
                });
    }

    /** Grants {@code pages} more pages of credit to {@code stream}. */
    void credit(RemoteInputGate.Stream stream, int pages) {
        execute(
                () -> {
                    Channel ch = channel;
                    if (!closed && ch != null && streams.get(stream.id) == stream) {
                        ch.writeAndFlush(
                                Wire.twoIntFrame(ch.alloc(), Wire.CREDIT, stream.id, pages));
                    }
                });
    }

    /** Cancels {@code stream}: the server closes it and frees what it held for it. */
    void cancel(RemoteInputGate.Stream stream) {
        execute(
                () -> {
                    pending.remove(stream);
                    Channel ch = channel;
                    if (streams.remove(stream.id, stream) && !closed && ch != null) {
                        ch.writeAndFlush(Wire.intFrame(ch.alloc(), Wire.CANCEL, stream.id));
                    }
                    idleIfEmpty();
                });
    }

    /** Closes the connection now; its streams fail as on a lost worker. */
    void close() {
        execute(
                () -> {
                    Channel ch = channel;
                    if (ch != null) {
                        ch.close();
                    }
                    failAll("the reading worker closed its transport");
                });
    }

    private void execute(Runnable task) {
        try {
            loop.execute(task);
        } catch (RejectedExecutionException e) {
            // the client closed; its close failed every stream
        }
    }

    private void send(RemoteInputGate.Stream stream) {
        Channel ch = channel;
        byte[] hello = nonce;
        if (ch == null || hello == null) {
            throw new IllegalStateException("no connection to " + address + " yet");
        }
        stream.id = nextId++;
        streams.put(stream.id, stream);
        byte[] proof = stream.secret.proof(hello, stream.job, stream.id);
        int count = stream.partitions.length;
        int length = Wire.OPEN_HEADER + 8 * count;
        ByteBuf open =
                Wire.header(ch.alloc(), Wire.OPEN, length, length)
                        .writeInt(stream.id)
                        .writeLong(stream.job.high())
                        .writeLong(stream.job.low())
                        .writeBytes(proof)
                        .writeInt(stream.subpartition)
                        .writeInt(stream.gate.pageSize())
                        .writeInt(count);
        for (PartitionId id : stream.partitions) {
            open.writeInt(id.partition()).writeInt(id.attempt());
        }
        ch.writeAndFlush(open);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (closed) {
            // A connect that completed after the connection closed (its client's close found no
            // channel to close): nothing else would close it before the event loop ends, and a
            // loop that ends while running tasks does not close a channel made by one of them.
            ctx.close();
            return;
        }
        channel = ctx.channel();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame frame = (Frame) msg;
        try {
            handle(frame.type(), frame.body());
        } finally {
            frame.body().release();
        }
    }

    private void handle(byte type, ByteBuf body) {
        if (type == Wire.HELLO) {
            if (nonce != null) {
                throw new ProtocolException("a second HELLO");
            }
            byte[] hello = new byte[Wire.NONCE];
            body.readBytes(hello);
            nonce = hello;
            for (RemoteInputGate.Stream stream : pending) {
                send(stream);
            }
            pending.clear();
            idleIfEmpty();
            return;
        }
        if (type == Wire.ERROR && body.getInt(body.readerIndex()) == 0) {
            refused(body.skipBytes(Wire.ERROR_HEADER).toString(StandardCharsets.UTF_8));
            return;
        }
        if (nonce == null) {
            throw new ProtocolException(Wire.name(type) + " before HELLO");
        }
        switch (type) {
            case Wire.DATA -> data(body);
            case Wire.FRAMES -> frames(body);
            case Wire.BACKLOG -> {
                RemoteInputGate.Stream stream = stream(body.readInt(), "BACKLOG");
                int backlog = body.readInt();
                if (stream != null) {
                    stream.gate.backlog(stream, backlog);
                }
            }
            case Wire.END -> {
                RemoteInputGate.Stream stream = stream(body.readInt(), "END");
                if (stream != null) {
                    streams.remove(stream.id);
                    stream.gate.ended(stream);
                    idleIfEmpty();
                }
            }
            case Wire.ERROR -> error(body);
            case Wire.PING -> {}
            default ->
                    throw new ProtocolException(
                            "a data server sent " + Wire.name(type) + ", which only readers send");
        }
    }

    private void data(ByteBuf body) {
        RemoteInputGate.Stream stream = stream(body.readInt(), "DATA");
        int channelIndex = body.readInt();
        int backlog = body.readInt();
        client.counters().bytesReceived.add(body.readableBytes());
        if (stream != null) {
            stream.gate.receive(stream, channelIndex, backlog, body);
        }
    }

    private void frames(ByteBuf body) {
        RemoteInputGate.Stream stream = stream(body.readInt(), "FRAMES");
        int backlog = body.readInt();
        client.counters().bytesReceived.add(body.readableBytes());
        if (stream != null) {
            stream.gate.receiveFrames(stream, backlog, body, opener);
        }
    }

    private void error(ByteBuf body) {
        RemoteInputGate.Stream stream = stream(body.readInt(), "ERROR");
        byte kind = body.readByte();
        PartitionId id = new PartitionId(Math.max(0, body.readInt()), Math.max(0, body.readInt()));
        String message = body.toString(StandardCharsets.UTF_8);
        if (stream != null) {
            streams.remove(stream.id);
            stream.gate.fail(error(kind, id, message));
            idleIfEmpty();
        }
    }

    /**
     * The server refused the whole connection (a TLS server, a reader without TLS): a configuration
     * error, so every stream fails with {@code message} and nothing is retried.
     */
    private void refused(String message) {
        LOG.log(Level.WARNING, message);
        failAll(stream -> new IllegalStateException(message));
        Channel ch = channel;
        if (ch != null) {
            ch.close();
        }
    }

    private Exception error(byte kind, PartitionId id, String message) {
        if (kind == Wire.LOST) {
            String prefix = "partition lost: '" + id + "': ";
            String reason =
                    message.startsWith(prefix) ? message.substring(prefix.length()) : message;
            return new PartitionLostException(id, reason + " (at worker " + address + ")", null);
        }
        return new IllegalStateException(message);
    }

    /** The open stream {@code id}; null if it was cancelled; a violation if never opened. */
    private RemoteInputGate.@Nullable Stream stream(int id, String what) {
        if (id <= 0 || id >= nextId) {
            throw new ProtocolException(what + " for stream " + id + ", which was never opened");
        }
        return streams.get(id);
    }

    private void idleIfEmpty() {
        if (!streams.isEmpty() || !pending.isEmpty() || closed) {
            return;
        }
        long since = System.nanoTime();
        idleSince = since;
        loop.schedule(
                () -> {
                    if (!closed && idleSince == since && streams.isEmpty() && pending.isEmpty()) {
                        closed = true;
                        client.remove(this);
                        Channel ch = channel;
                        if (ch != null) {
                            ch.close();
                        }
                    }
                },
                client.options().idleTimeout().toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        failAll("the connection to worker at " + address + " was lost");
        ctx.fireChannelInactive();
    }

    /** Fails every stream as on a lost worker: {@link PartitionLostException} for its first. */
    private void failAll(String reason) {
        failAll(stream -> new PartitionLostException(stream.partitions[0], reason, null));
    }

    private void failAll(Function<RemoteInputGate.Stream, Exception> failure) {
        closed = true;
        client.remove(this);
        List<RemoteInputGate.Stream> failing = new ArrayList<>(pending);
        failing.addAll(streams.values());
        pending.clear();
        streams.clear();
        for (RemoteInputGate.Stream stream : failing) {
            stream.gate.fail(failure.apply(stream));
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
            // Not a lost worker: a configuration that retrying or rerunning producers cannot fix.
            String reason =
                    "the TLS handshake with worker at "
                            + address
                            + " failed: "
                            + handshake.cause().getMessage();
            LOG.log(Level.WARNING, reason);
            failAll(stream -> new IllegalStateException(reason));
            ctx.close();
            return;
        }
        boolean timer =
                NettyIo.onIdle(
                        ctx,
                        event,
                        () ->
                                LOG.log(
                                        Level.WARNING,
                                        "closing the connection to worker at "
                                                + address
                                                + ": silent for "
                                                + client.options().peerTimeout()));
        if (!timer) {
            ctx.fireUserEventTriggered(event);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable reason = NettyIo.reason(cause);
        if (reason instanceof ProtocolException) {
            client.counters().violations.increment();
        }
        LOG.log(Level.WARNING, "closing the connection to worker at " + address + ": " + reason);
        ctx.close();
    }
}
