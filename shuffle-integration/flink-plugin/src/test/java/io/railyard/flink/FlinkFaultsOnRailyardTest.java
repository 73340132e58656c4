package io.railyard.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Faults on a MiniCluster running Railyard's plugin: a task that throws once, a partition file
 * deleted before its consumer reads it, a TaskManager terminated mid-job. Flink's own failover
 * reruns what it must (the plugin surfaces lost data as {@code PartitionNotFoundException}); each
 * job's output is exact, and nothing is held or left behind on the TaskManagers still running.
 */
class FlinkFaultsOnRailyardTest {
    private static final long RECORDS = 100_000;
    private static final int WORDS = 97;

    /** Attempts that ran, as "stage/subtask/attempt". */
    static final Set<String> ATTEMPTS = ConcurrentHashMap.newKeySet();

    /** The fault a test injects, read by the jobs' functions. */
    static volatile Fault fault = Fault.NONE;

    static volatile MiniCluster cluster;

    /** The termination a test asked for, to wait on (a task cannot: it may be cancelled). */
    static final java.util.concurrent.atomic.AtomicReference<
                    java.util.concurrent.CompletableFuture<Void>>
            TERMINATED = new java.util.concurrent.atomic.AtomicReference<>();

    enum Fault {
        NONE,
        THROW_ONCE,
        DELETE_PARTITION_FILES,
        TERMINATE_TASK_MANAGER
    }

    @BeforeEach
    void clear() {
        FlinkClusters.OUTPUT.clear();
        ATTEMPTS.clear();
    }

    @AfterEach
    void stopCluster() throws Exception {
        fault = Fault.NONE;
        if (cluster != null) {
            cluster.closeAsync().get();
            cluster = null;
        }
    }

    @ParameterizedTest
    @MethodSource("io.railyard.flink.FlinkClusters#batchModes")
    void aTaskThatThrowsOnce_isRestarted_andTheResultIsExact(BatchShuffleMode mode)
            throws Exception {
        cluster = FlinkClusters.start(2, 2, new Configuration());
        fault = Fault.THROW_ONCE;
        run(mode);

        assertThat(ATTEMPTS).as("attempts").contains("count/0/1");
        FlinkClusters.awaitReleased(RecordingShuffleServiceFactory.ENVIRONMENTS);
    }

    /**
     * The consumers' first attempt deletes every partition file before it reads: its read fails
     * with PartitionNotFoundException, Flink reruns the producers and the consumers, and the result
     * is exact.
     */
    @Test
    void aPartitionFileDeletedBeforeItIsRead_rerunsItsProducer() throws Exception {
        cluster = FlinkClusters.start(2, 2, new Configuration());
        fault = Fault.DELETE_PARTITION_FILES;
        run(BatchShuffleMode.ALL_EXCHANGES_BLOCKING);

        assertThat(ATTEMPTS).as("attempts").contains("words/0/1", "count/0/1");
        FlinkClusters.awaitReleased(RecordingShuffleServiceFactory.ENVIRONMENTS);
    }

    /**
     * A TaskManager goes away while the job runs (its environment closes, its partitions with it):
     * Flink reruns what was lost on the others, and the result is exact.
     */
    @Test
    void aTaskManagerTerminatedMidJob_theJobRecoversExactly() throws Exception {
        cluster = FlinkClusters.start(3, 2, new Configuration());
        fault = Fault.TERMINATE_TASK_MANAGER;
        run(BatchShuffleMode.ALL_EXCHANGES_BLOCKING);

        TERMINATED.get().get();
        assertThat(ATTEMPTS).as("attempts").anyMatch(attempt -> attempt.endsWith("/1"));
        List<RailyardShuffleEnvironment> alive =
                RecordingShuffleServiceFactory.ENVIRONMENTS.stream()
                        .filter(environment -> !environment.isClosed())
                        .toList();
        assertThat(alive).hasSize(2);
        FlinkClusters.awaitReleased(alive);
    }

    private static void run(BatchShuffleMode mode) throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FlinkClusters.batchJob(mode, 4));
        env.setParallelism(2);
        env.disableOperatorChaining();
        env.fromSequence(0, RECORDS - 1)
                .map(new ToWord())
                .keyBy(pair -> pair.f0)
                .map(new Count())
                .sinkTo(
                        new FlinkClusters.KeepingSink<>(
                                "words", new FlinkJobsOnRailyardTest.PairSplit()));
        cluster.executeJobBlocking(env.getStreamGraph().getJobGraph());

        Map<Object, Object> expected = new HashMap<>();
        for (long line = 0; line < RECORDS; line++) {
            expected.merge(word(line), 1L, FlinkClusters::add);
        }
        assertThat(FlinkClusters.output("words")).isEqualTo(expected);
    }

    static String word(long line) {
        return "word-" + Math.floorMod(line * 7919, WORDS);
    }

    /** A line to its word; terminates a TaskManager halfway through its first attempt, if asked. */
    static final class ToWord extends RichMapFunction<Long, Tuple2<String, Long>> {
        private static final long serialVersionUID = 1L;

        private transient long seen;
        private transient boolean first;

        @Override
        public void open(OpenContext context) {
            first = attempt("words", this) == 0;
        }

        @Override
        public Tuple2<String, Long> map(Long line) throws Exception {
            if (fault == Fault.TERMINATE_TASK_MANAGER && first && ++seen == RECORDS / 4) {
                terminateAWritingTaskManager();
            }
            return Tuple2.of(word(line), 1L);
        }
    }

    /**
     * Counts each word once per record (the sink sums them); throws in its first attempt, or
     * deletes every partition file before reading, if asked.
     */
    static final class Count extends RichMapFunction<Tuple2<String, Long>, Tuple2<String, Long>> {
        private static final long serialVersionUID = 1L;

        private transient long seen;
        private transient boolean first;

        @Override
        public void open(OpenContext context) throws IOException {
            first = attempt("count", this) == 0;
            if (fault == Fault.DELETE_PARTITION_FILES && first) {
                deletePartitionFiles();
            }
        }

        @Override
        public Tuple2<String, Long> map(Tuple2<String, Long> pair) {
            if (fault == Fault.THROW_ONCE && first && ++seen == 100) {
                throw new IllegalStateException("injected: the first attempt fails");
            }
            return pair;
        }
    }

    /**
     * Terminates a TaskManager on which a partition is being written now (a sort writer holds pages
     * of its pool): this task's, or another producer's. Does not wait, as this task may be one the
     * termination cancels.
     */
    private static void terminateAWritingTaskManager() {
        List<RailyardShuffleEnvironment> environments = RecordingShuffleServiceFactory.ENVIRONMENTS;
        for (int i = 0; i < environments.size(); i++) {
            boolean writing =
                    environments.get(i).shuffle().bufferPool().owners().stream()
                            .anyMatch(owner -> owner.name().startsWith("sort writer"));
            if (writing) {
                TERMINATED.set(cluster.terminateTaskManager(i));
                return;
            }
        }
        throw new IllegalStateException("no TaskManager is writing a partition");
    }

    private static int attempt(String stage, RichMapFunction<?, ?> function) {
        int subtask = function.getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        int attempt = function.getRuntimeContext().getTaskInfo().getAttemptNumber();
        ATTEMPTS.add(stage + "/" + subtask + "/" + attempt);
        return attempt;
    }

    private static void deletePartitionFiles() throws IOException {
        for (RailyardShuffleEnvironment environment : RecordingShuffleServiceFactory.ENVIRONMENTS) {
            try (Stream<Path> files = Files.list(environment.directory())) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }
}
