package io.railyard.flink;

import io.railyard.deployment.JobSecret;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleMemory;
import io.railyard.topology.PartitionId;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.shuffle.JobShuffleContext;
import org.apache.flink.runtime.shuffle.NettyShuffleMaster;
import org.apache.flink.runtime.shuffle.PartitionDescriptor;
import org.apache.flink.runtime.shuffle.ProducerDescriptor;
import org.apache.flink.runtime.shuffle.ShuffleDescriptor;
import org.apache.flink.runtime.shuffle.ShuffleMaster;
import org.apache.flink.runtime.shuffle.ShuffleMasterContext;
import org.apache.flink.runtime.shuffle.TaskInputsOutputsDescriptor;

/**
 * The JobManager side of the plugin: answers each partition's registration with a {@link
 * RailyardShuffleDescriptor} when Railyard serves its type ({@link PluginOptions#serves}), and
 * hands the others to Flink's own {@link NettyShuffleMaster}, pointed at the producer's Netty port
 * (the Railyard data port + 1: {@link RailyardShuffleEnvironment#start()}).
 *
 * <p>Railyard ids: each registration takes the next partition number of this master (unique across
 * jobs, so that no two partitions a TaskManager holds share file names) and the producer's attempt
 * number. Each job gets a random {@link JobSecret} at {@link #registerJob}, which its descriptors
 * carry to the TaskManagers.
 *
 * <p>Thread-safe; Flink calls it on the JobManager's main thread. Every method is O(1) but {@link
 * #computeShuffleMemorySizeForTask}, O(the task's datasets).
 */
@SuppressWarnings("try") // close() throws Exception as Flink's interface declares
public final class RailyardShuffleMaster implements ShuffleMaster<ShuffleDescriptor> {
    private static final Logger LOG = Logger.getLogger(RailyardShuffleMaster.class.getName());

    private final PluginOptions options;
    private final NettyShuffleMaster netty;
    private final AtomicInteger nextPartition = new AtomicInteger();
    private final Map<JobID, JobSecret> secrets = new ConcurrentHashMap<>();

    /**
     * A master with the settings in {@code context}'s configuration.
     *
     * @throws IllegalArgumentException naming a bad key of the plugin ({@link PluginOptions#from})
     */
    public RailyardShuffleMaster(ShuffleMasterContext context) {
        this.options = PluginOptions.from(context.getConfiguration());
        this.netty = new NettyShuffleMaster(context);
    }

    @Override
    public void start() throws Exception {
        netty.start();
    }

    @Override
    public void close() throws Exception {
        netty.close();
    }

    @Override
    public void registerJob(JobShuffleContext context) {
        secrets.computeIfAbsent(context.getJobId(), id -> JobSecret.random());
        if (options.fallback() == PluginOptions.Fallback.ALL) {
            LOG.info(
                    () ->
                            "job "
                                    + context.getJobId()
                                    + ": every partition goes to Flink's shuffle ("
                                    + PluginOptions.FALLBACK_KEY
                                    + " = all)");
        }
        netty.registerJob(context);
    }

    @Override
    public void unregisterJob(JobID job) {
        secrets.remove(job);
        netty.unregisterJob(job);
    }

    @Override
    public CompletableFuture<ShuffleDescriptor> registerPartitionWithProducer(
            JobID job, PartitionDescriptor partition, ProducerDescriptor producer) {
        ResultPartitionType type = partition.getPartitionType();
        if (!options.serves(type)) {
            LOG.fine(() -> "job " + job + ": " + type + " partition goes to Flink's shuffle");
            return netty.registerPartitionWithProducer(job, partition, nettyProducer(producer))
                    .thenApply(descriptor -> descriptor);
        }
        JobSecret secret = secrets.computeIfAbsent(job, id -> JobSecret.random());
        ResultPartitionID id =
                new ResultPartitionID(
                        partition.getPartitionId(), producer.getProducerExecutionId());
        PartitionId railyardId =
                new PartitionId(
                        nextPartition.getAndIncrement() & Integer.MAX_VALUE,
                        producer.getProducerExecutionId().getAttemptNumber());
        return CompletableFuture.completedFuture(
                new RailyardShuffleDescriptor(
                        id,
                        producer.getProducerLocation(),
                        producer.getAddress(),
                        producer.getDataPort(),
                        railyardId,
                        options.kindOf(type),
                        job,
                        secret));
    }

    /** The producer as Flink's Netty shuffle sees it: its data port is the Railyard one + 1. */
    private static ProducerDescriptor nettyProducer(ProducerDescriptor producer) {
        if (producer.getDataPort() <= 0) {
            return producer; // local communication only: no server
        }
        return new ProducerDescriptor(
                producer.getProducerLocation(),
                producer.getProducerExecutionId(),
                producer.getAddress(),
                producer.getDataPort() + 1);
    }

    /**
     * Nothing for a Railyard partition: its files live on the producer's TaskManager, which Flink
     * asks to release them ({@link RailyardShuffleEnvironment#releasePartitionsLocally}).
     */
    @Override
    public void releasePartitionExternally(ShuffleDescriptor descriptor) {
        if (!(descriptor instanceof RailyardShuffleDescriptor)) {
            netty.releasePartitionExternally(descriptor);
        }
    }

    /**
     * What a task's partitions and gates pledge in Railyard's pool, from Railyard's own admission
     * rules ({@link ShuffleMemory}), plus what Flink's shuffle computes for what falls back, so
     * that Flink reserves what the task needs (with fine-grained resource management).
     */
    @Override
    public MemorySize computeShuffleMemorySizeForTask(TaskInputsOutputsDescriptor task) {
        long pages = 0;
        boolean fallsBack = false;
        for (Map.Entry<IntermediateDataSetID, ResultPartitionType> output :
                task.getPartitionTypes().entrySet()) {
            if (!options.serves(output.getValue())) {
                fallsBack = true;
                continue;
            }
            PartitionKind kind = options.kindOf(output.getValue());
            int subpartitions =
                    Math.max(1, task.getSubpartitionNums().getOrDefault(output.getKey(), 1));
            int reuse = Math.max(1, task.getPartitionReuseCount().getOrDefault(output.getKey(), 1));
            pages +=
                    (long) reuse
                            * ShuffleMemory.writerPages(options.shuffle(), kind, subpartitions);
        }
        for (ResultPartitionType input : task.getInputPartitionTypes().values()) {
            if (options.serves(input)) {
                pages += ShuffleMemory.gatePages(options.shuffle());
            } else {
                fallsBack = true;
            }
        }
        long bytes = pages * options.shuffle().pageSizeBytes();
        if (fallsBack) {
            bytes += netty.computeShuffleMemorySizeForTask(task).getBytes();
        }
        return new MemorySize(bytes);
    }
}
