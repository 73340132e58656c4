package io.railyard.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.buffer.OwnerStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.shuffle.ShuffleServiceOptions;

/**
 * What the plugin's cluster tests share: a MiniCluster whose TaskManagers each run their own
 * Railyard environment (recorded by {@link RecordingShuffleServiceFactory}), a batch job's
 * configuration, a sink that keeps each subtask's last attempt's output, and the end-of-job checks
 * (nothing held, every page back, no file left).
 */
final class FlinkClusters {
    /** What the sinks received, by sink name and subtask; an attempt replaces an earlier one's. */
    static final Map<String, Map<Integer, Map<Object, Object>>> OUTPUT = new ConcurrentHashMap<>();

    private FlinkClusters() {}

    /** A started MiniCluster of {@code taskManagers} × {@code slots} on Railyard's plugin. */
    static MiniCluster start(int taskManagers, int slots, Configuration extra) throws Exception {
        RecordingShuffleServiceFactory.ENVIRONMENTS.clear();
        Configuration config = new Configuration();
        config.set(
                ShuffleServiceOptions.SHUFFLE_SERVICE_FACTORY_CLASS,
                RecordingShuffleServiceFactory.class.getName());
        config.set(RestOptions.BIND_PORT, "0");
        config.addAll(extra);
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(config)
                                .setNumTaskManagers(taskManagers)
                                .setNumSlotsPerTaskManager(slots)
                                .withRandomPorts()
                                .build());
        try {
            cluster.start();
        } catch (Exception e) {
            // A cluster that failed to start still runs what it started: stop it, then fail.
            try {
                cluster.closeAsync().get(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return cluster;
    }

    /** The batch shuffle modes Railyard serves: every cluster test runs each. */
    static Stream<BatchShuffleMode> batchModes() {
        return Stream.of(
                BatchShuffleMode.ALL_EXCHANGES_BLOCKING,
                BatchShuffleMode.ALL_EXCHANGES_HYBRID_FULL,
                BatchShuffleMode.ALL_EXCHANGES_HYBRID_SELECTIVE);
    }

    /** A BATCH job's configuration with {@code mode}, restarting up to {@code restarts} times. */
    static Configuration batchJob(BatchShuffleMode mode, int restarts) {
        Configuration config = new Configuration();
        config.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        config.set(ExecutionOptions.BATCH_SHUFFLE_MODE, mode);
        if (restarts > 0) {
            config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
            config.set(
                    RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY,
                    Duration.ofMillis(100));
        } else {
            config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        return config;
    }

    /** What sink {@code name} received, merged over its subtasks. */
    static Map<Object, Object> output(String name) {
        Map<Object, Object> merged = new java.util.HashMap<>();
        for (Map<Object, Object> subtask : OUTPUT.getOrDefault(name, Map.of()).values()) {
            subtask.forEach((key, value) -> merged.merge(key, value, FlinkClusters::add));
        }
        return merged;
    }

    /**
     * Every TaskManager wrote partitions, and bytes crossed between TaskManagers over Railyard's
     * transport (a TaskManager reads its own partitions directly, so its server may send none).
     */
    static void assertServedByRailyard(List<RailyardShuffleEnvironment> environments) {
        assertThat(environments).isNotEmpty();
        long sent = 0;
        for (RailyardShuffleEnvironment environment : environments) {
            assertThat(environment.shuffle().stats().filesCreated())
                    .as("partition files written on a TaskManager")
                    .isPositive();
            sent += environment.serverStats().bytesSent();
        }
        assertThat(sent).as("bytes the Railyard data servers sent").isPositive();
    }

    /** Every partition released, every page back, every file gone, on each environment. */
    static void awaitReleased(List<RailyardShuffleEnvironment> environments)
            throws InterruptedException, IOException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        for (RailyardShuffleEnvironment environment : environments) {
            // A released hybrid partition's files go on the IO thread, a moment later.
            while ((environment.heldPartitions() > 0
                            || busyOwners(environment) > 0
                            || fileCount(environment) > 0)
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(environment.heldPartitions()).as("partitions still held").isZero();
            assertThat(environment.shuffle().bufferPool().owners())
                    .as("pool owners after the job")
                    .extracting(OwnerStats::name)
                    .containsExactly("read scheduler");
            try (Stream<Path> files = Files.list(environment.directory())) {
                assertThat(files).as("files after the job").isEmpty();
            }
        }
    }

    private static long fileCount(RailyardShuffleEnvironment environment) throws IOException {
        try (Stream<Path> files = Files.list(environment.directory())) {
            return files.count();
        }
    }

    private static int busyOwners(RailyardShuffleEnvironment environment) {
        return environment.shuffle().bufferPool().owners().size() - 1;
    }

    /**
     * Keeps each subtask's records in {@link #OUTPUT} under its name, as key → value by {@code
     * keyOf}/{@code valueOf}; a new attempt of a subtask starts its map afresh.
     */
    static final class KeepingSink<T> implements Sink<T> {
        private static final long serialVersionUID = 1L;

        /** Splits a record into the key and value kept. */
        interface Split<T> extends java.io.Serializable {
            Object key(T record);

            Object value(T record);
        }

        private final String name;
        private final Split<T> split;

        KeepingSink(String name, Split<T> split) {
            this.name = name;
            this.split = split;
        }

        @Override
        public SinkWriter<T> createWriter(WriterInitContext context) {
            Map<Object, Object> mine = new ConcurrentHashMap<>();
            OUTPUT.computeIfAbsent(name, n -> new ConcurrentHashMap<>())
                    .put(context.getTaskInfo().getIndexOfThisSubtask(), mine);
            return new SinkWriter<>() {
                @Override
                public void write(T record, Context writeContext) {
                    mine.merge(split.key(record), split.value(record), FlinkClusters::add);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }

    /** Adds two longs, for a sink that sums per key. */
    static Object add(Object a, Object b) {
        return (Long) a + (Long) b;
    }
}
