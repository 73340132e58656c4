package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.ShuffleHarness.Stream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Reliability row 24, the FLINK-31386 class ({@code testNoDeadlockOnSpecificConsumptionOrder}):
 * consumers that hold a buffer of one input while they wait for another, all at once, at the
 * minimum budget. Flink's sort-merge reader deadlocked when read buffers of a shared pool sat with
 * a consumer that waited for data only that pool could bring. Here every consumer task has two
 * gates (a join's two inputs) over the same files, and
 *
 * <ul>
 *   <li>takes one buffer of its first gate and holds it while it reads its second gate to the end;
 *   <li>holds that buffer further until the next consumer has finished (a chain: consumer {@code c}
 *       waits for {@code c + 1}, which needs the same files and the one IO thread);
 *   <li>inside its first gate (two channels) also holds a buffer of one channel while it waits for
 *       a buffer of the other.
 * </ul>
 *
 * <p>Consumers alternate which gate comes first. The pool holds exactly the IO scheduler's pages
 * and every gate's guarantee (2 pages: one held, one to read with), nothing to borrow. Every
 * consumer must finish within 60 s (a deadlock watchdog on a loaded machine, not a timer) reading
 * exactly its records; afterwards every page is back.
 */
class ConsumptionOrderDeadlockTest {
    private static final int CONSUMERS = 6;
    private static final int PAGE_SIZE = 512;

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"SORT", "HASH"})
    void holdOneInputWhileWaitingForAnother_minimumBudget_noDeadlock(PartitionKind kind)
            throws Exception {
        ShuffleOptions probe =
                ShuffleOptions.builder()
                        .pageSizeBytes(PAGE_SIZE)
                        .totalPages(1 << 12)
                        .sortBufferPages(2)
                        .writeBatchPages(1)
                        .readBatchPages(2)
                        .gatePages(2)
                        .compression(Compression.LZ4)
                        .build();
        int writerPages =
                kind == PartitionKind.SORT
                        ? SortFormatWriter.pagesNeeded(probe)
                        : HashPartitionWriter.pagesNeeded(probe, CONSUMERS);
        int gates = CONSUMERS * 2 * probe.gatePages();
        ShuffleOptions options =
                probe.toBuilder()
                        .totalPages(IoScheduler.pagesNeeded(probe) + Math.max(writerPages, gates))
                        .build();
        SplittableRandom random = new SplittableRandom(kind == PartitionKind.SORT ? 24 : 25);
        List<Stream> streams = new ArrayList<>();
        List<BlockingPartition> partitions = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(CONSUMERS);
        try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
            for (int p = 0; p < 3; p++) {
                Stream stream = ShuffleHarness.randomStream(random, CONSUMERS, 800, PAGE_SIZE);
                streams.add(stream);
                partitions.add(ShuffleHarness.write(worker, kind, p, CONSUMERS, stream));
            }
            List<CountDownLatch> done = new ArrayList<>();
            for (int c = 0; c < CONSUMERS; c++) {
                done.add(new CountDownLatch(1));
            }
            List<Future<?>> consumers = new ArrayList<>();
            for (int c = 0; c < CONSUMERS; c++) {
                int consumer = c;
                consumers.add(
                        threads.submit(
                                () -> {
                                    try {
                                        consume(worker, partitions, streams, consumer, done);
                                    } finally {
                                        done.get(consumer).countDown(); // a failure ends waits too
                                    }
                                    return null;
                                }));
            }
            for (int c = 0; c < CONSUMERS; c++) {
                try {
                    consumers.get(c).get(60, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    throw new AssertionError(
                            kind
                                    + ": consumer "
                                    + c
                                    + " still waits after 60 s (a deadlock); pages in use "
                                    + worker.bufferPool().owners(),
                            e);
                }
            }
            for (BlockingPartition partition : partitions) {
                partition.release();
            }
            assertThat(worker.bufferPool().pagesInUse())
                    .isEqualTo(IoScheduler.pagesNeeded(options));
        } finally {
            threads.shutdownNow();
        }
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    /**
     * Consumer {@code c}: gate "pair" over partitions 0 and 1, gate "single" over partition 2; even
     * consumers hold a buffer of the pair while reading the single gate, odd ones the other way.
     */
    private static void consume(
            ShuffleWorker worker,
            List<BlockingPartition> partitions,
            List<Stream> streams,
            int c,
            List<CountDownLatch> done)
            throws Exception {
        try (InputGate pair = worker.openGate("c" + c + "-pair", partitions.subList(0, 2), c);
                InputGate single =
                        worker.openGate("c" + c + "-single", partitions.subList(2, 3), c)) {
            boolean pairFirst = c % 2 == 0;
            InputGate held = pairFirst ? pair : single;
            InputGate other = pairFirst ? single : pair;
            HeldReader reader = new HeldReader(held);
            reader.holdOne();
            if (held == pair) {
                reader.holdUntilBothChannelsSeen();
            }
            List<List<byte[]>> otherRecords = ShuffleHarness.drain(other);
            if (c + 1 < CONSUMERS) {
                assertThat(done.get(c + 1).await(60, TimeUnit.SECONDS))
                        .as("consumer %s finished while %s held a buffer", c + 1, c)
                        .isTrue();
            }
            List<List<byte[]>> heldRecords = reader.rest();
            List<List<byte[]>> pairRecords = pairFirst ? heldRecords : otherRecords;
            List<List<byte[]>> singleRecords = pairFirst ? otherRecords : heldRecords;
            for (int p = 0; p < 2; p++) {
                ShuffleHarness.assertRecords(
                        pairRecords.get(p), streams.get(p).expected(c), "consumer " + c + " p" + p);
            }
            ShuffleHarness.assertRecords(
                    singleRecords.get(0), streams.get(2).expected(c), "consumer " + c + " p2");
        }
    }

    /**
     * Reads a gate while holding buffers: the first it polls, and (for a gate of two channels) the
     * first of the other channel too; decodes everything in poll order at the end.
     */
    private static final class HeldReader {
        private final InputGate gate;
        private final List<InputGate.Buffer> held = new ArrayList<>();
        // Buffers of the first held buffer's channel that came meanwhile, copied, in order.
        private final List<Copied> copied = new ArrayList<>();

        HeldReader(InputGate gate) {
            this.gate = gate;
        }

        /** Polls one buffer and keeps it. */
        void holdOne() throws Exception {
            held.add(next());
        }

        /**
         * Keeps polling, holding every buffer, until one of the other channel than the first held
         * buffer's arrives: a buffer of one channel is held while the consumer waits for another.
         */
        void holdUntilBothChannelsSeen() throws Exception {
            int first = held.get(0).channel();
            while (true) {
                InputGate.Buffer buffer = next();
                held.add(buffer);
                if (buffer.channel() != first) {
                    return;
                }
                // Same channel again: decoded later too, but copied and recycled now, so only
                // the first buffer pins a page.
                held.remove(held.size() - 1);
                copied.add(copy(buffer));
                buffer.recycle();
            }
        }

        /** Recycles the held buffers and reads the gate to its end; records per channel. */
        List<List<byte[]>> rest() throws Exception {
            List<List<byte[]>> out = new ArrayList<>();
            for (int c = 0; c < gate.numChannels(); c++) {
                out.add(new ArrayList<>());
            }
            RecordDecoder decoder = new RecordDecoder(gate.numChannels());
            List<Copied> order = new ArrayList<>();
            order.add(copy(held.get(0)));
            order.addAll(copied);
            for (int i = 1; i < held.size(); i++) {
                order.add(copy(held.get(i)));
            }
            for (InputGate.Buffer buffer : held) {
                buffer.recycle();
            }
            for (Copied buffer : order) {
                decoder.decode(
                        buffer.channel,
                        java.nio.ByteBuffer.wrap(buffer.bytes),
                        ShuffleHarness.copyInto(out));
            }
            while (!gate.isFinished()) {
                InputGate.Buffer buffer = gate.poll();
                if (buffer == null) {
                    gate.availability().get(60, TimeUnit.SECONDS);
                    continue;
                }
                try {
                    decoder.decode(buffer.channel(), buffer.data(), ShuffleHarness.copyInto(out));
                } finally {
                    buffer.recycle();
                }
            }
            return out;
        }

        private InputGate.Buffer next() throws Exception {
            while (true) {
                InputGate.Buffer buffer = gate.poll();
                if (buffer != null) {
                    return buffer;
                }
                if (gate.isFinished()) {
                    throw new AssertionError("gate '" + gate.name() + "' ended early");
                }
                gate.availability().get(60, TimeUnit.SECONDS);
            }
        }

        private static Copied copy(InputGate.Buffer buffer) {
            java.nio.ByteBuffer data = buffer.data().duplicate();
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            return new Copied(buffer.channel(), bytes);
        }
    }

    /** A buffer's channel and a copy of its bytes. */
    private static final class Copied {
        final int channel;
        final byte[] bytes;

        Copied(int channel, byte[] bytes) {
            this.channel = channel;
            this.bytes = bytes;
        }
    }
}
