package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.ShuffleHarness.Stream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;

/** Scripted scenarios of hybrid partitions through the worker, its IO thread and input gates. */
class HybridPartitionTest {
    @TempDir Path dir;

    private static ShuffleOptions options(int pages) {
        return ShuffleOptions.builder()
                .pageSizeBytes(1024)
                .totalPages(pages)
                .sortBufferPages(4)
                .readBatchPages(2)
                .gatePages(4)
                .build();
    }

    private static HybridPartition write(
            HybridPartitionWriter writer, Stream stream, int flushEvery) throws Exception {
        for (int i = 0; i < stream.targets().length; i++) {
            ByteBuffer record = ByteBuffer.wrap(stream.records()[i]);
            if (stream.targets()[i] < 0) {
                writer.broadcast(record);
            } else {
                writer.emit(record, stream.targets()[i]);
            }
            if (flushEvery > 0 && i % flushEvery == flushEvery - 1) {
                writer.flush();
            }
        }
        return writer.finish();
    }

    @SpillingModes
    void consumersAttachedAfterFinish_readExactlyTheirRecords(PartitionKind mode) throws Exception {
        int n = 5;
        Stream stream = ShuffleHarness.randomStream(new SplittableRandom(1), n, 300, 1024);
        try (ShuffleWorker worker = new ShuffleWorker(options(256), dir)) {
            HybridPartition partition =
                    write(ShuffleHarness.hybrid(worker, ShuffleHarness.id(0), n, mode), stream, 0);
            for (int c = 0; c < n; c++) {
                try (InputGate gate = worker.openGate("c" + c, List.of(partition), c)) {
                    ShuffleHarness.assertRecords(
                            ShuffleHarness.drain(gate).get(0), stream.expected(c), "consumer " + c);
                }
            }
            partition.release();
            assertThat(partition.stats().residentPages()).isZero();
        }
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @SpillingModes
    void consumersAttachedBeforeTheFirstRecord_readWhileItIsProduced(PartitionKind mode)
            throws Exception {
        int n = 4;
        Stream stream = ShuffleHarness.randomStream(new SplittableRandom(2), n, 400, 1024);
        ExecutorService consumers = Executors.newFixedThreadPool(n);
        try (ShuffleWorker worker = new ShuffleWorker(options(256), dir)) {
            HybridPartitionWriter writer =
                    ShuffleHarness.hybrid(worker, ShuffleHarness.id(0), n, mode);
            HybridPartition partition = writer.partition();
            List<Future<List<byte[]>>> reads = new ArrayList<>();
            for (int c = 0; c < n; c++) {
                InputGate gate = worker.openGate("c" + c, List.of(partition), c);
                reads.add(
                        consumers.submit(
                                () -> {
                                    try (gate) {
                                        return ShuffleHarness.drain(gate).get(0);
                                    }
                                }));
            }
            write(writer, stream, 7);
            for (int c = 0; c < n; c++) {
                ShuffleHarness.assertRecords(
                        reads.get(c).get(30, TimeUnit.SECONDS),
                        stream.expected(c),
                        "consumer " + c);
            }
            HybridStats stats = partition.stats();
            assertThat(stats.bytesReadFromMemory() + stats.bytesReadFromDisk())
                    .isGreaterThanOrEqualTo(stats.bytesProduced());
            if (mode == PartitionKind.HYBRID_FULL) {
                assertThat(stats.bytesWrittenToDisk()).isEqualTo(stats.bytesProduced());
            }
            partition.release();
        } finally {
            consumers.shutdownNow();
        }
    }

    @SpillingModes
    void aSecondReaderOfASubpartition_rereadsFull_andFindsSelectiveLost(PartitionKind mode)
            throws Exception {
        int n = 2;
        Stream stream = ShuffleHarness.randomStream(new SplittableRandom(3), n, 100, 1024);
        try (ShuffleWorker worker = new ShuffleWorker(options(256), dir)) {
            HybridPartition partition =
                    write(ShuffleHarness.hybrid(worker, ShuffleHarness.id(0), n, mode), stream, 0);
            try (InputGate gate = worker.openGate("first", List.of(partition), 1)) {
                ShuffleHarness.drain(gate);
            }
            try (InputGate again = worker.openGate("again", List.of(partition), 1)) {
                if (mode == PartitionKind.HYBRID_FULL) {
                    ShuffleHarness.assertRecords(
                            ShuffleHarness.drain(again).get(0), stream.expected(1), "re-read");
                } else {
                    assertThatThrownBy(() -> ShuffleHarness.drain(again))
                            .isInstanceOf(PartitionLostException.class)
                            .hasMessageContaining("subpartition 1")
                            .hasMessageContaining("read before");
                }
            }
            partition.release();
        }
    }

    @SpillingModes
    void aTightPool_spillsOrWritesThrough_andEveryRecordArrives(PartitionKind mode)
            throws Exception {
        int n = 3;
        Stream stream = ShuffleHarness.randomStream(new SplittableRandom(4), n, 600, 1024);
        // Room for the IO scheduler, the writer, one gate, and a few borrowed pages.
        ShuffleOptions options = options(3 + 6 + 4 + 6).toBuilder().hybridMemoryFraction(1).build();
        try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
            HybridPartition partition =
                    write(ShuffleHarness.hybrid(worker, ShuffleHarness.id(0), n, mode), stream, 0);
            for (int c = 0; c < n; c++) {
                try (InputGate gate = worker.openGate("c" + c, List.of(partition), c)) {
                    ShuffleHarness.assertRecords(
                            ShuffleHarness.drain(gate).get(0), stream.expected(c), "consumer " + c);
                }
            }
            HybridStats stats = partition.stats();
            assertThat(stats.bytesWrittenToDisk() + stats.bytesSpilled()).isPositive();
            partition.release();
        }
    }
}
