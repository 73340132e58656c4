package io.railyard.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.railyard.deployment.JobId;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.PartitionId;
import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * The server side of one connection: greets the reader with a nonce, opens the streams it proves it
 * may read, sends each stream's data against its credit, and closes the connection at the first
 * bytes that are not the protocol. Confined to the connection's event loop, but the opener thread's
 * wait for partitions (see {@link #open}).
 */
// Netty's write and close futures: a failed write closes the connection, which every stream on
// it hears of (channelInactive); nothing waits on them.
@SuppressWarnings("FutureReturnValueIgnored")
final class ServerConnection extends ChannelInboundHandlerAdapter {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final DataServer server;
    private final byte[] nonce = new byte[Wire.NONCE];
    private final Map<Integer, ServedStream> streams = new HashMap<>();
    private int highestStream;
    private String peer = "?";

    ServerConnection(DataServer server) {
        this.server = server;
    }

    /** One stream: a gate over the requested partitions, and what the reader's credit allows. */
    private static final class ServedStream {
        final int id;
        final PartitionId[] partitions;
        final int pageSize;
        @Nullable InputGate gate;
        @Nullable SectionSource files;
        volatile boolean closed;
        int credit;
        int room;
        int told; // the backlog the reader heard last (with a piece, or announced)
        boolean waiting;
        @Nullable Outgoing current;

        ServedStream(int id, PartitionId[] partitions, int pageSize) {
            this.id = id;
            this.partitions = partitions;
            this.pageSize = pageSize;
        }
    }

    /**
     * A buffer of a stream's gate going out in pieces: recycled once its last piece is written, or
     * once it is abandoned with no piece in flight.
     */
    private static final class Outgoing {
        final InputGate.Buffer buffer;
        final ByteBuffer data;
        int offset;
        int inFlight;
        boolean abandoned;
        boolean recycled;

        Outgoing(InputGate.Buffer buffer) {
            this.buffer = buffer;
            this.data = buffer.data();
        }

        int remaining() {
            return data.remaining() - offset;
        }

        void pieceWritten() {
            inFlight--;
            recycleIfDone();
        }

        void abandon() {
            abandoned = true;
            recycleIfDone();
        }

        private void recycleIfDone() {
            if (!recycled && inFlight == 0 && (abandoned || remaining() == 0)) {
                recycled = true;
                buffer.recycle();
            }
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        SocketAddress remote = ctx.channel().remoteAddress();
        this.peer = String.valueOf(remote);
        RANDOM.nextBytes(nonce);
        ByteBuf hello = Wire.header(ctx.alloc(), Wire.HELLO, Wire.NONCE, Wire.NONCE);
        ctx.writeAndFlush(hello.writeBytes(nonce));
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame frame = (Frame) msg;
        try {
            handle(ctx, frame.type(), frame.body());
        } finally {
            frame.body().release();
        }
    }

    private void handle(ChannelHandlerContext ctx, byte type, ByteBuf body) {
        switch (type) {
            case Wire.OPEN -> open(ctx, body);
            case Wire.CREDIT -> {
                ServedStream stream = stream(body.readInt(), "CREDIT");
                int pages = body.readInt();
                if (pages < 1 || pages > 1 << 20) {
                    throw new ProtocolException("CREDIT of " + pages + " pages");
                }
                server.counters().credits.increment();
                if (stream != null) {
                    stream.credit += pages;
                    pump(ctx, stream);
                }
            }
            case Wire.CANCEL -> {
                ServedStream stream = stream(body.readInt(), "CANCEL");
                if (stream != null) {
                    close(stream);
                }
            }
            case Wire.PING -> {}
            default ->
                    throw new ProtocolException(
                            "a reader sent " + Wire.name(type) + ", which only a server sends");
        }
    }

    /** The open stream {@code id}; null if it ended; a violation if it was never opened. */
    private @Nullable ServedStream stream(int id, String what) {
        if (id <= 0 || id > highestStream) {
            throw new ProtocolException(what + " for stream " + id + ", which was never opened");
        }
        return streams.get(id);
    }

    /** An OPEN frame's request (arrays owned by it). */
    private static final class OpenRequest {
        final int id;
        final JobId job;
        final byte[] proof;
        final int subpartition;
        final int pageSize;
        final PartitionId[] partitions;

        OpenRequest(
                int id,
                JobId job,
                byte[] proof,
                int subpartition,
                int pageSize,
                PartitionId[] partitions) {
            this.id = id;
            this.job = job;
            this.proof = proof;
            this.subpartition = subpartition;
            this.pageSize = pageSize;
            this.partitions = partitions;
        }
    }

    /**
     * Reads an OPEN frame's body, checking every field.
     *
     * @throws ProtocolException if a field is out of range or the stream id does not grow
     */
    private OpenRequest readOpen(ByteBuf body) {
        int id = body.readInt();
        JobId job = new JobId(body.readLong(), body.readLong());
        byte[] proof = new byte[Wire.PROOF];
        body.readBytes(proof);
        int subpartition = body.readInt();
        int pageSize = body.readInt();
        int count = body.readInt();
        if (count < 1 || count > Wire.MAX_OPEN_PARTITIONS || body.readableBytes() != 8L * count) {
            throw new ProtocolException(
                    "OPEN of " + count + " partitions in " + body.readableBytes() + " bytes");
        }
        if (id <= highestStream) {
            throw new ProtocolException(
                    "OPEN of stream " + id + " after stream " + highestStream + " (ids only grow)");
        }
        if (pageSize < 256 || pageSize > 16 << 20 || subpartition < 0) {
            throw new ProtocolException(
                    "OPEN with page size " + pageSize + " and subpartition " + subpartition);
        }
        highestStream = id;
        PartitionId[] partitions = new PartitionId[count];
        for (int i = 0; i < count; i++) {
            int partition = body.readInt();
            int attempt = body.readInt();
            if (partition < 0 || attempt < 0) {
                throw new ProtocolException("OPEN of partition " + partition + "." + attempt);
            }
            partitions[i] = new PartitionId(partition, attempt);
        }
        return new OpenRequest(id, job, proof, subpartition, pageSize, partitions);
    }

    private void open(ChannelHandlerContext ctx, ByteBuf body) {
        OpenRequest request = readOpen(body);
        int id = request.id;
        DataServer.ServedJob served = server.job(request.job);
        if (served == null || !served.secret().verifies(request.proof, nonce, request.job, id)) {
            refuse(
                    ctx,
                    request,
                    served == null ? "job " + request.job + " is not served here" : "wrong proof");
            return;
        }
        ServedStream stream = new ServedStream(id, request.partitions, request.pageSize);
        streams.put(id, stream);
        server.counters().streams.increment();
        server.counters().open.incrementAndGet();
        try {
            server.opener().execute(() -> openGate(ctx, served, stream, request.subpartition));
        } catch (RejectedExecutionException e) {
            close(stream); // the server is closing
        }
    }

    /** Refuses {@code request} for {@code why}: counted, logged with the peer, answered. */
    private void refuse(ChannelHandlerContext ctx, OpenRequest request, String why) {
        server.counters().refused.increment();
        DataServer.log(
                Level.WARNING,
                "data server "
                        + server.address()
                        + " refused stream "
                        + request.id
                        + " of "
                        + peer
                        + ": "
                        + why);
        PartitionId first = request.partitions[0];
        ctx.writeAndFlush(
                Wire.error(
                        ctx.alloc(),
                        request.id,
                        Wire.REFUSED,
                        first.partition(),
                        first.attempt(),
                        "data server " + server.address() + " refused the stream: " + why));
    }

    /**
     * On an opener thread: waits for the stream's partitions to be registered (as a local reader
     * would), opens a gate over them, and hands it to the event loop.
     */
    private void openGate(
            ChannelHandlerContext ctx,
            DataServer.ServedJob served,
            ServedStream stream,
            int subpartition) {
        InputGate gate = null;
        SectionSource files = null;
        PartitionId failed = stream.partitions[0];
        byte kind = Wire.FAILED;
        String message = null;
        try {
            List<ResultPartition> read = new ArrayList<>(stream.partitions.length);
            for (PartitionId id : stream.partitions) {
                failed = id;
                read.add(await(served, stream, id, subpartition));
            }
            ShuffleWorker holder = served.shuffle();
            if (server.options().sendsFileRegions()
                    && SectionSource.serves(read, stream.pageSize, holder)) {
                files = SectionSource.open(read, subpartition, holder);
            } else {
                gate =
                        served.shuffle()
                                .openGate(
                                        "serve " + peer + " stream " + stream.id,
                                        read,
                                        subpartition,
                                        server.options().servePages());
            }
        } catch (PartitionLostException e) {
            kind = Wire.LOST;
            failed = e.partitionId();
            message = e.getMessage();
        } catch (CancellationException e) {
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            message = "the data server is closing";
        } catch (RuntimeException e) {
            message = "data server " + server.address() + " cannot serve it: " + e.getMessage();
        }
        InputGate opened = gate;
        SectionSource source = files;
        PartitionId lost = failed;
        byte errorKind = kind;
        String error = message;
        try {
            ctx.executor()
                    .execute(
                            () -> {
                                if (opened == null && source == null) {
                                    fail(ctx, stream, errorKind, lost, String.valueOf(error));
                                } else if (stream.closed) {
                                    closeQuietly(opened, source);
                                } else {
                                    stream.gate = opened;
                                    stream.files = source;
                                    pump(ctx, stream);
                                }
                            });
        } catch (RejectedExecutionException e) {
            closeQuietly(opened, source);
        }
    }

    private static void closeQuietly(@Nullable InputGate gate, @Nullable SectionSource files) {
        if (gate != null) {
            gate.close();
        }
        if (files != null) {
            files.close();
        }
    }

    /**
     * Partition {@code id} as the stream's reader may read it: registered (waiting for it as a
     * local reader would, until the stream closes), not released, with {@code subpartition}.
     */
    private static ResultPartition await(
            DataServer.ServedJob served, ServedStream stream, PartitionId id, int subpartition)
            throws PartitionLostException, InterruptedException {
        ResultPartition partition =
                served.partitions()
                        .await(
                                id,
                                () -> {
                                    if (stream.closed) {
                                        throw new CancellationException("stream closed");
                                    }
                                });
        if (partition.isReleased()) {
            throw new PartitionLostException(id, "it was released", null);
        }
        if (subpartition >= partition.numSubpartitions()) {
            throw new IllegalArgumentException(
                    "subpartition "
                            + subpartition
                            + " of '"
                            + id
                            + "', which has "
                            + partition.numSubpartitions());
        }
        return partition;
    }

    /**
     * Tells the reader of {@code stream}, out of credit, that {@code backlog} pages wait, if that
     * is more than it heard last: a reader grants credit while the backlog it heard is positive, so
     * saying it again would only cost a message and a wake-up on each side. Returns whether it
     * wrote.
     */
    private boolean announce(ChannelHandlerContext ctx, ServedStream stream, int backlog) {
        if (backlog <= stream.told) {
            return false;
        }
        stream.told = backlog;
        server.counters().backlogs.increment();
        ctx.write(Wire.twoIntFrame(ctx.alloc(), Wire.BACKLOG, stream.id, backlog));
        return true;
    }

    /**
     * Sends what the stream's credit and the connection allow; announces a backlog when credit runs
     * out ({@link #announce}); ends the stream when its gate finished.
     */
    private void pump(ChannelHandlerContext ctx, ServedStream stream) {
        SectionSource files = stream.files;
        if (files != null) {
            pumpFiles(ctx, stream, files);
            return;
        }
        InputGate gate = stream.gate;
        boolean wrote = false;
        while (gate != null && !stream.closed && ctx.channel().isWritable()) {
            Outgoing out = stream.current;
            if (out == null) {
                out = next(ctx, stream, gate);
                if (out == null) {
                    wrote |= stream.closed; // an END or ERROR went out
                    break;
                }
                stream.current = out;
            }
            if (stream.room == 0) {
                if (stream.credit == 0) {
                    wrote |= announce(ctx, stream, backlog(stream, gate));
                    break;
                }
                stream.credit--;
                stream.room = stream.pageSize;
            }
            sendPiece(ctx, stream, out, gate);
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
        }
    }

    /**
     * Sends a stream of finished blocking partitions: a FRAMES piece per page of credit, its runs
     * of frames as file regions (the kernel copies them from the page cache to the socket); a
     * backlog when credit runs out; END when no frame is left.
     */
    private void pumpFiles(ChannelHandlerContext ctx, ServedStream stream, SectionSource files) {
        boolean wrote = false;
        try {
            while (!stream.closed && ctx.channel().isWritable()) {
                if (!files.hasNext()) {
                    ctx.write(Wire.intFrame(ctx.alloc(), Wire.END, stream.id));
                    close(stream);
                    wrote = true;
                    break;
                }
                if (stream.credit == 0) {
                    wrote |= announce(ctx, stream, Math.max(1, files.backlog(stream.pageSize)));
                    break;
                }
                SectionSource.Piece piece =
                        files.nextPiece(ctx.alloc(), stream.id, stream.pageSize);
                if (piece == null) {
                    continue; // hasNext said so: END next
                }
                stream.credit--;
                stream.told = piece.backlog();
                for (Object message : piece.messages()) {
                    ctx.write(message);
                }
                server.counters().bytesSent.add(piece.bytes());
                server.counters().bytesSentWithoutCopy.add(piece.fromFiles());
                server.counters().bytesSentFromFiles.add(piece.fromFiles());
                server.counters().messages.increment();
                wrote = true;
            }
        } catch (PartitionLostException e) {
            fail(ctx, stream, Wire.LOST, e.partitionId(), String.valueOf(e.getMessage()));
            wrote = false; // fail flushed
        } catch (RuntimeException e) {
            fail(ctx, stream, Wire.FAILED, files.current(), String.valueOf(e.getMessage()));
            wrote = false;
        }
        if (wrote) {
            ctx.flush();
        }
    }

    /**
     * The stream's next buffer with bytes to send; null if there is none now (the stream then waits
     * for its gate), or the gate finished (END written) or failed (ERROR written).
     */
    private @Nullable Outgoing next(
            ChannelHandlerContext ctx, ServedStream stream, InputGate gate) {
        while (true) {
            InputGate.Buffer buffer;
            try {
                buffer = gate.poll();
            } catch (PartitionLostException e) {
                fail(ctx, stream, Wire.LOST, e.partitionId(), String.valueOf(e.getMessage()));
                return null;
            } catch (IllegalStateException e) {
                fail(
                        ctx,
                        stream,
                        Wire.FAILED,
                        stream.partitions[0],
                        String.valueOf(e.getMessage()));
                return null;
            }
            if (buffer == null) {
                if (gate.isFinished()) {
                    ctx.write(Wire.intFrame(ctx.alloc(), Wire.END, stream.id));
                    close(stream);
                } else {
                    awaitData(ctx, stream, gate);
                }
                return null;
            }
            Outgoing out = new Outgoing(buffer);
            if (out.remaining() > 0) {
                return out;
            }
            out.abandon(); // nothing to send
        }
    }

    /**
     * Writes the next piece of {@code out}: what fits the rest of the reader's current page, from
     * the gate's page without a copy; the buffer is recycled once its last piece is written.
     */
    private void sendPiece(
            ChannelHandlerContext ctx, ServedStream stream, Outgoing out, InputGate gate) {
        int piece = Math.min(out.remaining(), stream.room);
        stream.room -= piece;
        ByteBuffer bytes = out.data.slice(out.data.position() + out.offset, piece);
        out.offset += piece;
        out.inFlight++;
        if (out.remaining() == 0) {
            stream.current = null;
        }
        int backlog = backlog(stream, gate);
        stream.told = backlog;
        ctx.write(Wire.dataHeader(ctx.alloc(), stream.id, out.buffer.channel(), backlog, piece));
        ctx.write(Unpooled.wrappedBuffer(bytes)).addListener(f -> out.pieceWritten());
        server.counters().bytesSent.add(piece);
        if (server.options().tls() == null) { // TLS encrypts into new buffers: a copy
            server.counters().bytesSentWithoutCopy.add(piece);
        }
        server.counters().messages.increment();
    }

    /**
     * The stream's backlog, exact ({@link Wire}): the pages its waiting data — the rest of the
     * buffer going out and what its gate holds ready — fills beyond the reader's current page. A
     * buffer the gate's IO thread publishes after this is announced when credit runs out.
     */
    private static int backlog(ServedStream stream, InputGate gate) {
        Outgoing out = stream.current;
        long waiting = (out == null ? 0 : out.remaining()) + gate.bytesReady() - stream.room;
        return waiting <= 0 ? 0 : (int) ((waiting + stream.pageSize - 1) / stream.pageSize);
    }

    private void awaitData(ChannelHandlerContext ctx, ServedStream stream, InputGate gate) {
        if (stream.waiting) {
            return;
        }
        stream.waiting = true;
        gate.availability()
                .whenComplete(
                        (ignored, error) -> {
                            try {
                                ctx.executor()
                                        .execute(
                                                () -> {
                                                    stream.waiting = false;
                                                    pump(ctx, stream);
                                                });
                            } catch (RejectedExecutionException e) {
                                // the server closed: channelInactive closed the stream
                            }
                        });
    }

    private void fail(
            ChannelHandlerContext ctx,
            ServedStream stream,
            byte kind,
            PartitionId partition,
            String message) {
        if (stream.closed) {
            return;
        }
        ctx.writeAndFlush(
                Wire.error(
                        ctx.alloc(),
                        stream.id,
                        kind,
                        partition.partition(),
                        partition.attempt(),
                        message));
        close(stream);
    }

    private void close(ServedStream stream) {
        if (stream.closed) {
            return;
        }
        stream.closed = true;
        streams.remove(stream.id);
        server.counters().open.decrementAndGet();
        Outgoing out = stream.current;
        stream.current = null;
        if (out != null) {
            out.abandon();
        }
        closeQuietly(stream.gate, stream.files);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        for (ServedStream stream : List.copyOf(streams.values())) {
            close(stream);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            for (ServedStream stream : List.copyOf(streams.values())) {
                pump(ctx, stream);
            }
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
            if (ctx.channel().hasAttr(PlaintextGuard.REFUSED)) {
                ctx.close(); // refused, counted and logged by the guard
                return;
            }
            server.counters().refused.increment();
            DataServer.log(
                    Level.WARNING,
                    "data server "
                            + server.address()
                            + " refused "
                            + peer
                            + ": TLS handshake failed: "
                            + handshake.cause().getMessage());
            ctx.close();
            return;
        }
        boolean timer =
                NettyIo.onIdle(
                        ctx,
                        event,
                        () ->
                                DataServer.log(
                                        Level.WARNING,
                                        "data server "
                                                + server.address()
                                                + " closes the connection of "
                                                + peer
                                                + ": silent for "
                                                + server.options().peerTimeout()));
        if (!timer) {
            ctx.fireUserEventTriggered(event);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable reason = NettyIo.reason(cause);
        if (reason instanceof ProtocolException || reason instanceof IndexOutOfBoundsException) {
            server.counters().violations.increment();
        }
        DataServer.log(
                Level.WARNING,
                "data server "
                        + server.address()
                        + " closes the connection of "
                        + peer
                        + ": "
                        + reason);
        ctx.close();
    }
}
