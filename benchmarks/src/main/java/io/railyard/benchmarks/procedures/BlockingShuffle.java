package io.railyard.benchmarks.procedures;

import io.railyard.benchmarks.procedures.ShuffleThroughput.Settings;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Throughput;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.BlockingPartition;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.PartitionWriter;
import io.railyard.shuffle.partition.ShuffleWorker;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One run of a blocking kind ({@link PartitionKind#SORT}, {@link PartitionKind#HASH}) for {@link
 * ShuffleThroughput}: P producers, then P consumers, each {@code slots} tasks at a time on the same
 * {@code slots} threads; the calling thread waits. Writing is timed from the first producer's start
 * to the last one's end, reading likewise for the consumers. Producers report what they wrote and
 * consumers what they read ({@link Delivered}); the two must match. Stateless.
 */
final class BlockingShuffle {
    private BlockingShuffle() {}

    /**
     * Runs {@code kind} with files in {@code directory}; an I/O failure is recorded in the result.
     *
     * @throws IllegalStateException if the consumers did not read exactly the records written (a
     *     bug)
     */
    static Throughput run(Path directory, Settings settings, PartitionKind kind, boolean overTcp)
            throws IOException {
        ExecutorService slots =
                Executors.newFixedThreadPool(
                        settings.slots(),
                        ShuffleTasks.daemon("shuffle-" + ShuffleThroughput.key(kind) + "-slot-"));
        try (ShuffleWorker worker = new ShuffleWorker(settings.options(), directory)) {
            try {
                long start = System.nanoTime();
                List<Produced> produced = produce(worker, settings, kind, slots);
                double write =
                        ShuffleThroughput.mbPerSecond(settings.bytes(), System.nanoTime() - start);
                List<BlockingPartition> partitions = new ArrayList<>(produced.size());
                Delivered written = Delivered.NONE;
                for (Produced one : produced) {
                    partitions.add(one.partition());
                    written = written.plus(one.written());
                }
                start = System.nanoTime();
                Delivered read = consume(worker, partitions, slots);
                double readRate =
                        ShuffleThroughput.mbPerSecond(read.bytes(), System.nanoTime() - start);
                Delivered.checkAllRead(ShuffleThroughput.key(kind), read, written);
                Throughput.NetworkRead network =
                        overTcp
                                ? NetworkRead.run(
                                        directory,
                                        settings,
                                        kind,
                                        worker,
                                        partitions,
                                        slots,
                                        written)
                                : null;
                for (BlockingPartition partition : partitions) {
                    partition.release();
                }
                Throughput.Measured measured =
                        Throughput.Measured.shuffle(
                                write, readRate, worker.stats().filesCreated(), read);
                return network == null ? measured : measured.withNetwork(network);
            } catch (IOException e) {
                ShuffleTasks.stop(
                        slots); // every task has failed or finished before the worker closes
                return ShuffleThroughput.ioError(
                        worker.stats().filesCreated(),
                        ShuffleThroughput.key(kind) + ": " + ShuffleThroughput.describe(e));
            }
        } finally {
            ShuffleTasks.stop(slots);
        }
    }

    /** A producer's finished partition and what it wrote to it. */
    private record Produced(BlockingPartition partition, Delivered written) {}

    private static List<Produced> produce(
            ShuffleWorker worker, Settings settings, PartitionKind kind, ExecutorService slots)
            throws IOException {
        int p = settings.parallelism();
        byte[] source = ShuffleRecords.source(settings.recordBytes());
        List<Future<Produced>> futures = new ArrayList<>(p);
        for (int producer = 0; producer < p; producer++) {
            long share = ShuffleRecords.share(settings.bytes(), p, producer);
            int index = producer;
            futures.add(
                    slots.submit(
                            () -> produceOne(worker, kind, index, p, share, settings, source)));
        }
        return ShuffleTasks.await(futures);
    }

    private static Produced produceOne(
            ShuffleWorker worker,
            PartitionKind kind,
            int producer,
            int n,
            long share,
            Settings settings,
            byte[] source)
            throws IOException {
        // A blocking kind: its writer is a PartitionWriter (ShuffleWorker#createPartition).
        try (PartitionWriter writer =
                (PartitionWriter)
                        worker.createPartition(ShuffleRecords.partitionOf(producer), n, kind)) {
            Delivered written =
                    ShuffleRecords.write(
                            writer::emit,
                            ShuffleRecords.producerName(producer),
                            n,
                            share,
                            settings.recordBytes(),
                            source,
                            settings.producerPace());
            return new Produced(writer.finish(), written);
        }
    }

    private static Delivered consume(
            ShuffleWorker worker, List<BlockingPartition> partitions, ExecutorService slots)
            throws IOException {
        Delivered total = Delivered.NONE;
        List<Future<Delivered>> futures = new ArrayList<>(partitions.size());
        for (int consumer = 0; consumer < partitions.size(); consumer++) {
            int subpartition = consumer;
            futures.add(slots.submit(() -> consumeOne(worker, partitions, subpartition)));
        }
        for (Delivered read : ShuffleTasks.await(futures)) {
            total = total.plus(read);
        }
        return total;
    }

    private static Delivered consumeOne(
            ShuffleWorker worker, List<BlockingPartition> partitions, int subpartition)
            throws Exception {
        return drain(worker.openGate("c" + subpartition, partitions, subpartition));
    }

    /** Reads {@code opened} to its end, counting its records; closes it. */
    static Delivered drain(InputGate opened) throws Exception {
        RecordTally read = new RecordTally();
        RecordDecoder decoder = new RecordDecoder(opened.numChannels());
        try (InputGate gate = opened) {
            while (!gate.isFinished()) {
                InputGate.Buffer buffer = gate.poll();
                if (buffer == null) {
                    gate.availability().get(5, TimeUnit.MINUTES);
                    continue;
                }
                try {
                    decoder.decode(buffer.channel(), buffer.data(), read);
                } finally {
                    buffer.recycle();
                }
            }
        }
        return read.delivered();
    }
}
