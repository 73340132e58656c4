package io.railyard.benchmarks.flink;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import io.railyard.benchmarks.procedures.Delivered;
import io.railyard.benchmarks.procedures.NetworkThroughput;
import io.railyard.benchmarks.procedures.RoundWriter;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.deployment.InputGateDeploymentDescriptor;
import org.apache.flink.runtime.deployment.TaskDeploymentDescriptorFactory.ShuffleDescriptorAndIndex;
import org.apache.flink.runtime.io.network.NettyShuffleEnvironment;
import org.apache.flink.runtime.io.network.NettyShuffleEnvironmentBuilder;
import org.apache.flink.runtime.io.network.TaskEventDispatcher;
import org.apache.flink.runtime.io.network.api.reader.MutableRecordReader;
import org.apache.flink.runtime.io.network.api.writer.RecordWriter;
import org.apache.flink.runtime.io.network.api.writer.RecordWriterBuilder;
import org.apache.flink.runtime.io.network.metrics.InputChannelMetrics;
import org.apache.flink.runtime.io.network.netty.NettyConfig;
import org.apache.flink.runtime.io.network.partition.PartitionProducerStateProvider;
import org.apache.flink.runtime.io.network.partition.ResultPartition;
import org.apache.flink.runtime.io.network.partition.ResultPartitionBuilder;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.apache.flink.runtime.io.network.partition.consumer.InputGate;
import org.apache.flink.runtime.io.network.partition.consumer.SingleInputGate;
import org.apache.flink.runtime.io.network.partition.consumer.UnionInputGate;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.metrics.groups.TaskMetricGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.shuffle.ShuffleIOOwnerContext;
import org.apache.flink.runtime.taskmanager.TaskManagerLocation;
import org.apache.flink.runtime.util.ConfigurationParserUtils;
import org.apache.flink.runtime.util.NettyShuffleDescriptorBuilder;
import org.apache.flink.streaming.runtime.io.benchmark.SingleInputGateBenchmarkFactory;
import org.apache.flink.types.LongValue;
import org.jspecify.annotations.Nullable;

/**
 * Flink 2.3's side of the network throughput comparison: the topology of Flink's own {@code
 * StreamNetworkThroughputBenchmark} (flink-runtime's tests jar, run by flink-benchmarks' {@code
 * StreamNetworkThroughputBenchmarkExecutor}) in TCP mode, built from the same Flink parts, with
 * writers and a receiver of this class's own that check what arrives.
 *
 * <h2>What it builds, as Flink's benchmark environment does</h2>
 *
 * <ul>
 *   <li>Two {@link NettyShuffleEnvironment}s (sender and receiver), each of {@code max(2048, 4 ×
 *       writers × channels)} network buffers of the default 32 KiB segment size, started on a free
 *       port of the loopback address (Flink's environment uses {@code InetAddress.getLocalHost()},
 *       which resolves to loopback here too).
 *   <li>{@code writers} {@link ResultPartitionType#PIPELINED_BOUNDED} partitions of {@code
 *       channels} subpartitions in the sender, each written by a {@link RecordWriter} built with
 *       the flush interval as its timeout (so Flink's output flusher thread calls {@code
 *       flushAll()} every interval) and the default round-robin channel selector.
 *   <li>In the receiver, one remote {@link SingleInputGate} per partition made by Flink's {@link
 *       SingleInputGateBenchmarkFactory}, whose channel {@code i} reads subpartition {@code i} of
 *       that partition over Netty (credit-based, two exclusive buffers per channel and eight
 *       floating per gate), the gates joined by a {@link UnionInputGate} read by one thread through
 *       a {@link MutableRecordReader} of {@link LongValue}s (4-byte length + 8 bytes per record).
 * </ul>
 *
 * <p>Where it differs from Flink's benchmark: Flink's writer threads send the value 0 over and over
 * and its receiver only counts the final broadcast records; here writer {@code w} sends {@code w <<
 * 40 | i} and the receiver counts records and sums their values, which {@link #run} checks against
 * what the writers sent (the same rounds as {@link NetworkThroughput}'s: {@code records / writers}
 * records per writer, then one end-of-round record broadcast to every subpartition and {@code
 * flushAll()}). The gates are not wrapped in Flink's {@code InputGateWithMetrics} (a byte counter).
 *
 * <p>Threading: {@link #run} and {@link #close} are called by one thread, which also receives;
 * writers run on threads of their own, flushers and Netty on Flink's.
 */
final class FlinkNetworkThroughput implements AutoCloseable {
    private static final long END_OF_ROUND = -1;
    private static final long STALL_SECONDS = 60;

