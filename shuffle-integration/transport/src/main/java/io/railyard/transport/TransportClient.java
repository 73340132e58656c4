package io.railyard.transport;

import static com.google.common.base.Preconditions.checkArgument;

import io.netty.channel.EventLoopGroup;
import io.railyard.deployment.JobId;
import io.railyard.deployment.JobSecret;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.NetworkBufferPool;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.topology.PartitionId;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The reading side of a worker's transport: opens input gates over partitions held by other
 * workers' {@link DataServer}s, with one connection per data server, shared by every stream of
 * every gate of this worker, closed when idle ({@link TransportOptions#idleTimeout()}).
 *
 * <p>Thread-safe: task threads open gates; connections live on the client's event loop. {@link
 * #openGate} is O(partitions); the bytes of a gate land in pages of this worker's pool.
 */
public final class TransportClient implements AutoCloseable {
    private final TransportOptions options;
    private final NetworkBufferPool pool;
    private final ShuffleOptions shuffle;
    private final EventLoopGroup group;
    private final Map<InetSocketAddress, ClientConnection> connections = new ConcurrentHashMap<>();
    private final Counters counters = new Counters();
    private volatile boolean closed;

    /** What the client did so far. */
    static final class Counters {
        final LongAdder connections = new LongAdder();
        final LongAdder bytesReceived = new LongAdder();
        final LongAdder violations = new LongAdder();
    }

    /**
     * What a client did so far.
     *
     * @param connectionsMade connections established
     * @param connectionsOpen connections open or being made now
     * @param bytesReceived payload bytes received
     * @param violations connections closed for bytes that are not the protocol
     */
    public record Stats(
            long connectionsMade, int connectionsOpen, long bytesReceived, long violations) {}

    /**
     * A client of a worker whose gates take pages from {@code pool}, guaranteed {@code shuffle}'s
     * gate pages each.
     */
    public TransportClient(
            TransportOptions options, NetworkBufferPool pool, ShuffleOptions shuffle) {
        this.options = options;
        this.pool = pool;
        this.shuffle = shuffle;
        this.group = NettyIo.group(1, "railyard-data-client");
    }

    /**
     * A gate named {@code name} reading subpartition {@code subpartition} of {@code partitions}
     * (channel i reads partitions[i], held by the data server at {@code servers[i]}) for job {@code
     * job}, proving {@code secret}. It starts reading at once; the partitions need not be
     * registered yet (their servers wait for them as a local reader would).
     *
     * @throws IllegalArgumentException if the lists differ in length
     * @throws IllegalStateException if the client is closed
     * @throws io.railyard.shuffle.buffer.InsufficientNetworkMemoryException if the pool cannot
     *     pledge the gate's pages
     */
    public InputGate openGate(
            String name,
            List<InetSocketAddress> servers,
            List<PartitionId> partitions,
            int subpartition,
            JobId job,
            JobSecret secret) {
        checkArgument(subpartition >= 0, "subpartition must be >= 0, was %s", subpartition);
        int[] subpartitions = new int[partitions.size()];
        Arrays.fill(subpartitions, subpartition);
        return openGate(name, servers, partitions, subpartitions, job, secret);
    }

    /**
     * A gate as {@link #openGate(String, List, List, int, JobId, JobSecret)} opens, whose channel i
     * reads subpartition {@code subpartitions[i]} of partitions[i]: one gate and one guarantee of
     * pages for a consumer that reads several subpartitions of a partition (a channel each) or
     * different subpartitions of different partitions. One stream per server and subpartition (per
     * {@value Wire#MAX_OPEN_PARTITIONS} partitions).
     *
     * @throws IllegalArgumentException if the lists differ in length or a subpartition is negative
     * @throws IllegalStateException if the client is closed
     * @throws io.railyard.shuffle.buffer.InsufficientNetworkMemoryException if the pool cannot
     *     pledge the gate's pages
     */
    public InputGate openGate(
            String name,
            List<InetSocketAddress> servers,
            List<PartitionId> partitions,
            int[] subpartitions,
            JobId job,
            JobSecret secret) {
        return openGate(name, servers, partitions, subpartitions, job, secret, shuffle.gatePages());
    }

    /**
     * A gate as {@link #openGate(String, List, List, int[], JobId, JobSecret)} opens, guaranteed
     * {@code pages} pages instead of {@code shuffle.read.gate-pages} (a consumer that reads some
     * partitions over the network and the others directly shares its guarantee between the two).
     *
     * @throws IllegalArgumentException if the lists differ in length, a subpartition is negative or
     *     {@code pages} is below 1
     * @throws IllegalStateException if the client is closed
     * @throws io.railyard.shuffle.buffer.InsufficientNetworkMemoryException if the pool cannot
     *     pledge the gate's pages
     */
    public InputGate openGate(
            String name,
            List<InetSocketAddress> servers,
            List<PartitionId> partitions,
            int[] subpartitions,
            JobId job,
            JobSecret secret,
            int pages) {
        checkArgument(pages >= 1, "gate pages must be >= 1, was %s", pages);
        checkArgument(
                servers.size() == partitions.size() && subpartitions.length == partitions.size(),
                "%s servers and %s subpartitions for %s partitions",
                servers.size(),
                subpartitions.length,
                partitions.size());
        for (int subpartition : subpartitions) {
            checkArgument(subpartition >= 0, "subpartition must be >= 0, was %s", subpartition);
        }
        if (closed) {
            throw new IllegalStateException("transport client closed");
        }
        BufferOwner owner =
                pool.register(
                        "input gate '" + name + "'", pages, ShuffleOptions.GATE_PAGES_KEY, null);
        RemoteInputGate gate =
                new RemoteInputGate(name, owner, shuffle.pageSizeBytes(), partitions.size());
        Map<StreamKey, List<Integer>> streams = new LinkedHashMap<>();
        for (int i = 0; i < servers.size(); i++) {
            streams.computeIfAbsent(
                            new StreamKey(servers.get(i), subpartitions[i]), k -> new ArrayList<>())
                    .add(i);
        }
        for (Map.Entry<StreamKey, List<Integer>> entry : streams.entrySet()) {
            List<Integer> channels = entry.getValue();
            for (int from = 0; from < channels.size(); from += Wire.MAX_OPEN_PARTITIONS) {
                int to = Math.min(channels.size(), from + Wire.MAX_OPEN_PARTITIONS);
                PartitionId[] ids = new PartitionId[to - from];
                int[] indices = new int[to - from];
                for (int k = from; k < to; k++) {
                    indices[k - from] = channels.get(k);
                    ids[k - from] = partitions.get(channels.get(k));
                }
                gate.addStream(
                        connection(entry.getKey().server()),
                        ids,
                        indices,
                        entry.getKey().subpartition(),
                        job,
                        secret);
            }
        }
        gate.started();
        for (RemoteInputGate.Stream stream : gate.streams()) {
            stream.connection.open(stream);
        }
        return gate;
    }

    /** The streams of a gate: one per server and subpartition read there. */
    private record StreamKey(InetSocketAddress server, int subpartition) {}

    /** What the client did so far. */
    public Stats stats() {
        return new Stats(
                counters.connections.sum(),
                connections.size(),
                counters.bytesReceived.sum(),
                counters.violations.sum());
    }

    /**
     * Closes every connection (their streams fail as on a lost worker) and stops the event loop.
     * Idempotent.
     */
    @Override
    public void close() {
        List<ClientConnection> open;
        synchronized (this) { // no connection is made between the flag and the copy
            if (closed) {
                return;
            }
            closed = true;
            open = List.copyOf(connections.values());
        }
        for (ClientConnection connection : open) {
            connection.close();
        }
        NettyIo.shutdown(group);
    }

    // ---- for ClientConnection ----

    /**
     * The connection to {@code address}, made if there is none; none is made once the client is
     * closed ({@link IllegalStateException}, as {@link #openGate} throws).
     */
    synchronized ClientConnection connection(InetSocketAddress address) {
        if (closed) {
            throw new IllegalStateException("transport client closed");
        }
        return connections.computeIfAbsent(
                address,
                a -> {
                    ClientConnection made = new ClientConnection(this, a, group.next());
                    made.start();
                    return made;
                });
    }

    void remove(ClientConnection connection) {
        connections.remove(connection.address(), connection);
    }

    TransportOptions options() {
        return options;
    }

    ShuffleOptions shuffle() {
        return shuffle;
    }

    int pageSize() {
        return shuffle.pageSizeBytes();
    }

    Counters counters() {
        return counters;
    }
}
