package io.railyard.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A TaskManager whose Railyard pool holds two writers or two gates at a time runs four of each
 * without a restart: a task the pool cannot pledge now waits until another gives its pages back.
 */
class FlinkScarceMemoryTest {
    private static final long RECORDS = 100_000;

    private MiniCluster cluster;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.closeAsync().get();
        }
    }

    @Test
    void tasksThePoolCannotHoldAtOnce_waitForMemory_andTheJobIsExact() throws Exception {
        Configuration config = new Configuration();
        config.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.ofMebiBytes(64));
        config.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.ofMebiBytes(64));
        // 0.09 × 64 MiB = 184 pages of 32 KiB: the read scheduler's 16, then two sort writers
        // (74 each) or two gates (64 each), not four.
        config.setString(PluginOptions.MEMORY_FRACTION_KEY, "0.09");
        cluster = FlinkClusters.start(1, 4, config);
        FlinkClusters.OUTPUT.clear();

        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(
                        FlinkClusters.batchJob(BatchShuffleMode.ALL_EXCHANGES_BLOCKING, 0));
        env.setParallelism(4);
        env.fromSequence(0, RECORDS - 1)
                .keyBy(value -> value % 1_000)
                .map(value -> value)
                .sinkTo(
                        new FlinkClusters.KeepingSink<>(
                                "records", new FlinkJobsOnRailyardTest.OnceSplit()));
        cluster.executeJobBlocking(env.getStreamGraph().getJobGraph());

        Map<Object, Object> expected = new HashMap<>();
        for (long value = 0; value < RECORDS; value++) {
            expected.put(value, 1L);
        }
        assertThat(FlinkClusters.output("records")).isEqualTo(expected);
        RailyardShuffleEnvironment environment = RecordingShuffleServiceFactory.ENVIRONMENTS.get(0);
        assertThat(environment.shuffle().bufferPool().totalPages()).isEqualTo(184);
        assertThat(environment.serverStats().streams())
                .as("streams of its data server: one TaskManager reads its partitions directly")
                .isZero();
        FlinkClusters.awaitReleased(RecordingShuffleServiceFactory.ENVIRONMENTS);
    }
}
