package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.ShuffleHarness.Stream;
import io.railyard.shuffle.partition.ShuffleHarness.Totals;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Reliability row 26, a slow consumer under skew ({@code testRequestTimeoutIsRefreshedAndSuccess}):
 * nine records in ten go to subpartition 0, whose consumer reads slowly — 1 ms per buffer and four
 * stalls of 300 ms, as a consumer busy in its own work or in a GC pause — while the other consumers
 * read at full speed, on a small budget (one page per gate). Nothing in the shuffle layer times
 * out: a producer waiting for room, the IO thread waiting for a gate's room and a consumer waiting
 * for data each wait until progress, a release or an interrupt ends the wait. So every consumer
 * reads exactly its records, with no spurious failure, for every kind; afterwards every page is
 * back and no file is left.
 */
class SlowConsumerUnderSkewTest {
    private static final int N = 4;
    private static final int PAGE_SIZE = 512;
    private static final int STALLS = 4;
    private static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(PartitionKind.class) // pipelined included: its producer waits for its consumers
    void slowConsumerOfTheSkewedSubpartition_smallBudget_everyoneReadsExactly(PartitionKind kind)
            throws Exception {
        ShuffleOptions probe =
                ShuffleOptions.builder()
                        .pageSizeBytes(PAGE_SIZE)
                        .totalPages(1 << 12)
                        .sortBufferPages(2)
                        .writeBatchPages(1)
                        .readBatchPages(2)
                        .gatePages(1)
                        .compression(Compression.NONE)
                        .build();
        int writerPages = ShuffleMemory.writerPages(probe, kind, N);
        ShuffleOptions options =
                probe.toBuilder()
                        .totalPages(IoScheduler.pagesNeeded(probe) + writerPages + N + 4)
                        .build();
        Stream stream = skewed(new SplittableRandom(26));
        Totals written = new Totals(N);
        ExecutorService consumers = Executors.newFixedThreadPool(N);
        try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
            ResultPartitionWriter writer = worker.createPartition(ShuffleHarness.id(0), N, kind);
            List<Future<List<byte[]>>> reads = new ArrayList<>();
            ResultPartition partition;
            if (kind.isReadableWhileWritten()) {
                partition = ((HybridPartitionWriter) writer).partition();
                startConsumers(worker, partition, consumers, reads);
                ShuffleHarness.writeAll(writer, stream, 16, written);
            } else {
                partition = ShuffleHarness.writeAll(writer, stream, 0, written);
                startConsumers(worker, partition, consumers, reads);
            }
            for (int c = 0; c < N; c++) {
                List<byte[]> records;
                try {
                    records = reads.get(c).get(2, TimeUnit.MINUTES);
                } catch (TimeoutException e) {
                    throw new AssertionError(kind + ": consumer " + c + " hangs", e);
                }
                ShuffleHarness.assertRecords(records, stream.expected(c), kind + " consumer " + c);
                written.assertSameAs(Totals.read(N, c, records), c, kind + " consumer " + c);
            }
            partition.release();
            ShuffleHarness.awaitUntil(
                    () -> worker.bufferPool().pagesInUse() == IoScheduler.pagesNeeded(options),
                    kind + ": every page back, now " + worker.bufferPool().owners());
        } finally {
            consumers.shutdownNow();
        }
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    /** 1,500 records, 0 to 600 bytes, nine in ten to subpartition 0, the rest spread. */
    private static Stream skewed(SplittableRandom random) {
        int count = 1500;
        int[] targets = new int[count];
        byte[][] records = new byte[count][];
        for (int i = 0; i < count; i++) {
            targets[i] = random.nextInt(10) < 9 ? 0 : 1 + random.nextInt(N - 1);
            records[i] = new byte[random.nextInt(601)];
            random.nextBytes(records[i]);
        }
        return new Stream(targets, records);
    }

    private static void startConsumers(
            ShuffleWorker worker,
            ResultPartition partition,
            ExecutorService threads,
            List<Future<List<byte[]>>> reads) {
        for (int c = 0; c < N; c++) {
            InputGate gate = worker.openGate("c" + c, List.of(partition), c);
            boolean slow = c == 0;
            reads.add(
                    threads.submit(
                            () -> {
                                try (gate) {
                                    return slow ? readSlowly(gate) : drainOne(gate);
                                }
                            }));
        }
    }

    private static List<byte[]> drainOne(InputGate gate) throws Exception {
        return ShuffleHarness.drain(gate).get(0);
    }

    /**
     * Reads {@code gate} (one channel) as a slow consumer: 1 ms per buffer, and a 300 ms stall
     * after buffers 50, 150, 250 and 350.
     */
    private static List<byte[]> readSlowly(InputGate gate) throws Exception {
        List<byte[]> out = new ArrayList<>();
        RecordDecoder decoder = new RecordDecoder(1);
        int buffers = 0;
        while (!gate.isFinished()) {
            InputGate.Buffer buffer = gate.poll();
            if (buffer == null) {
                gate.availability().get(2, TimeUnit.MINUTES);
                continue;
            }
            try {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                if (buffers % 100 == 50 && buffers < 100 * STALLS) {
                    LockSupport.parkNanos(STALL_NANOS);
                }
                decoder.decode(buffer.channel(), buffer.data(), ShuffleHarness.copyInto(out));
            } finally {
                buffer.recycle();
            }
            buffers++;
        }
        assertThat(buffers).as("buffers read slowly").isGreaterThan(100 * STALLS);
        return out;
    }
}
