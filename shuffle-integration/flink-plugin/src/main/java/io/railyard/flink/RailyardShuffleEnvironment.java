package io.railyard.flink;

import io.railyard.deployment.JobId;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.transport.DataServer;
import io.railyard.transport.TransportOptions;
import io.railyard.transport.WorkerTransport;
import io.railyard.worker.PartitionRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.apache.flink.metrics.MetricGroup;
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
 * reads them over the transport ({@link RailyardInputGate}), holds them until Flink releases them,
 * and hands everything else to a Flink Netty shuffle environment of its own, which listens on the
 * data port + 1 and gets the network memory Railyard does not ({@link
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
        return new RailyardInputGate(
                owner.getOwnerName(),
                index,
                descriptor.getConsumedResultId(),
                descriptor.getConsumedPartitionType(),
                partitions,
                first,
                last,
                shuffle.options().pageSizeBytes(),
                this::open);
    }

    /**
     * Opens the Railyard gate of {@code gate}: one gate (one guarantee of pages) reading every
     * subpartition of every partition it reads, each as a channel, over the transport; waits for
     * memory to come back if the pool cannot pledge its pages now ({@link MemoryWait}).
     */
    private InputGate open(RailyardInputGate gate) throws IOException {
        List<RailyardShuffleDescriptor> streams = gate.streams();
        List<InetSocketAddress> servers = new ArrayList<>(streams.size());
        List<io.railyard.topology.PartitionId> ids = new ArrayList<>(streams.size());
        for (RailyardShuffleDescriptor partition : streams) {
            servers.add(partition.dataAddress());
            ids.add(partition.railyardId());
        }
        RailyardShuffleDescriptor first = streams.get(0);
        return MemoryWait.create(
                shuffle.bufferPool(),
                () ->
                        transport()
                                .client()
                                .openGate(
                                        gate.name(),
                                        servers,
                                        ids,
                                        gate.subpartitions(),
                                        first.job(),
                                        first.secret()));
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

    /** Partitions held here and not released (tests). */
    int heldPartitions() {
        return held.size();
    }

    /**
     * Releases every partition held here, stops the transport and Flink's shuffle, and closes the
     * shuffle layer (its files go, its memory is freed).
     */
    @Override
    public void close() throws Exception {
        closed = true;
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
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.log(Level.FINE, "closing after a failed start", e);
        }
    }
}
