package io.railyard.transport;

import io.railyard.deployment.JobId;
import io.railyard.deployment.JobSecret;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.ResultPartitionWriter;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.PartitionId;
import io.railyard.worker.PartitionRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * A test rig: a producing worker (shuffle layer, registry, data server) and a reading worker
 * (shuffle layer, client), with helpers to write partitions of known records and drain gates.
 */
final class TwoWorkers implements AutoCloseable {
    static final JobId JOB = new JobId(7, 7);
    static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder()
                    .pageSizeBytes(4096)
                    .totalPages(256)
                    .gatePages(4)
                    .sortBufferPages(8)
                    .writeBatchPages(2)
                    .readBatchPages(4)
                    .build();

    final JobSecret secret = JobSecret.random();
    final ShuffleWorker producer;
    final ShuffleWorker reader;
    final PartitionRegistry registry = new PartitionRegistry();
    final DataServer server;
    final TransportClient client;

    TwoWorkers(Path dir, TransportOptions options) throws IOException {
        this(dir, options, OPTIONS);
    }

    /** Both workers with {@code shuffle}'s options. */
    TwoWorkers(Path dir, TransportOptions options, ShuffleOptions shuffle) throws IOException {
        producer = new ShuffleWorker(shuffle, dir.resolve("producer"));
        reader = new ShuffleWorker(shuffle, dir.resolve("reader"));
        server = DataServer.start(options, shuffle.pageSizeBytes());
        server.serve(JOB, secret, registry, producer);
        client = new TransportClient(options, reader.bufferPool(), shuffle);
        readerBaseline = reader.bufferPool().pagesInUse();
    }

    /** Pages the reader's pool holds when no gate is open (its IO thread's). */
    final int readerBaseline;

    /** Pages the reader's gates hold. */
    int readerPages() {
        return reader.bufferPool().pagesInUse() - readerBaseline;
    }

    TwoWorkers(Path dir) throws IOException {
        this(dir, TransportOptions.DEFAULT);
    }

    /** Records of partition {@code p}, subpartition {@code s}: deterministic, of mixed sizes. */
    static List<byte[]> records(int p, int s, int count) {
        SplittableRandom random = new SplittableRandom(p * 1_000_003L + s);
        List<byte[]> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int size =
                    random.nextInt(10) == 0 ? 1 + random.nextInt(20_000) : 1 + random.nextInt(64);
            byte[] record = new byte[size];
            random.nextBytes(record);
            out.add(record);
        }
        return out;
    }

    /** Writes partition {@code p} of {@code kind} with {@code subpartitions}, registers it. */
    ResultPartition write(PartitionKind kind, int p, int subpartitions, int count)
            throws IOException {
        return write(kind, p, subpartitions, s -> records(p, s, count));
    }

    /**
     * Writes partition {@code p} of {@code kind}: subpartition s holds {@code records.apply(s)}.
     */
    ResultPartition write(
            PartitionKind kind, int p, int subpartitions, IntFunction<List<byte[]>> records)
            throws IOException {
        PartitionId id = new PartitionId(p, 0);
        ResultPartitionWriter writer = producer.createPartition(id, subpartitions, kind);
        for (int s = 0; s < subpartitions; s++) {
            for (byte[] record : records.apply(s)) {
                writer.emit(ByteBuffer.wrap(record), s);
            }
        }
        ResultPartition partition = writer.finish();
        registry.register(id, partition, () -> false);
        return partition;
    }

    InputGate open(String name, List<PartitionId> partitions, int subpartition) {
        List<java.net.InetSocketAddress> servers = new ArrayList<>();
        for (int i = 0; i < partitions.size(); i++) {
            servers.add(server.address());
        }
        return client.openGate(name, servers, partitions, subpartition, JOB, secret);
    }

    /** Every record of every channel of {@code gate}, until it finishes (at most 60 s). */
    static List<List<byte[]>> drain(InputGate gate) throws Exception {
        return drainUntil(gate, read -> false);
    }

    /**
     * The records of every channel of {@code gate} until it finishes or {@code enough} holds of
     * what was read (checked after each buffer).
     *
     * @throws java.util.concurrent.TimeoutException after 60 s without either
     */
    static List<List<byte[]>> drainUntil(InputGate gate, Predicate<List<List<byte[]>>> enough)
            throws Exception {
        List<List<byte[]>> out = new ArrayList<>();
        for (int c = 0; c < gate.numChannels(); c++) {
            out.add(new ArrayList<>());
        }
        RecordDecoder decoder = new RecordDecoder(gate.numChannels());
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!gate.isFinished() && !enough.test(out)) {
            InputGate.Buffer buffer = gate.poll();
            if (buffer == null) {
                gate.availability()
                        .get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                continue;
            }
            try {
                decoder.decode(
                        buffer.channel(),
                        buffer.data(),
                        (channel, record) -> {
                            byte[] copy = new byte[record.remaining()];
                            record.get(copy);
                            out.get(channel).add(copy);
                        });
            } finally {
                buffer.recycle();
            }
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        try {
            client.close();
            server.close();
            registry.releaseAll();
        } finally {
            reader.close();
            producer.close();
        }
    }
}
