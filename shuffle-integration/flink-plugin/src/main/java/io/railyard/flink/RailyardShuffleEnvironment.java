package io.railyard.flink;

import io.railyard.deployment.JobId;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.transport.DataServer;
import io.railyard.transport.TransportClient;
import io.railyard.transport.TransportOptions;
import io.railyard.transport.WorkerTransport;
import io.railyard.worker.CompositeInputGate;
import io.railyard.worker.PartitionRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.deployment.InputGateDeploymentDescriptor;
import org.apache.flink.runtime.deployment.ResultPartitionDeploymentDescriptor;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.executiongraph.IndexRange;
import org.apache.flink.runtime.executiongraph.PartitionInfo;
import org.apache.flink.runtime.io.network.NettyShuffleServiceFactory;
import org.apache.flink.runtime.io.network.api.writer.ResultPartitionWriter;
import org.apache.flink.runtime.io.network.partition.PartitionProducerStateProvider;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.apache.flink.runtime.shuffle.ShuffleDescriptor;
import org.apache.flink.runtime.shuffle.ShuffleEnvironment;
import org.apache.flink.runtime.shuffle.ShuffleEnvironmentContext;
import org.apache.flink.runtime.shuffle.ShuffleIOOwnerContext;
import org.jspecify.annotations.Nullable;

/**
 * The TaskManager side of the plugin: one Railyard {@link ShuffleWorker} (one buffer pool sized
 * from the TaskManager's network memory, one directory, one IO thread) and Railyard's transport
 * (its data server listens on the port {@link #start()} returns, the TaskManager's data port). It
 * writes the partitions of {@link RailyardShuffleDescriptor}s ({@link RailyardResultPartition}),
 * reads them ({@link RailyardInputGate}: its own directly, the others' over the transport), holds
 * them until Flink releases them, and hands everything else to a Flink Netty shuffle environment of
 * its own, which listens on the data port + 1 and gets the network memory Railyard does not ({@link
 * PluginOptions#MEMORY_FRACTION_KEY}).
 *
 * <p>A task's writers, or its gates, are all Railyard's or all Flink's: Flink numbers a task's
 * gates by their place in the task's list, which only one environment can keep.
 *
 * <p>Thread-safe: Flink creates writers and gates on its RPC thread, tasks use them on theirs, and
 * releases come from the TaskManager's main thread.
 */
