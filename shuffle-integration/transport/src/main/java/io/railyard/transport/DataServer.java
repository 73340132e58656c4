package io.railyard.transport;

import static com.google.common.base.Preconditions.checkArgument;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.railyard.deployment.JobId;
import io.railyard.deployment.JobSecret;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.worker.PartitionRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * A worker's data server: serves the partitions the worker holds to readers of other workers (or of
 * its own, over loopback), one TCP connection per reading worker with many streams on it.
 *
 * <ul>
 *   <li><b>Who may read.</b> Only jobs registered with {@link #serve}: a stream is opened with a
 *       proof of the job's {@link JobSecret} over this connection's nonce; a stream of an unknown
 *       job or with a wrong proof is refused (an {@code ERROR}), counted in {@link Stats#refused()}
 *       and logged with the peer's address.
 *   <li><b>What a stream costs.</b> The worker's shuffle layer reads the stream's partitions into a
 *       gate guaranteed {@link TransportOptions#servePages()} pages of the worker's pool; those
 *       pages go out without a copy and return to the pool once written to the socket.
 *   <li><b>Flow control.</b> A stream sends only against the reader's credit (pages), piggybacks
 *       its backlog, announces a backlog when it has data and no credit, and stops while its
 *       connection is not writable. No event-loop thread ever waits: waiting for a partition to be
 *       registered happens on a separate opener thread.
 *   <li><b>Hostile bytes.</b> A frame that is not this protocol closes its connection, logged.
 * </ul>
 *
 * <p>Thread-safe. Each connection's state is confined to its event loop. Costs: O(1) per frame,
 * plus what the shuffle layer's read costs.
 */
// Netty's write and close futures: a failed write closes the connection, which every stream on
// it hears of (channelInactive); nothing waits on them.
@SuppressWarnings("FutureReturnValueIgnored")
public final class DataServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(DataServer.class.getName());

    private final TransportOptions options;
    private final int pageSize;
    private final EventLoopGroup group;
    private final ExecutorService opener;
    private final Channel channel;
    private final InetSocketAddress address;
    private final Map<JobId, ServedJob> jobs = new ConcurrentHashMap<>();
    private final Set<Channel> connections = ConcurrentHashMap.newKeySet();
    private final Counters counters = new Counters();
    private volatile boolean closed;

    /** A job this server serves: its secret, the partitions its worker holds, its shuffle layer. */
    record ServedJob(
            JobId job, JobSecret secret, PartitionRegistry partitions, ShuffleWorker shuffle) {}

    /** What the server did so far. */
    static final class Counters {
        final LongAdder refused = new LongAdder();
        final LongAdder violations = new LongAdder();
        final LongAdder streams = new LongAdder();
        final LongAdder bytesSent = new LongAdder();
        final LongAdder bytesSentWithoutCopy = new LongAdder();
        final LongAdder bytesSentFromFiles = new LongAdder();
        final LongAdder messages = new LongAdder();
        final LongAdder credits = new LongAdder();
        final LongAdder backlogs = new LongAdder();

        final AtomicInteger open = new AtomicInteger();
    }

    /**
     * What a data server did so far.
     *
     * @param streams streams opened
     * @param openStreams streams open now
     * @param refused streams refused (unknown job, wrong proof)
     * @param violations connections closed for bytes that are not the protocol
     * @param bytesSent payload bytes sent
     * @param bytesSentWithoutCopy of those, bytes the server did not copy: sent from the pages they
     *     were read into, or from files
     * @param bytesSentFromFiles of those, bytes sent as file regions: from the page cache to the
     *     socket by the kernel (sendfile), never in the process
     * @param dataFrames DATA and FRAMES frames sent
     * @param creditFrames CREDIT frames received
     * @param backlogFrames BACKLOG frames sent (a stream had data and no credit)
     */
    public record Stats(
            long streams,
            int openStreams,
            long refused,
            long violations,
            long bytesSent,
            long bytesSentWithoutCopy,
            long bytesSentFromFiles,
            long dataFrames,
            long creditFrames,
            long backlogFrames) {}

    private DataServer(TransportOptions options, int pageSize) throws IOException {
        this.options = options;
        this.pageSize = pageSize;
        this.group = NettyIo.group(1, "railyard-data-server");
        AtomicInteger openers = new AtomicInteger();
        this.opener =
                Executors.newCachedThreadPool(
                        task -> {
                            Thread thread =
                                    new Thread(
                                            task,
                                            "railyard-data-open-" + openers.incrementAndGet());
                            thread.setDaemon(true);
                            return thread;
                        });
        ServerBootstrap bootstrap =
                new ServerBootstrap()
                        .group(group)
                        .channel(NettyIo.serverChannel())
                        .childOption(ChannelOption.TCP_NODELAY, true)
                        .childOption(
                                ChannelOption.WRITE_BUFFER_WATER_MARK,
                                new WriteBufferWaterMark(512 * 1024, 1024 * 1024))
                        .childHandler(
                                new ChannelInitializer<SocketChannel>() {
                                    @Override
                                    protected void initChannel(SocketChannel ch) {
                                        accept(ch);
                                    }
                                });
        try {
            this.channel =
                    bootstrap
                            .bind(options.bindAddress(), options.port())
                            .syncUninterruptibly()
                            .channel();
        } catch (Exception e) { // Netty rethrows the bind's BindException unchecked
            NettyIo.shutdown(group);
            opener.shutdownNow();
            throw new IOException(
                    "cannot start the data server on "
                            + options.bindAddress()
                            + ":"
                            + options.port()
                            + ": "
                            + e.getMessage(),
                    e);
        }
        this.address = (InetSocketAddress) channel.localAddress();
    }

    /** Sets up the pipeline of an accepted connection (or closes it if the server closed). */
    private void accept(SocketChannel ch) {
        connections.add(ch);
        ch.closeFuture().addListener(f -> connections.remove(ch));
        if (closed) {
            ch.close();
            return;
        }
        TransportTls tls = options.tls();
        NettyIo.pipeline(
                ch,
                options,
                Math.max(pageSize, 4096),
                new ServerConnection(this),
                tls == null ? null : tls.serverHandler(ch.alloc()));
        if (tls != null) {
            ch.pipeline()
                    .addAfter(ch.pipeline().firstContext().name(), null, new PlaintextGuard(this));
        }
    }

    /**
     * A data server listening on {@code options}' address and port (0: a free one), reading with
     * pages of {@code pageSize} bytes (the worker's page size).
     *
     * @throws IOException if it cannot listen there (the message names the address, the port and
     *     why: a port in use, an address not of this host)
     * @throws IllegalArgumentException if {@code pageSize} is below 256
     */
    public static DataServer start(TransportOptions options, int pageSize) throws IOException {
        checkArgument(pageSize >= 256, "page size must be >= 256, was %s", pageSize);
        return new DataServer(options, pageSize);
    }

    /** Where it listens (the port it was given, or the one it picked). */
    public InetSocketAddress address() {
        return address;
    }

    /**
     * Serves job {@code job}'s partitions held in {@code partitions}, read through {@code shuffle},
     * to readers proving {@code secret}. Replaces an earlier registration of {@code job}.
     */
    public void serve(
            JobId job, JobSecret secret, PartitionRegistry partitions, ShuffleWorker shuffle) {
        jobs.put(job, new ServedJob(job, secret, partitions, shuffle));
    }

    /** Stops serving {@code job}: new streams of it are refused. */
    public void stopServing(JobId job) {
        jobs.remove(job);
    }

    /** What the server did so far. */
    public Stats stats() {
        return new Stats(
                counters.streams.sum(),
                counters.open.get(),
                counters.refused.sum(),
                counters.violations.sum(),
                counters.bytesSent.sum(),
                counters.bytesSentWithoutCopy.sum(),
                counters.bytesSentFromFiles.sum(),
                counters.messages.sum(),
                counters.credits.sum(),
                counters.backlogs.sum());
    }

    /** Connections open now. */
    public int connections() {
        return connections.size();
    }

    /**
     * Stops listening and closes every connection: their streams end, and their readers' gates fail
     * as if the worker were lost. Waits for the event loop to finish. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        channel.close().awaitUninterruptibly();
        for (Channel connection : connections) {
            connection.close();
        }
        NettyIo.shutdown(group);
        opener.shutdownNow();
    }

    // ---- for ServerConnection ----

    @Nullable ServedJob job(JobId job) {
        return jobs.get(job);
    }

    TransportOptions options() {
        return options;
    }

    int pageSize() {
        return pageSize;
    }

    ExecutorService opener() {
        return opener;
    }

    Counters counters() {
        return counters;
    }

    static void log(System.Logger.Level level, String message) {
        LOG.log(level, message);
    }
}