    /**
     * Asks nobody about a producer whose partition is not found (Flink's benchmark passes the tests
     * jar's no-op checker, whose class needs Mockito; this is the same no-op).
     */
    private static final PartitionProducerStateProvider NO_PRODUCER_CHECKS =
            (dataSet, partition, response) -> {};

    private final int numWriters;
    private final int channels;
    private final List<NettyShuffleEnvironment> environments = new ArrayList<>();
    private final List<Writer> writers = new ArrayList<>();
    private @Nullable InputGate gate;
    private @Nullable MutableRecordReader<LongValue> reader;
    private final LongValue value = new LongValue();

    private FlinkNetworkThroughput(int writers, int channels) {
        this.numWriters = writers;
        this.channels = channels;
    }

    /**
     * Starts both shuffle environments, creates the partitions and their writers (threads started)
     * and the receiver's gates.
     *
     * @throws Exception whatever Flink throws (what was started is stopped again)
     */
    static FlinkNetworkThroughput start(int writers, int channels, long flushMillis)
            throws Exception {
        checkArgument(writers >= 1, "writers must be >= 1, was %s", writers);
        checkArgument(channels >= 1, "channels must be >= 1, was %s", channels);
        FlinkNetworkThroughput run = new FlinkNetworkThroughput(writers, channels);
        try {
            run.open(flushMillis);
        } catch (Exception e) {
            try {
                run.close();
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        return run;
    }

    private void open(long flushMillis) throws Exception {
        InetAddress address = InetAddress.getLoopbackAddress();
        int buffers = Math.max(2048, 4 * numWriters * channels);
        NettyShuffleEnvironment sender = environment(address, buffers);
        int port = sender.start();
        NettyShuffleEnvironment receiver = environment(address, buffers);
        receiver.start();
        ResultPartitionID[] ids = new ResultPartitionID[numWriters];
        for (int w = 0; w < numWriters; w++) {
            ids[w] = new ResultPartitionID();
            ResultPartition partition =
                    new ResultPartitionBuilder()
                            .setResultPartitionId(ids[w])
                            .setResultPartitionType(ResultPartitionType.PIPELINED_BOUNDED)
                            .setNumberOfSubpartitions(channels)
                            .setResultPartitionManager(sender.getResultPartitionManager())
                            .setupBufferPoolFactoryFromNettyShuffleEnvironment(sender)
                            .build();
            partition.setup();
            RecordWriter<LongValue> out =
                    new RecordWriterBuilder<LongValue>().setTimeout(flushMillis).build(partition);
            writers.add(new Writer(w, out));
        }
        TaskManagerLocation producer =
                new TaskManagerLocation(ResourceID.generate(), address, port);
        InputGate union = receiverGate(receiver, producer, ids);
        gate = union;
        reader =
                new MutableRecordReader<>(
                        union, new String[] {System.getProperty("java.io.tmpdir")});
        for (Writer writer : writers) {
            writer.start();
        }
    }

    private NettyShuffleEnvironment environment(InetAddress address, int buffers) {
        Configuration config = new Configuration();
        NettyConfig netty =
                new NettyConfig(
                        address,
                        0,
                        ConfigurationParserUtils.getPageSize(config),
                        ConfigurationParserUtils.getSlot(config),
                        config);
        NettyShuffleEnvironment environment =
                new NettyShuffleEnvironmentBuilder()
                        .setNumNetworkBuffers(buffers)
                        .setNettyConfig(netty)
                        .build();
        environments.add(environment);
        return environment;
    }

    /** One gate per partition, channel {@code i} reading its subpartition {@code i}; a union. */
    private InputGate receiverGate(
            NettyShuffleEnvironment receiver, TaskManagerLocation producer, ResultPartitionID[] ids)
            throws IOException {
        SingleInputGateBenchmarkFactory factory =
                new SingleInputGateBenchmarkFactory(
                        ResourceID.generate(),
                        receiver.getConfiguration(),
                        receiver.getConnectionManager(),
                        receiver.getResultPartitionManager(),
                        new TaskEventDispatcher(),
                        receiver.getNetworkBufferPool());
        IntermediateDataSetID dataSet = new IntermediateDataSetID();
        IndexedInputGate[] gates = new IndexedInputGate[ids.length];
        for (int g = 0; g < ids.length; g++) {
            ShuffleDescriptorAndIndex[] descriptors = new ShuffleDescriptorAndIndex[channels];
            for (int c = 0; c < channels; c++) {
                descriptors[c] =
                        new ShuffleDescriptorAndIndex(
                                NettyShuffleDescriptorBuilder.newBuilder()
                                        .setId(ids[g])
                                        .setProducerInfoFromTaskManagerLocation(producer)
                                        .setConnectionIndex(c)
                                        .buildRemote(),
                                c);
            }
            TaskMetricGroup metrics = UnregisteredMetricGroups.createUnregisteredTaskMetricGroup();
            ShuffleIOOwnerContext owner =
                    receiver.createShuffleIOOwnerContext(
                            "receiver " + g, metrics.executionId(), metrics);
            SingleInputGate single =
                    factory.create(
                            owner,
                            g,
                            new InputGateDeploymentDescriptor(
                                    dataSet, ResultPartitionType.PIPELINED_BOUNDED, 0, descriptors),
                            NO_PRODUCER_CHECKS,
                            new InputChannelMetrics(metrics.getIOMetricGroup()));
            single.setup();
            gates[g] = single;
        }
        return gates.length == 1 ? gates[0] : new UnionInputGate(gates);
    }

    /**
     * One round, as {@link NetworkThroughput#run}: each writer sends {@code records / writers}
     * records and an end-of-round record to every subpartition; this thread receives until it has
     * read every end-of-round record.
     *
     * @return what the receiver read: records, their bytes (8 each), the sum of their values
     * @throws IllegalStateException if it did not read exactly the records sent (count and sum)
     * @throws Exception what a writer or Flink's reader threw
     */
    Delivered run(long records) throws Exception {
        checkArgument(
                records >= numWriters,
                "records must be >= writers (%s), was %s",
                numWriters,
                records);
        MutableRecordReader<LongValue> in = reader;
        checkState(in != null, "not started");
        long perWriter = records / numWriters;
        List<CompletableFuture<Delivered>> sent = new ArrayList<>(writers.size());
        Thread receiving = Thread.currentThread();
        for (Writer writer : writers) {
            sent.add(writer.send(perWriter, receiving));
        }
        Delivered read;
        try {
            read = receive(in, (long) numWriters * channels);
        } catch (InterruptedException e) {
            for (CompletableFuture<Delivered> one : sent) {
                if (one.isCompletedExceptionally()) {
                    Thread.interrupted(); // a writer interrupted the receive: report its failure
                    result(one);
                }
            }
            throw e;
        }
        Delivered written = Delivered.NONE;
        for (CompletableFuture<Delivered> one : sent) {
            written = written.plus(result(one));
        }
        Delivered.checkAllRead("Flink", read, written);
        return read;
    }

    private Delivered receive(MutableRecordReader<LongValue> in, long endsExpected)
            throws IOException, InterruptedException {
        long records = 0;
        long sum = 0;
        long ends = 0;
        while (ends < endsExpected) {
            if (!in.next(value)) {
                throw new IllegalStateException(
                        "Flink: the gate ended after " + ends + " end-of-round records");
            }
            long v = value.getValue();
            if (v == END_OF_ROUND) {
                ends++;
            } else {
                records++;
                sum += v;
            }
        }
        return new Delivered(records, records * NetworkThroughput.RECORD_BYTES, sum);
    }

    private static Delivered result(CompletableFuture<Delivered> sent) throws Exception {
        try {
            return sent.get(STALL_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("Flink: a writer did not end its round", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof Exception failure ? failure : e;
        }
    }

    /**
     * Stops the writers (each closes its record writer and so its flusher), closes the receiver's
     * gates and both environments (which release the partitions), as Flink's benchmark tears down.
     */
    @Override
    public void close() {
        List<RuntimeException> failures = new ArrayList<>();
        for (Writer writer : writers) {
            writer.stop(failures);
        }
        InputGate union = gate;
        gate = null;
        reader = null;
        if (union != null) {
            try {
                union.close();
            } catch (Exception e) {
                failures.add(new IllegalStateException("Flink: closing the gate failed", e));
            }
        }
        for (NettyShuffleEnvironment environment : environments) {
            try {
                environment.close();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            RuntimeException first = failures.get(0);
            for (int i = 1; i < failures.size(); i++) {
                first.addSuppressed(failures.get(i));
            }
            throw first;
        }
    }

    /** One writer thread: its record writer, Flink's channel selector choosing the channel. */
    private static final class Writer extends RoundWriter {
        private final RecordWriter<LongValue> out;
        private final LongValue record = new LongValue();
        private long sequence;

        Writer(int index, RecordWriter<LongValue> out) {
            super(index, "flink-net-writer-" + index);
            this.out = out;
        }

        @Override
        protected Delivered sendRound(long records) throws IOException {
            long base = (long) index() << 40;
            long sum = 0;
            for (long i = 0; i < records; i++) {
                long v = base | (sequence++ & SEQUENCE_MASK);
                sum += v;
                record.setValue(v);
                out.emit(record);
            }
            record.setValue(END_OF_ROUND);
            out.broadcastEmit(record);
            out.flushAll();
            return new Delivered(records, records * NetworkThroughput.RECORD_BYTES, sum);
        }

        @Override
        protected void closeOutput() {
            out.close();
        }
    }
}
