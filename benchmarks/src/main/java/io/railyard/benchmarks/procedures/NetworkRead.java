package io.railyard.benchmarks.procedures;

import io.railyard.benchmarks.procedures.ShuffleThroughput.Settings;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Throughput;
import io.railyard.deployment.JobId;
import io.railyard.deployment.JobSecret;
import io.railyard.shuffle.partition.BlockingPartition;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.PartitionId;
import io.railyard.transport.DataServer;
import io.railyard.transport.TransportClient;
import io.railyard.transport.TransportOptions;
import io.railyard.worker.PartitionRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * {@code shuffle --transport tcp}: the partitions a blocking run wrote, read a second time by the
 * same P consumers ({@code slots} at a time) over TCP — the producing worker's data server on
 * loopback serves them, and each consumer's gate is opened by a second worker's transport client
 * and lands the bytes in that worker's pool — timed from the first consumer's start to the last
 * one's end, and checked against what the producers wrote. Stateless.
 */
final class NetworkRead {
    private static final JobId JOB = new JobId(1, 1);

    private NetworkRead() {}

    /**
     * Reads {@code partitions} of {@code producer} over TCP, with {@code slots}.
     *
     * @throws IOException if the data server cannot start or a read fails
     * @throws IllegalStateException if the consumers did not read exactly {@code written}
     */
    static Throughput.NetworkRead run(
            Path directory,
            Settings settings,
            PartitionKind kind,
            ShuffleWorker producer,
            List<BlockingPartition> partitions,
            ExecutorService slots,
            Delivered written)
            throws IOException {
        PartitionRegistry registry = new PartitionRegistry();
        List<PartitionId> ids = new ArrayList<>(partitions.size());
        for (BlockingPartition partition : partitions) {
            registry.register(partition.id(), partition, () -> false);
            ids.add(partition.id());
        }
        JobSecret secret = JobSecret.random();
        try (ShuffleWorker reader =
                        new ShuffleWorker(settings.options(), directory.resolve("tcp-reader"));
                DataServer server =
                        DataServer.start(
                                TransportOptions.DEFAULT, settings.options().pageSizeBytes());
                TransportClient client =
                        new TransportClient(
                                TransportOptions.DEFAULT,
                                reader.bufferPool(),
                                settings.options())) {
            server.serve(JOB, secret, registry, producer);
            List<InetSocketAddress> servers =
                    Collections.nCopies(partitions.size(), server.address());
            long start = System.nanoTime();
            List<Future<Delivered>> futures = new ArrayList<>(partitions.size());
            for (int consumer = 0; consumer < partitions.size(); consumer++) {
                int subpartition = consumer;
                futures.add(
                        slots.submit(
                                () ->
                                        BlockingShuffle.drain(
                                                client.openGate(
                                                        "tcp-c" + subpartition,
                                                        servers,
                                                        ids,
                                                        subpartition,
                                                        JOB,
                                                        secret))));
            }
            Delivered read = Delivered.NONE;
            for (Delivered one : ShuffleTasks.await(futures)) {
                read = read.plus(one);
            }
            long nanos = System.nanoTime() - start;
            Delivered.checkAllRead(ShuffleThroughput.key(kind) + " over TCP", read, written);
            DataServer.Stats stats = server.stats();
            return new Throughput.NetworkRead(
                    ShuffleThroughput.mbPerSecond(read.bytes(), nanos),
                    stats.bytesSent(),
                    stats.bytesSentWithoutCopy(),
                    stats.bytesSentFromFiles());
        }
    }
}
