package io.railyard.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Real Flink batch jobs on a MiniCluster of two TaskManagers × two slots, each TaskManager with its
 * own Railyard environment, pool and data server: bytes between them go over TCP loopback through
 * Railyard's transport. Each job runs with every exchange blocking, hybrid-full and
 * hybrid-selective, must produce exactly the expected output, and must leave every partition
 * released, every page back and no file behind.
 */
class FlinkJobsOnRailyardTest {
    private static final long RECORDS = 200_000;
    private static final int WORDS = 97;
    private static final int KEYS = 1_024;
    private static final long SIZED = 4_000;

    private static MiniCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        Configuration config = new Configuration();
        config.setString(CollectingReporter.FACTORY_KEY, CollectingReporter.class.getName());
        cluster = FlinkClusters.start(2, 2, config);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        cluster.closeAsync().get();
    }

    @BeforeEach
    void clearOutput() {
        FlinkClusters.OUTPUT.clear();
    }

    @ParameterizedTest
    @MethodSource("io.railyard.flink.FlinkClusters#batchModes")
    void wordCount(BatchShuffleMode mode) throws Exception {
        StreamExecutionEnvironment env = environment(mode);
        env.disableOperatorChaining(); // every edge a partition: pointwise ones too
        env.fromSequence(0, RECORDS - 1)
                .map(new ToWord())
                .keyBy(pair -> pair.f0)
                .reduce(new Sum())
                .sinkTo(new FlinkClusters.KeepingSink<>("words", new PairSplit()));
        run(env);

        Map<Object, Object> expected = new HashMap<>();
        for (long line = 0; line < RECORDS; line++) {
            expected.merge(word(line), 1L, FlinkClusters::add);
        }
        assertThat(FlinkClusters.output("words")).isEqualTo(expected);
    }

    /** flink-benchmarks' BlockingPartitionBenchmark shape: a source, all-to-all, a sink. */
    @ParameterizedTest
    @MethodSource("io.railyard.flink.FlinkClusters#batchModes")
    void blockingPartitionShape(BatchShuffleMode mode) throws Exception {
        StreamExecutionEnvironment env = environment(mode);
        env.fromSequence(0, RECORDS - 1)
                .rebalance()
                .sinkTo(new FlinkClusters.KeepingSink<>("records", new OnceSplit()));
        run(env);

        assertEveryRecordOnce(FlinkClusters.output("records"));
    }

    /**
     * Each TaskManager's Railyard counters are gauges of its metric group {@code Shuffle.Railyard},
     * with the values of its worker and transport.
     */
    @Test
    void railyardsCounters_areGaugesOfEachTaskManager() throws Exception {
        blockingPartitionShape(BatchShuffleMode.ALL_EXCHANGES_BLOCKING);
        List<RailyardShuffleEnvironment> environments = RecordingShuffleServiceFactory.ENVIRONMENTS;
        long written = 0;
        long files = 0;
        long pages = 0;
        long sent = 0;
        long received = 0;
        for (RailyardShuffleEnvironment environment : environments) {
            written += environment.shuffle().stats().bytesWritten();
            files += environment.shuffle().stats().filesCreated();
            pages += environment.shuffle().bufferPool().totalPages();
            sent += environment.serverStats().bytesSent();
            received += environment.clientStats().bytesReceived();
        }
        assertThat(written).isPositive();
        assertThat(sent).isPositive();

        List<Long> writtenGauges =
                CollectingReporter.gauges(".Shuffle.Railyard.BytesWrittenToDisk");
        assertThat(writtenGauges).hasSize(environments.size()).allMatch(bytes -> bytes > 0);
        assertThat(sum(writtenGauges)).isEqualTo(written);
        assertThat(sum(CollectingReporter.gauges(".Shuffle.Railyard.FilesCreated")))
                .isEqualTo(files);
        assertThat(sum(CollectingReporter.gauges(".Shuffle.Railyard.TotalPages"))).isEqualTo(pages);
        assertThat(sum(CollectingReporter.gauges(".Shuffle.Railyard.BytesSent"))).isEqualTo(sent);
        assertThat(sum(CollectingReporter.gauges(".Shuffle.Railyard.BytesReceived")))
                .isEqualTo(received);
    }

    private static long sum(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).sum();
    }

    /** Its keyed variant: the same records by key. */
    @ParameterizedTest
    @MethodSource("io.railyard.flink.FlinkClusters#batchModes")
    void keyedBlockingPartitionShape(BatchShuffleMode mode) throws Exception {
        StreamExecutionEnvironment env = environment(mode);
        env.fromSequence(0, RECORDS - 1)
                .keyBy(value -> value % KEYS)
                .map(value -> value)
                .sinkTo(new FlinkClusters.KeepingSink<>("records", new OnceSplit()));
        run(env);

        assertEveryRecordOnce(FlinkClusters.output("records"));
    }

    /**
     * Records of 12 bytes to 100 KiB, mixed: smaller than a writer's chunk, larger than a chunk,
     * larger than a page (spanning Flink buffers), in every subpartition.
     */
    @ParameterizedTest
    @MethodSource("io.railyard.flink.FlinkClusters#batchModes")
    void recordsOfEverySize(BatchShuffleMode mode) throws Exception {
        StreamExecutionEnvironment env = environment(mode);
        env.fromSequence(0, SIZED - 1)
                .map(new Sized())
                .keyBy(text -> text.length() % KEYS)
                .map(text -> text)
                .sinkTo(new FlinkClusters.KeepingSink<>("texts", new TextSplit()));
        run(env);

        Map<Object, Object> expected = new HashMap<>();
        for (long i = 0; i < SIZED; i++) {
            expected.put(text(i), 1L);
        }
        assertThat(FlinkClusters.output("texts")).isEqualTo(expected);
    }

    static String text(long i) {
        int length = (int) (i % 7 == 0 ? (i * 7919) % (100 << 10) : (i * 31) % 300);
        StringBuilder text = new StringBuilder(length + 20).append(i).append(':');
        while (text.length() < length) {
            text.append((char) ('a' + (text.length() + i) % 26));
        }
        return text.toString();
    }

    /** A number to its text of its own length. */
    static final class Sized implements MapFunction<Long, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String map(Long i) {
            return text(i);
        }
    }

    /** Counts each text. */
    static final class TextSplit implements FlinkClusters.KeepingSink.Split<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public Object key(String record) {
            return record;
        }

        @Override
        public Object value(String record) {
            return 1L;
        }
    }

    /** Orders joined with customers by key: each customer's order total and its count. */
    @ParameterizedTest
    @MethodSource("io.railyard.flink.FlinkClusters#batchModes")
    void twoInputKeyedJoin(BatchShuffleMode mode) throws Exception {
        StreamExecutionEnvironment env = environment(mode);
        DataStream<Long> customers = env.fromSequence(0, KEYS - 1);
        DataStream<Long> orders = env.fromSequence(0, RECORDS - 1);
        customers
                .connect(orders)
                .keyBy(customer -> customer, order -> order % KEYS)
                .process(new Join())
                .sinkTo(new FlinkClusters.KeepingSink<>("joined", new JoinSplit()));
        run(env);

        Map<Object, Object> expected = new HashMap<>();
        for (long order = 0; order < RECORDS; order++) {
            expected.merge(order % KEYS, order, FlinkClusters::add);
        }
        assertThat(FlinkClusters.output("joined")).isEqualTo(expected);
    }

    private static StreamExecutionEnvironment environment(BatchShuffleMode mode) {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FlinkClusters.batchJob(mode, 0));
        env.setParallelism(4);
        return env;
    }

    private static void run(StreamExecutionEnvironment env) throws Exception {
        cluster.executeJobBlocking(env.getStreamGraph().getJobGraph());
        FlinkClusters.assertServedByRailyard(RecordingShuffleServiceFactory.ENVIRONMENTS);
        FlinkClusters.awaitReleased(RecordingShuffleServiceFactory.ENVIRONMENTS);
    }

    private static void assertEveryRecordOnce(Map<Object, Object> received) {
        assertThat(received).hasSize((int) RECORDS);
        for (long value = 0; value < RECORDS; value++) {
            assertThat(received.get(value)).as("times record %s arrived", value).isEqualTo(1L);
        }
    }

    static String word(long line) {
        return "word-" + Math.floorMod(line * 7919, WORDS);
    }

    /** A line (a number) to its word and a count of one. */
    static final class ToWord implements MapFunction<Long, Tuple2<String, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple2<String, Long> map(Long line) {
            return Tuple2.of(word(line), 1L);
        }
    }

    /** Adds counts. */
    static final class Sum implements ReduceFunction<Tuple2<String, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple2<String, Long> reduce(Tuple2<String, Long> a, Tuple2<String, Long> b) {
            return Tuple2.of(a.f0, a.f1 + b.f1);
        }
    }

    /** Keeps a pair as its key and value. */
    static final class PairSplit implements FlinkClusters.KeepingSink.Split<Tuple2<String, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Object key(Tuple2<String, Long> record) {
            return record.f0;
        }

        @Override
        public Object value(Tuple2<String, Long> record) {
            return record.f1;
        }
    }

    /** Counts each record: a record seen twice (or lost) shows. */
    static final class OnceSplit implements FlinkClusters.KeepingSink.Split<Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Object key(Long record) {
            return record;
        }

        @Override
        public Object value(Long record) {
            return 1L;
        }
    }

    /** Keeps a joined customer's total; fails the job if a customer had no match. */
    static final class JoinSplit
            implements FlinkClusters.KeepingSink.Split<Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Object key(Tuple3<Long, Long, Long> record) {
            if (record.f2 != 1L) {
                throw new IllegalStateException(
                        "customer " + record.f0 + " seen " + record.f2 + " times");
            }
            return record.f0;
        }

        @Override
        public Object value(Tuple3<Long, Long, Long> record) {
            return record.f1;
        }
    }

    /**
     * Per key: the sum of its orders and the number of its customers, emitted once both inputs
     * ended (the end of input fires every key's timer at the largest timestamp).
     */
    static final class Join
            extends KeyedCoProcessFunction<Long, Long, Long, Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;

        private transient ValueState<Long> total;
        private transient ValueState<Long> customers;

        @Override
        public void open(org.apache.flink.api.common.functions.OpenContext context) {
            total = getRuntimeContext().getState(new ValueStateDescriptor<>("total", Long.class));
            customers =
                    getRuntimeContext()
                            .getState(new ValueStateDescriptor<>("customers", Long.class));
        }

        @Override
        public void processElement1(
                Long customer, Context context, Collector<Tuple3<Long, Long, Long>> out)
                throws Exception {
            customers.update(customers.value() == null ? 1L : customers.value() + 1);
            context.timerService().registerEventTimeTimer(Long.MAX_VALUE);
        }

        @Override
        public void processElement2(
                Long order, Context context, Collector<Tuple3<Long, Long, Long>> out)
                throws Exception {
            total.update(total.value() == null ? order : total.value() + order);
            context.timerService().registerEventTimeTimer(Long.MAX_VALUE);
        }

        @Override
        public void onTimer(
                long timestamp, OnTimerContext context, Collector<Tuple3<Long, Long, Long>> out)
                throws Exception {
            long sum = total.value() == null ? 0 : total.value();
            long seen = customers.value() == null ? 0 : customers.value();
            out.collect(Tuple3.of(context.getCurrentKey(), sum, seen));
        }
    }
}
