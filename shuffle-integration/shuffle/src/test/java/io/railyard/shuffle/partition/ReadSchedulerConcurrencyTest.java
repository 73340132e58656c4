package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.partition.ShuffleHarness.Stream;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Many consumers read the same files at once through the one IO thread (ARCHITECTURE.md,
 * Reliability rows 23, 24, 28): each reads exactly its records; one consumer abandons its gate
 * half-way and the others are unaffected; at the end every page is back and no file is left open.
 */
class ReadSchedulerConcurrencyTest {
    @TempDir Path dir;

    @ParameterizedTest(name = "seed {0} {1} {2}")
    @CsvSource({
        "1, SORT, NONE",
        "2, SORT, LZ4",
        "3, HASH, NONE",
        "4, HASH, LZ4",
        "5, SORT, NONE",
        "6, SORT, LZ4"
    })
    void concurrentConsumers_readExactlyTheirRecords(
            long seed, PartitionKind kind, Compression compression) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        int producers = 6;
        int consumers = 8;
        ShuffleOptions options =
                ShuffleOptions.builder()
                        .pageSizeBytes(512)
                        .totalPages(
                                IoScheduler.pagesNeeded(ShuffleOptions.DEFAULT)
                                        + consumers * 3
                                        + 40)
                        .readBatchPages(16)
                        .sortBufferPages(4)
                        .gatePages(2)
                        .compression(compression)
                        .build();
        List<Stream> streams = new ArrayList<>();
        List<BlockingPartition> partitions = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(consumers);
        try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
            for (int p = 0; p < producers; p++) {
                Stream stream = ShuffleHarness.randomStream(random, consumers, 400, 512);
                streams.add(stream);
                partitions.add(ShuffleHarness.write(worker, kind, p, consumers, stream));
            }
            int quitter = random.nextInt(consumers);
            List<Future<?>> results = new ArrayList<>();
            for (int c = 0; c < consumers; c++) {
                int consumer = c;
                results.add(
                        threads.submit(
                                () -> {
                                    InputGate gate =
                                            worker.openGate("c" + consumer, partitions, consumer);
                                    if (consumer == quitter) {
                                        InputGate.Buffer first = gate.poll();
                                        if (first != null) {
                                            first.recycle();
                                        }
                                        gate.close();
                                        return null;
                                    }
                                    try (gate) {
                                        List<List<byte[]>> read = ShuffleHarness.drain(gate);
                                        for (int p = 0; p < producers; p++) {
                                            ShuffleHarness.assertRecords(
                                                    read.get(p),
                                                    streams.get(p).expected(consumer),
                                                    "seed "
                                                            + seed
                                                            + " consumer "
                                                            + consumer
                                                            + " producer "
                                                            + p);
                                        }
                                    }
                                    return null;
                                }));
            }
            for (Future<?> result : results) {
                result.get(2, TimeUnit.MINUTES);
            }
            for (BlockingPartition partition : partitions) {
                partition.release();
            }
            for (int i = 0; i < 100 && worker.stats().filesOpenForRead() > 0; i++) {
                Thread.sleep(10); // the IO thread closes files of cancelled channels lazily
            }
            assertThat(worker.stats().filesOpenForRead()).isZero();
            assertThat(worker.bufferPool().pagesInUse())
                    .isEqualTo(IoScheduler.pagesNeeded(options));
        } finally {
            threads.shutdownNow();
        }
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }
}
