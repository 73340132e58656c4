package io.railyard.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.shuffle.ShuffleServiceOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What Railyard does not serve runs on Flink's own shuffle, inside the same plugin: a streaming
 * job's PIPELINED partitions, or everything with {@code railyard.shuffle.fallback: all}. A
 * misconfigured cluster fails at start with one line naming the key and what is allowed.
 */
class FlinkFallbackAndConfigTest {
    private static final long RECORDS = 50_000;

    private MiniCluster cluster;

    @BeforeEach
    void clear() {
        FlinkClusters.OUTPUT.clear();
    }

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.closeAsync().get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void aStreamingJob_runsOnFlinksShuffle_besideRailyard() throws Exception {
        cluster = FlinkClusters.start(2, 2, new Configuration());
        Configuration job = new Configuration();
        job.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
        runRebalance(job);

        assertThat(FlinkClusters.output("records")).isEqualTo(everyRecordOnce());
        assertNothingOnRailyard();
    }

    @Test
    void closingTheCluster_removesEveryTaskManagersShuffleDirectory() throws Exception {
        cluster = FlinkClusters.start(2, 2, new Configuration());
        List<RailyardShuffleEnvironment> environments =
                List.copyOf(RecordingShuffleServiceFactory.ENVIRONMENTS);
        assertThat(environments).hasSize(2).allMatch(e -> Files.isDirectory(e.directory()));

        cluster.closeAsync().get(60, java.util.concurrent.TimeUnit.SECONDS);
        cluster = null;

        assertThat(environments).noneMatch(e -> Files.exists(e.directory()));
    }

    @Test
    void fallbackAll_sendsABatchJobToFlinksShuffle() throws Exception {
        Configuration config = new Configuration();
        config.setString(PluginOptions.FALLBACK_KEY, "all");
        cluster = FlinkClusters.start(2, 2, config);
        runRebalance(FlinkClusters.batchJob(BatchShuffleMode.ALL_EXCHANGES_BLOCKING, 0));

        assertThat(FlinkClusters.output("records")).isEqualTo(everyRecordOnce());
        assertNothingOnRailyard();
    }

    @Test
    void anUnknownOptionValue_failsTheClusterAtStart_inOneLine() {
        Configuration config = new Configuration();
        config.setString(PluginOptions.BLOCKING_KEY, "merge");

        assertThatThrownBy(() -> cluster = FlinkClusters.start(1, 1, config))
                .satisfies(
                        e ->
                                assertThat(rootCause(e).getMessage())
                                        .isEqualTo(
                                                "railyard.shuffle.blocking must be sort or hash,"
                                                        + " was 'merge'"));
    }

    @Test
    void tooLittleNetworkMemory_failsTheClusterAtStart_namingTheKeys() {
        Configuration config = new Configuration();
        config.setString(PluginOptions.MEMORY_FRACTION_KEY, "0.0001");

        assertThatThrownBy(() -> cluster = FlinkClusters.start(1, 1, config))
                .satisfies(
                        e ->
                                assertThat(rootCause(e).getMessage())
                                        .startsWith(
                                                "Railyard's share of the network memory"
                                                        + " (railyard.shuffle.memory-fraction"
                                                        + " = 1.0E-4 of")
                                        .contains(
                                                "raise taskmanager.memory.network.min/max to at"
                                                        + " least ")
                                        .endsWith(" bytes or railyard.shuffle.memory-fraction")
                                        .doesNotContain("\n"));
    }

    @Test
    void aFactoryClassNotOnTheClassPath_failsTheClusterAtStart_namingIt() {
        Configuration config = new Configuration();
        config.set(
                ShuffleServiceOptions.SHUFFLE_SERVICE_FACTORY_CLASS,
                "io.railyard.flink.NotOnTheClassPath");

        assertThatThrownBy(() -> cluster = FlinkClusters.start(1, 1, config))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains("io.railyard.flink.NotOnTheClassPath"));
    }

    private static Throwable rootCause(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }

    private void runRebalance(Configuration job) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(job);
        env.setParallelism(4);
        env.fromSequence(0, RECORDS - 1)
                .rebalance()
                .sinkTo(
                        new FlinkClusters.KeepingSink<>(
                                "records", new FlinkJobsOnRailyardTest.OnceSplit()));
        cluster.executeJobBlocking(env.getStreamGraph().getJobGraph());
    }

    private static Map<Object, Object> everyRecordOnce() {
        Map<Object, Object> expected = new HashMap<>();
        for (long value = 0; value < RECORDS; value++) {
            expected.put(value, 1L);
        }
        return expected;
    }

    private static void assertNothingOnRailyard() {
        assertThat(RecordingShuffleServiceFactory.ENVIRONMENTS).hasSize(2);
        for (RailyardShuffleEnvironment environment : RecordingShuffleServiceFactory.ENVIRONMENTS) {
            assertThat(environment.shuffle().stats().filesCreated()).as("Railyard files").isZero();
            assertThat(environment.serverStats().streams()).as("Railyard streams").isZero();
        }
    }
}
