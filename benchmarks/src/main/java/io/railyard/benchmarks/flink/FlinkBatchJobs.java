package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.LongJobs;
import io.railyard.benchmarks.procedures.LongJobs.Exchange;
import io.railyard.benchmarks.procedures.LongJobs.Shape;
import io.railyard.shuffle.ShuffleDirectory;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.topology.Failures;
import io.railyard.worker.Tally;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.BatchExecutionOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.apache.flink.configuration.ResourceManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.runtime.client.JobExecutionException;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.legacy.RichSinkFunction;
import org.apache.flink.streaming.api.functions.source.legacy.RichParallelSourceFunction;
import org.apache.flink.streaming.api.graph.GlobalStreamExchangeMode;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * Flink 2.3's side of the MiniCluster comparison: one {@link MiniCluster} of 1 TaskManager ×
 * {@value LongJobs#SLOTS} slots running {@link LongJobs}' jobs of one {@link Exchange}, built as
 * flink-benchmarks builds {@code BlockingPartitionBenchmark}'s ({@code
 * StreamGraphUtils.buildGraphForBatchJob}): a legacy parallel source of longs ({@code LongSource}:
 * {@code 0 .. n-1} per subtask), parallelism 4, chaining off, buffer timeout -1, object reuse, then
 * on the StreamGraph the global exchange mode of the {@link Exchange} and job type BATCH; submitted
 * with {@link MiniCluster#executeJobBlocking}, a fresh JobGraph each time (a finished JobID cannot
 * be resubmitted). The sink counts the records and sums {@link LongJobs#hash} into two
 * accumulators, where flink-benchmarks discards them.
 *
 * <p>Configuration (see {@link #configuration}): the same network memory, segment size and
 * compression as Railyard's worker, no restarts, the AdaptiveBatch scheduler (Flink 2.3's for batch
 * jobs) with auto-parallelism off (with it on, Flink's hybrid shuffle falls back to waiting for
 * finished producers) and hybrid consumers deployable once their producers are scheduled ({@code
 * UNFINISHED_PRODUCERS}, as Railyard's), temporary files in a fresh directory under the given
 * parent. Flink's sort-merge partitions read through a further 64 MiB of framework off-heap memory
 * that Railyard's side does not have (it reads through its network memory).
 *
 * <p>Start one per trial and {@link #close} it; {@link #run} may be called any number of times,
 * from one thread at a time.
 */
public final class FlinkBatchJobs implements AutoCloseable {
    /** The sinks' accumulator of records read. */
    static final String RECORDS = "records";

    /** The sinks' accumulator of the sum of {@link LongJobs#hash} of the values read. */
    static final String CHECKSUM = "checksum";

    private final MiniCluster cluster;
    private final ShuffleDirectory directory;
    private final Exchange exchange;

    private FlinkBatchJobs(MiniCluster cluster, ShuffleDirectory directory, Exchange exchange) {
        this.cluster = cluster;
        this.directory = directory;
        this.exchange = exchange;
    }

    /**
     * Starts a MiniCluster for the jobs of {@code exchange} with {@link #configuration}, its
     * temporary files in a fresh directory under {@code parent}. A cluster runs the jobs of its
     * exchange only: Flink's TaskManager sets up hybrid shuffle (tiered storage) only when its
     * configuration's batch shuffle mode is a hybrid one, and a hybrid job on another fails.
     *
     * @throws Exception if the directory cannot be made or the cluster does not start (then
     *     everything started is stopped again)
     */
    public static FlinkBatchJobs start(
            Path parent, ShuffleOptions.Compression compression, Exchange exchange)
            throws Exception {
        return start(parent, compression, exchange, new Configuration());
    }

    /**
     * Starts a MiniCluster as {@link #start(Path, ShuffleOptions.Compression, Exchange)} does, with
     * {@code extra} set over {@link #configuration} (another shuffle service, say).
     *
     * @throws Exception if the directory cannot be made or the cluster does not start (then
     *     everything started is stopped again)
     */
    public static FlinkBatchJobs start(
            Path parent,
            ShuffleOptions.Compression compression,
            Exchange exchange,
            Configuration extra)
            throws Exception {
        return start(parent, compression, exchange, extra, LongJobs.SLOTS);
    }

    /**
     * Starts a MiniCluster as {@link #start(Path, ShuffleOptions.Compression, Exchange,
     * Configuration)} does, of one TaskManager with {@code slots} slots.
     *
     * @throws Exception if the directory cannot be made or the cluster does not start (then
     *     everything started is stopped again)
     */
    public static FlinkBatchJobs start(
            Path parent,
            ShuffleOptions.Compression compression,
            Exchange exchange,
            Configuration extra,
            int slots)
            throws Exception {
        ShuffleDirectory directory =
                ShuffleDirectory.create(parent, "railyard-flink-minicluster-").deleteOnExit();
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(slots)
                                .setConfiguration(
                                        with(
                                                configuration(
                                                        directory.path(), compression, exchange),
                                                extra))
                                .build());
        try {
            cluster.start();
        } catch (Exception e) {
            try {
                cluster.close();
                directory.close();
            } catch (Exception cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        return new FlinkBatchJobs(cluster, directory, exchange);
    }

    private static Configuration with(Configuration config, Configuration extra) {
        config.addAll(extra);
        return config;
    }

    /** The configuration of a cluster for the jobs of {@code exchange}, files under {@code tmp}. */
    public static Configuration configuration(
            Path tmp, ShuffleOptions.Compression compression, Exchange exchange) {
        Configuration config = new Configuration();
        config.set(ExecutionOptions.BATCH_SHUFFLE_MODE, batchShuffleMode(exchange));
        // flink-benchmarks' FlinkEnvironmentContext.
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        config.set(RestOptions.BIND_PORT, "0");
        config.set(ResourceManagerOptions.REQUIREMENTS_CHECK_DELAY, Duration.ZERO);
        config.set(CoreOptions.TMP_DIRS, tmp.toString());
        // The REST endpoint's directories too (the upload directory defaults to a fixed
        // java.io.tmpdir/flink-web-upload that nothing deletes).
        config.set(WebOptions.TMP_DIR, tmp.resolve("web").toString());
        config.set(WebOptions.UPLOAD_DIR, tmp.resolve("web-upload").toString());
        // The resources of Railyard's worker.
        MemorySize network = new MemorySize(LongJobs.NETWORK_MEMORY_BYTES);
        config.set(TaskManagerOptions.NETWORK_MEMORY_MIN, network);
        config.set(TaskManagerOptions.NETWORK_MEMORY_MAX, network);
        config.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, new MemorySize(LongJobs.PAGE_BYTES));
        config.set(
                NettyShuffleEnvironmentOptions.SHUFFLE_COMPRESSION_CODEC,
                switch (compression) {
                    case NONE -> NettyShuffleEnvironmentOptions.CompressionCodec.NONE;
                    case LZ4 -> NettyShuffleEnvironmentOptions.CompressionCodec.LZ4;
                });
        // The scheduler Flink 2.3 gives the batch jobs of its BATCH runtime mode (a JobGraph of
        // type BATCH from a STREAMING-mode graph, as flink-benchmarks builds it, would get the
        // Default one, which takes no consume constraint).
        config.set(JobManagerOptions.SCHEDULER, JobManagerOptions.SchedulerType.AdaptiveBatch);
        // Hybrid for real: fixed parallelism, consumers deployed beside running producers.
        config.set(BatchExecutionOptions.ADAPTIVE_AUTO_PARALLELISM_ENABLED, false);
        config.set(
                JobManagerOptions.HYBRID_PARTITION_DATA_CONSUME_CONSTRAINT,
                JobManagerOptions.HybridPartitionDataConsumeConstraint.UNFINISHED_PRODUCERS);
        return config;
    }

    /**
     * Flink's batch shuffle mode (a cluster's and a BATCH-mode job's setting) for {@code exchange}.
     */
    public static BatchShuffleMode batchShuffleMode(Exchange exchange) {
        return switch (exchange) {
            case BLOCKING -> BatchShuffleMode.ALL_EXCHANGES_BLOCKING;
            case HYBRID_FULL -> BatchShuffleMode.ALL_EXCHANGES_HYBRID_FULL;
            case HYBRID_SELECTIVE -> BatchShuffleMode.ALL_EXCHANGES_HYBRID_SELECTIVE;
        };
    }

    /** Flink's exchange mode of a StreamGraph's edges for {@code exchange}. */
    public static GlobalStreamExchangeMode exchangeMode(Exchange exchange) {
        return switch (exchange) {
            case BLOCKING -> GlobalStreamExchangeMode.ALL_EDGES_BLOCKING;
            case HYBRID_FULL -> GlobalStreamExchangeMode.ALL_EDGES_HYBRID_FULL;
            case HYBRID_SELECTIVE -> GlobalStreamExchangeMode.ALL_EDGES_HYBRID_SELECTIVE;
        };
    }

    /** The result-partition type Flink's JobGraph must give the edge under {@code exchange}. */
    public static ResultPartitionType partitionType(Exchange exchange) {
        return ResultPartitionType.valueOf(exchange.type().name());
    }

    /**
     * A new JobGraph of the job {@code shape} × {@code exchange} with {@code recordsPerSubtask}
     * longs per source subtask: vertices "source" → "sink", 4 subtasks each, not chained.
     *
     * @throws IllegalArgumentException if {@code recordsPerSubtask} is negative
     */
    public static JobGraph jobGraph(Shape shape, Exchange exchange, long recordsPerSubtask) {
        return jobGraph(shape, exchange, recordsPerSubtask, LongJobs.PARALLELISM);
    }

    /**
     * The job of {@link #jobGraph(Shape, Exchange, long)} with {@code parallelism} subtasks per
     * vertex (a keyed all-to-all exchange of parallelism × parallelism connections).
     *
     * @throws IllegalArgumentException if {@code recordsPerSubtask} is negative
     */
    @SuppressWarnings("deprecation") // addSource: the legacy source API flink-benchmarks uses
    public static JobGraph jobGraph(
            Shape shape, Exchange exchange, long recordsPerSubtask, int parallelism) {
        LongJobs.of(recordsPerSubtask); // checks the count
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(new Configuration());
        env.setParallelism(parallelism);
        env.disableOperatorChaining();
        env.setBufferTimeout(-1);
        env.getConfig().enableObjectReuse();
        DataStream<Long> source = env.addSource(new LongSource(recordsPerSubtask), "source");
        DataStream<Long> exchanged =
                switch (shape) {
                    case SOURCE_SINK -> source;
                    case KEYED_ALL_TO_ALL ->
                            source.partitionCustom(new ModuloPartitioner(), new IntKey());
                };
        exchanged.addSink(new CountingSink()).name("sink");
        StreamGraph streamGraph = env.getStreamGraph();
        streamGraph.setGlobalStreamExchangeMode(exchangeMode(exchange));
        streamGraph.setJobType(JobType.BATCH);
        return streamGraph.getJobGraph();
    }

    /** The exchange of this cluster's jobs. */
    public Exchange exchange() {
        return exchange;
    }

    /**
     * Runs a new job of {@code shape} and this cluster's exchange with {@code recordsPerSubtask}
     * longs per source subtask to its end and returns what its sinks counted.
     *
     * @throws JobExecutionException if the job failed (Flink's cause attached)
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the sinks' accumulators are missing
     */
    public Tally run(Shape shape, long recordsPerSubtask)
            throws JobExecutionException, InterruptedException {
        return run(jobGraph(shape, exchange, recordsPerSubtask));
    }

    /**
     * Runs a new job as {@link #run(Shape, long)} does with {@code parallelism} subtasks per
     * vertex.
     *
     * @throws JobExecutionException if the job failed (Flink's cause attached)
     * @throws InterruptedException if interrupted while waiting
     */
    public Tally run(Shape shape, long recordsPerSubtask, int parallelism)
            throws JobExecutionException, InterruptedException {
        return run(jobGraph(shape, exchange, recordsPerSubtask, parallelism));
    }

    /**
     * Runs {@code jobGraph} (of {@link #jobGraph}, with this cluster's exchange) to its end and
     * returns what its sinks counted.
     *
     * @throws JobExecutionException if the job failed (Flink's cause attached)
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the sinks' accumulators are missing
     */
    public Tally run(JobGraph jobGraph) throws JobExecutionException, InterruptedException {
        JobExecutionResult result = cluster.executeJobBlocking(jobGraph);
        return new Tally(accumulator(result, RECORDS), accumulator(result, CHECKSUM));
    }

    /**
     * Checks that Flink's sinks counted exactly {@code expected} ({@link LongJobs#expected}).
     *
     * @return {@code got}
     * @throws IllegalStateException naming both when they differ
     */
    public static Tally check(Tally got, Tally expected) {
        if (!got.equals(expected)) {
            throw new IllegalStateException(
                    "Flink's sinks counted " + got + ", expected " + expected);
        }
        return got;
    }

    /** The cluster, for tests that ask it about a job. */
    MiniCluster cluster() {
        return cluster;
    }

    /**
     * Stops the cluster and deletes its temporary directory.
     *
     * @throws IOException if either fails (the other's failure suppressed in it); an interrupt
     *     while the cluster stops is kept in the thread's flag
     */
    @Override
    public void close() throws IOException {
        IOException failure = null;
        try {
            cluster.close();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            failure = new IOException("cannot stop Flink's MiniCluster: " + e, e);
        }
        try {
            directory.close();
        } catch (IOException e) {
            failure = Failures.add(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static long accumulator(JobExecutionResult result, String name) {
        Object value = result.getAllAccumulatorResults().get(name);
        if (value instanceof Long count) {
            return count;
        }
        throw new IllegalStateException(
                "Flink's job "
                        + result.getJobID()
                        + " has no accumulator '"
                        + name
                        + "' (got "
                        + value
                        + "): did the sinks run?");
    }

    /**
     * flink-benchmarks' {@code LongSource}: each subtask emits {@code 0 .. n-1} under the
     * checkpoint lock. Flink 2.x keeps this legacy API (deprecated) for such sources.
     */
    @SuppressWarnings("deprecation")
    static final class LongSource extends RichParallelSourceFunction<Long> {
        private static final long serialVersionUID = 1L;
        private final long records;
        private volatile boolean running = true;

        LongSource(long records) {
            this.records = records;
        }

        @Override
        public void run(SourceContext<Long> ctx) {
            Object lock = ctx.getCheckpointLock();
            for (long v = 0; running && v < records; v++) {
                synchronized (lock) {
                    ctx.collect(v);
                }
            }
        }

        @Override
        public void cancel() {
            running = false;
        }
    }

    /** Counts the records and sums their {@link LongJobs#hash} into the job's accumulators. */
    @SuppressWarnings("deprecation")
    static final class CountingSink extends RichSinkFunction<Long> {
        private static final long serialVersionUID = 1L;
        private final LongCounter records = new LongCounter();
        private final LongCounter checksum = new LongCounter();

        @Override
        public void open(OpenContext openContext) {
            getRuntimeContext().addAccumulator(RECORDS, records);
            getRuntimeContext().addAccumulator(CHECKSUM, checksum);
        }

        @Override
        public void invoke(Long value, Context context) {
            records.add(1L);
            checksum.add(LongJobs.hash(value));
        }
    }

    /** Key {@code (int) v}, as Railyard's source keys value {@code v}. */
    static final class IntKey implements KeySelector<Long, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer getKey(Long value) {
            return (int) value.longValue();
        }
    }

    /** Sink {@code floorMod(key, sinks)}, as Railyard's {@code TaskContext.emit}. */
    static final class ModuloPartitioner implements Partitioner<Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public int partition(Integer key, int numPartitions) {
            return Math.floorMod(key, numPartitions);
        }
    }
}