@SuppressWarnings("try") // close() throws Exception as Flink's interface declares
public final class RailyardShuffleEnvironment
        implements ShuffleEnvironment<ResultPartitionWriter, IndexedInputGate> {
    private static final Logger LOG = Logger.getLogger(RailyardShuffleEnvironment.class.getName());
    private static final int PORT_ATTEMPTS = 10;

    private final ShuffleEnvironmentContext context;
    private final PluginOptions options;
    private final ShuffleWorker shuffle;
    private final Path directory;
    private final long nettyMemoryBytes;
    private final Map<JobId, PartitionRegistry> jobs = new ConcurrentHashMap<>();
    private final Map<ResultPartitionID, RailyardShuffleDescriptor> held =
            new ConcurrentHashMap<>();
    private final Set<RailyardInputGate> openGates = ConcurrentHashMap.newKeySet();

    private volatile boolean closed;
    private volatile @Nullable WorkerTransport transport;
    private volatile @Nullable ShuffleEnvironment<?, ?> netty;

    /**
     * The environment of the TaskManager {@code context} describes; nothing listens before {@link
     * #start()}.
     *
     * @throws IllegalArgumentException naming a bad key, or network memory too small for Railyard's
     *     pool
     * @throws UncheckedIOException if the shuffle directory cannot be created
     */
    public RailyardShuffleEnvironment(ShuffleEnvironmentContext context) {
        this.context = context;
        this.options = PluginOptions.from(context.getConfiguration());
        long network = context.getNetworkMemorySize().getBytes();
        ShuffleOptions shuffleOptions = options.shuffleFor(network);
        this.nettyMemoryBytes = network - shuffleOptions.totalMemoryBytes();
        this.directory =
                Path.of(
                        context.getTmpDirPaths()[0],
                        "railyard-shuffle-" + context.getTaskExecutorResourceId());
        try {
            this.shuffle = new ShuffleWorker(shuffleOptions, directory);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot create Railyard's shuffle directory " + directory, e);
        }
    }

    /**
     * Starts Railyard's data server on the configured data port ({@code taskmanager.data.port}, 0
     * for a free one) and Flink's Netty shuffle on the next port.
     *
     * @return the Railyard data port, which Flink publishes as the TaskManager's data port
     * @throws IOException if either cannot listen (with a fixed port: naming both ports)
     */
    @Override
    public int start() throws IOException {
        Configuration config = context.getConfiguration();
        int configured = config.get(NettyShuffleEnvironmentOptions.DATA_PORT);
        String host = context.getHostAddress().getHostAddress();
        IOException last = null;
        for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
            WorkerTransport started =
                    WorkerTransport.start(
                            TransportOptions.DEFAULT.withAddress(host, configured), shuffle);
            int port = started.address().getPort();
            try {
                netty = startNetty(port + 1);
                transport = started;
                registerMetrics(context.getParentMetricGroup(), started);
                return port;
            } catch (IOException | RuntimeException e) {
                started.close();
                last = e instanceof IOException io ? io : new IOException(e);
                if (configured != 0) {
                    break;
                }
            }
        }
        throw new IOException(
                "Railyard's shuffle needs two consecutive ports (Railyard's data port and Flink's,"
                        + " the next one) and could not listen on them"
                        + (configured != 0 ? ": taskmanager.data.port = " + configured : ""),
                last);
    }

    /**
     * Railyard's counters as gauges of the TaskManager's metric group {@code Shuffle.Railyard}
     * (beside Flink's {@code Shuffle.Netty}), read when a reporter asks: the pool's pages, what
     * went to and came from disk, hybrid partitions' memory and disk bytes, and the transport's
     * bytes and streams. The tasks' own groups get bytes and buffers out from the writers ({@link
     * RailyardResultPartition#setMetricGroup}).
     */
    private void registerMetrics(MetricGroup taskManager, WorkerTransport started) {
        MetricGroup group = taskManager.addGroup("Shuffle").addGroup("Railyard");
        gauge(group, "TotalPages", () -> shuffle.bufferPool().totalPages());
        gauge(group, "PagesInUse", () -> shuffle.bufferPool().pagesInUse());
        gauge(group, "FilesCreated", () -> shuffle.stats().filesCreated());
        gauge(group, "FilesOpenForRead", () -> shuffle.stats().filesOpenForRead());
        gauge(group, "FilesNotDeleted", () -> shuffle.stats().filesNotDeleted());
        gauge(group, "BytesWrittenToDisk", () -> shuffle.stats().bytesWritten());
        gauge(group, "BytesReadFromDisk", () -> shuffle.stats().bytesRead());
        gauge(group, "HybridBytesProduced", () -> shuffle.hybridStats().bytesProduced());
        gauge(group, "HybridBytesWrittenToDisk", () -> shuffle.hybridStats().bytesWrittenToDisk());
        gauge(group, "HybridBytesSpilled", () -> shuffle.hybridStats().bytesSpilled());
        gauge(
                group,
                "HybridBytesReadFromMemory",
                () -> shuffle.hybridStats().bytesReadFromMemory());
        gauge(group, "HybridBytesReadFromDisk", () -> shuffle.hybridStats().bytesReadFromDisk());
        gauge(group, "PartitionsHeld", held::size);
        gauge(group, "BytesSent", () -> started.server().stats().bytesSent());
        gauge(group, "BytesSentFromFiles", () -> started.server().stats().bytesSentFromFiles());
        gauge(group, "StreamsServed", () -> started.server().stats().streams());
        gauge(group, "StreamsRefused", () -> started.server().stats().refused());
        gauge(group, "BytesReceived", () -> started.client().stats().bytesReceived());
    }

    private static void gauge(MetricGroup group, String name, LongSupplier value) {
        group.<Long, Gauge<Long>>gauge(name, value::getAsLong);
    }

    private @Nullable ShuffleEnvironment<?, ?> startNetty(int port) throws IOException {
        if (nettyMemoryBytes
                < context.getConfiguration()
                        .get(org.apache.flink.configuration.TaskManagerOptions.MEMORY_SEGMENT_SIZE)
                        .getBytes()) {
            return null;
        }
        Configuration config = new Configuration(context.getConfiguration());
        config.set(NettyShuffleEnvironmentOptions.DATA_PORT, port);
        config.set(NettyShuffleEnvironmentOptions.DATA_BIND_PORT, String.valueOf(port));
        ShuffleEnvironmentContext nettyContext =
                new ShuffleEnvironmentContext(
                        config,
                        context.getTaskExecutorResourceId(),
                        new MemorySize(nettyMemoryBytes),
                        context.isLocalCommunicationOnly(),
                        context.getHostAddress(),
                        context.getNumberOfSlots(),
                        context.getTmpDirPaths(),
                        context.getEventPublisher(),
                        context.getParentMetricGroup(),
                        context.getIoExecutor(),
                        context.getScheduledExecutor());
        ShuffleEnvironment<?, ?> created =
                new NettyShuffleServiceFactory().createShuffleEnvironment(nettyContext);
        try {
            created.start();
        } catch (IOException | RuntimeException e) {
            closeQuietly(created);
            throw e;
        }
        return created;
    }

    @Override
    public ShuffleIOOwnerContext createShuffleIOOwnerContext(
            String ownerName, ExecutionAttemptID executionAttemptID, MetricGroup parentGroup) {
        ShuffleEnvironment<?, ?> fallback = netty;
        if (fallback != null) {
            return fallback.createShuffleIOOwnerContext(ownerName, executionAttemptID, parentGroup);
        }
        MetricGroup railyard = parentGroup.addGroup("Shuffle").addGroup("Railyard");
        return new ShuffleIOOwnerContext(
                ownerName,
                executionAttemptID,
                parentGroup,
                railyard.addGroup("Output"),
                railyard.addGroup("Input"));
    }

    @Override
    public List<ResultPartitionWriter> createResultPartitionWriters(
            ShuffleIOOwnerContext owner, List<ResultPartitionDeploymentDescriptor> descriptors) {
        int railyard = 0;
        for (ResultPartitionDeploymentDescriptor descriptor : descriptors) {
            if (descriptor.getShuffleDescriptor() instanceof RailyardShuffleDescriptor) {
                railyard++;
            }
        }
        if (railyard == 0 && !descriptors.isEmpty()) {
            return new ArrayList<>(
                    fallback("partitions").createResultPartitionWriters(owner, descriptors));
        }
        checkNotMixed(railyard, descriptors.size(), owner, "result partitions");
        List<ResultPartitionWriter> writers = new ArrayList<>(descriptors.size());
        for (ResultPartitionDeploymentDescriptor descriptor : descriptors) {
            RailyardShuffleDescriptor shuffleDescriptor =
                    (RailyardShuffleDescriptor) descriptor.getShuffleDescriptor();
            jobs.computeIfAbsent(shuffleDescriptor.job(), job -> serve(shuffleDescriptor));
            writers.add(
                    new RailyardResultPartition(
                            owner.getOwnerName(),
                            shuffleDescriptor,
                            descriptor.getNumberOfSubpartitions(),
                            descriptor.getMaxParallelism(),
                            shuffle,
                            this));
        }
        return writers;
    }

    private PartitionRegistry serve(RailyardShuffleDescriptor descriptor) {
        PartitionRegistry registry = new PartitionRegistry();
        transport().serve(descriptor.job(), descriptor.secret(), registry);
        return registry;
    }

    @Override
    public List<IndexedInputGate> createInputGates(
            ShuffleIOOwnerContext owner,
            PartitionProducerStateProvider producerStateProvider,
            List<InputGateDeploymentDescriptor> descriptors) {
        int railyard = 0;
        for (InputGateDeploymentDescriptor descriptor : descriptors) {
            if (isRailyard(descriptor)) {
                railyard++;
            }
        }
        if (railyard == 0 && !descriptors.isEmpty()) {
            return new ArrayList<>(
                    fallback("gates").createInputGates(owner, producerStateProvider, descriptors));
        }
        checkNotMixed(railyard, descriptors.size(), owner, "input gates");
        List<IndexedInputGate> gates = new ArrayList<>(descriptors.size());
        for (int i = 0; i < descriptors.size(); i++) {
            gates.add(gate(owner, i, descriptors.get(i)));
        }
        return gates;
    }

    private static boolean isRailyard(InputGateDeploymentDescriptor descriptor) {
        ShuffleDescriptor[] partitions = descriptor.getShuffleDescriptors();
        return partitions.length > 0 && partitions[0] instanceof RailyardShuffleDescriptor;
    }

    private RailyardInputGate gate(
            ShuffleIOOwnerContext owner, int index, InputGateDeploymentDescriptor descriptor) {
        ShuffleDescriptor[] shuffleDescriptors = descriptor.getShuffleDescriptors();
        List<RailyardShuffleDescriptor> partitions = new ArrayList<>(shuffleDescriptors.length);
        int[] first = new int[shuffleDescriptors.length];
        int[] last = new int[shuffleDescriptors.length];
        for (int i = 0; i < shuffleDescriptors.length; i++) {
            if (!(shuffleDescriptors[i] instanceof RailyardShuffleDescriptor railyard)) {
                throw new IllegalArgumentException(
                        owner.getOwnerName()
                                + ": gate "
                                + index
                                + " reads a partition Railyard does not know yet or does not"
                                + " serve: "
                                + shuffleDescriptors[i]);
            }
            IndexRange range = descriptor.getConsumedSubpartitionRange(i);
            first[i] = range.getStartIndex();
            last[i] = range.getEndIndex();
            partitions.add(railyard);
        }
        RailyardInputGate gate =
                new RailyardInputGate(
                        owner.getOwnerName(),
                        index,
                        descriptor.getConsumedResultId(),
                        descriptor.getConsumedPartitionType(),
                        partitions,
                        first,
                        last,
                        shuffle.options().pageSizeBytes(),
                        this::open,
                        openGates::remove);
        openGates.add(gate);
        return gate;
    }

    /**
     * Opens the Railyard gate of {@code gate}. Partitions of this TaskManager are read directly
     * through its shuffle layer (one part per subpartition read), the others over the transport
     * (one part); the parts share the gate's guarantee of {@code shuffle.read.gate-pages} and form
     * one gate ({@link CompositeInputGate}). Waits for memory to come back if the pool cannot
     * pledge the pages now ({@link MemoryWait}), and for a local hybrid partition not created yet.
     *
     * @throws io.railyard.shuffle.PartitionLostException if a local partition was released, or none
     *     was registered here for the registry's wait
     * @throws java.io.InterruptedIOException if the task was cancelled meanwhile
     */
    private InputGate open(RailyardInputGate gate) throws IOException {
        List<RailyardShuffleDescriptor> streams = gate.streams();
        int[] subpartitions = gate.subpartitions();
        ResourceID here = context.getTaskExecutorResourceId();
        List<Integer> remote = new ArrayList<>();
        Map<Integer, List<Integer>> localBySubpartition = new TreeMap<>();
        for (int c = 0; c < streams.size(); c++) {
            if (streams.get(c).producerLocation().equals(here)) {
                localBySubpartition
                        .computeIfAbsent(subpartitions[c], s -> new ArrayList<>())
                        .add(c);
            } else {
                remote.add(c);
            }
        }
        List<ResultPartition> local = new ArrayList<>();
        for (List<Integer> channels : localBySubpartition.values()) {
            for (int c : channels) {
                local.add(awaitLocal(streams.get(c)));
            }
        }
        int parts = localBySubpartition.size() + (remote.isEmpty() ? 0 : 1);
        int pages = Math.max(1, shuffle.options().gatePages() / Math.max(1, parts));
        return MemoryWait.create(
                shuffle.bufferPool(),
                () ->
                        openParts(
                                gate.name(),
                                streams,
                                subpartitions,
                                remote,
                                localBySubpartition,
                                local,
                                pages));
    }

    /** Opens every part (closing those opened if one cannot be) and composes them. */
    private InputGate openParts(
            String name,
            List<RailyardShuffleDescriptor> streams,
            int[] subpartitions,
            List<Integer> remote,
            Map<Integer, List<Integer>> localBySubpartition,
            List<ResultPartition> local,
            int pages) {
        List<InputGate> opened = new ArrayList<>();
        List<int[]> channels = new ArrayList<>();
        try {
            int next = 0;
            for (Map.Entry<Integer, List<Integer>> entry : localBySubpartition.entrySet()) {
                List<Integer> part = entry.getValue();
                opened.add(
                        shuffle.openGate(
                                name + " (local " + entry.getKey() + ")",
                                local.subList(next, next + part.size()),
                                entry.getKey(),
                                pages));
                channels.add(part.stream().mapToInt(Integer::intValue).toArray());
                next += part.size();
            }
            if (!remote.isEmpty()) {
                List<InetSocketAddress> servers = new ArrayList<>(remote.size());
                List<io.railyard.topology.PartitionId> ids = new ArrayList<>(remote.size());
                int[] remoteSubpartitions = new int[remote.size()];
                for (int k = 0; k < remote.size(); k++) {
                    RailyardShuffleDescriptor partition = streams.get(remote.get(k));
                    servers.add(partition.dataAddress());
                    ids.add(partition.railyardId());
                    remoteSubpartitions[k] = subpartitions[remote.get(k)];
                }
                RailyardShuffleDescriptor first = streams.get(remote.get(0));
                opened.add(
                        transport()
                                .client()
                                .openGate(
                                        name,
                                        servers,
                                        ids,
                                        remoteSubpartitions,
                                        first.job(),
                                        first.secret(),
                                        pages));
                channels.add(remote.stream().mapToInt(Integer::intValue).toArray());
            }
        } catch (RuntimeException e) {
            for (InputGate part : opened) {
                part.close();
            }
            throw e;
        }
        if (opened.size() == 1 && isIdentity(channels.get(0))) {
            return opened.get(0);
        }
        return new CompositeInputGate(
                name,
                opened.toArray(new InputGate[0]),
                channels.toArray(new int[0][]),
                streams.size());
    }

    private static boolean isIdentity(int[] channels) {
        for (int i = 0; i < channels.length; i++) {
            if (channels[i] != i) {
                return false;
            }
        }
        return true;
    }

    /**
     * The partition {@code descriptor} names, held by this TaskManager: registered already (a
     * finished blocking partition) or once its producer creates it (hybrid).
     */
    private ResultPartition awaitLocal(RailyardShuffleDescriptor descriptor) throws IOException {
        PartitionRegistry registry =
                jobs.computeIfAbsent(descriptor.job(), job -> serve(descriptor));
        try {
            return registry.await(
                    descriptor.railyardId(),
                    () -> {
                        if (Thread.currentThread().isInterrupted()) {
                            throw new java.util.concurrent.CancellationException(
                                    "the reading task was cancelled");
                        }
                    });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException(
                    "cancelled while waiting for partition " + descriptor.railyardId());
        }
    }

    private static void checkNotMixed(
            int railyard, int all, ShuffleIOOwnerContext owner, String what) {
        if (railyard != all) {
            throw new IllegalArgumentException(
                    owner.getOwnerName()
                            + " has "
                            + railyard
                            + " of its "
                            + all
                            + " "
                            + what
                            + " on Railyard's shuffle and the others on Flink's: a task's "
                            + what
                            + " must all be on one (set "
                            + PluginOptions.FALLBACK_KEY
                            + " = all for this job)");
        }
    }

    private ShuffleEnvironment<?, ?> fallback(String what) {
        ShuffleEnvironment<?, ?> fallback = netty;
        if (fallback == null) {
            throw new IllegalStateException(
                    "Flink's shuffle is off on this TaskManager ("
                            + PluginOptions.MEMORY_FRACTION_KEY
                            + " = "
                            + options.memoryFraction()
                            + " leaves it no network memory), but a task's "
                            + what
                            + " need it: lower "
                            + PluginOptions.MEMORY_FRACTION_KEY);
        }
        return fallback;
    }

    private WorkerTransport transport() {
        WorkerTransport started = transport;
        if (started == null) {
            throw new IllegalStateException("Railyard's shuffle environment is not started");
        }
        return started;
    }

    /** Makes {@code partition} readable as {@code descriptor} names it, until released. */
    void hold(RailyardShuffleDescriptor descriptor, ResultPartition partition) {
        PartitionRegistry registry =
                jobs.computeIfAbsent(descriptor.job(), job -> serve(descriptor));
        held.put(descriptor.getResultPartitionID(), descriptor);
        registry.register(descriptor.railyardId(), partition, () -> false);
    }

    /** Releases one partition held here, if it is; its readers fail. */
    void releaseLocally(ResultPartitionID id) {
        RailyardShuffleDescriptor descriptor = held.remove(id);
        if (descriptor == null) {
            return;
        }
        PartitionRegistry registry = jobs.get(descriptor.job());
        if (registry == null) {
            return;
        }
        try {
            registry.release(descriptor.railyardId());
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not delete the files of " + descriptor, e);
        }
    }

    @Override
    public void releasePartitionsLocally(Collection<ResultPartitionID> ids) {
        List<ResultPartitionID> flinks = new ArrayList<>();
        for (ResultPartitionID id : ids) {
            if (held.containsKey(id)) {
                releaseLocally(id);
            } else {
                flinks.add(id);
            }
        }
        ShuffleEnvironment<?, ?> fallback = netty;
        if (fallback != null && !flinks.isEmpty()) {
            fallback.releasePartitionsLocally(flinks);
        }
    }

    @Override
    public Collection<ResultPartitionID> getPartitionsOccupyingLocalResources() {
        Set<ResultPartitionID> occupying = new HashSet<>(held.keySet());
        ShuffleEnvironment<?, ?> fallback = netty;
        if (fallback != null) {
            occupying.addAll(fallback.getPartitionsOccupyingLocalResources());
        }
        return occupying;
    }

    /** Railyard's gates know every partition when they are created; Flink's may not. */
    @Override
    public boolean updatePartitionInfo(ExecutionAttemptID consumer, PartitionInfo partitionInfo)
            throws IOException, InterruptedException {
        ShuffleEnvironment<?, ?> fallback = netty;
        return fallback != null && fallback.updatePartitionInfo(consumer, partitionInfo);
    }

    /** The Railyard shuffle layer of this TaskManager (tests count its pages and partitions). */
    ShuffleWorker shuffle() {
        return shuffle;
    }

    /** Whether {@link #close()} was called (its TaskManager stopped). */
    boolean isClosed() {
        return closed;
    }

    /** The directory of this TaskManager's partition files. */
    Path directory() {
        return directory;
    }

    /** What Railyard's data server on this TaskManager did so far (tests). */
    DataServer.Stats serverStats() {
        return transport().server().stats();
    }

    /** What Railyard's transport client on this TaskManager did so far (tests). */
    TransportClient.Stats clientStats() {
        return transport().client().stats();
    }

    /** Partitions held here and not released (tests). */
    int heldPartitions() {
        return held.size();
    }

    /**
     * Releases every partition held here, closes the Railyard side of every gate its task has not
     * closed yet (a TaskManager shutting down under running tasks: their lent buffers come back),
     * stops the transport and Flink's shuffle, and closes the shuffle layer (its files go, its
     * memory is freed).
     */
    @Override
    public void close() throws Exception {
        closed = true;
        for (RailyardInputGate gate : List.copyOf(openGates)) {
            gate.abandon();
        }
        releasePartitionsLocally(new ArrayList<>(held.keySet()));
        for (PartitionRegistry registry : jobs.values()) {
            registry.releaseAll();
        }
        jobs.clear();
        WorkerTransport started = transport;
        if (started != null) {
            started.close();
        }
        ShuffleEnvironment<?, ?> fallback = netty;
        if (fallback != null) {
            fallback.close();
        }
        shuffle.close();
        removeDirectory();
    }

    /**
     * Removes the TaskManager's shuffle directory, which this environment made: empty once every
     * partition was released. One with files left is kept, and said (a leak to look into).
     */
    private void removeDirectory() throws IOException {
        try {
            Files.deleteIfExists(directory);
        } catch (DirectoryNotEmptyException e) {
            LOG.warning(
                    "Railyard's shuffle directory "
                            + directory
                            + " still holds files after every partition was released; kept");
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.log(Level.FINE, "closing after a failed start", e);
        }
    }
}
