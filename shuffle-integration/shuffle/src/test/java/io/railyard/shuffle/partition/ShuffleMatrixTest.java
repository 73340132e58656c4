package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.buffer.NetworkBufferPool;
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
import java.util.stream.IntStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shuffle matrix of ARCHITECTURE.md's Reliability catalogue: {hash, sort, hybrid-full,
 * hybrid-selective} × {minimum budget, ample budget}, on random streams (0 B to several pages,
 * skew, broadcast, with and without LZ4) from several producers (rows 19, 24, 29, 34; invariants 1
 * and 4). Blocking kinds are read after their producers finished; hybrid kinds by consumers
 * attached before production (reading while it runs, on their own threads) and by consumers
 * attached after it.
 *
 * <p>Every consumer's records equal, in order, what each producer wrote for it, and so do its
 * record count, byte count and an order-independent checksum, against the totals each producer
 * counted while writing. Afterwards, release deletes every file, the pool holds only the IO
 * scheduler's pages, and once the worker closes none.
 *
 * <p>The minimum budget is the guarantees that must coexist: the IO scheduler's, and either the
 * writers' (one at a time for blocking kinds; all at once for hybrid kinds, with the early gates)
 * or one late gate's. Hybrid writers then have no page to borrow and write every region to disk.
 */
class ShuffleMatrixTest {
    static java.util.stream.Stream<Arguments> cases() {
        java.util.stream.Stream.Builder<Arguments> cases = java.util.stream.Stream.builder();
        IntStream.range(0, 16)
                .forEach(
                        seed -> {
                            for (PartitionKind kind : ShuffleHarness.MATRIX_KINDS) {
                                cases.add(Arguments.of(seed, kind, true));
                                cases.add(Arguments.of(seed, kind, false));
                            }
                        });
        return cases.build();
    }

    @ParameterizedTest(name = "seed {0} {1} minimum budget {2}")
    @MethodSource("cases")
    void everyConsumerReadsWhatItsProducersWrote(
            int seed, PartitionKind kind, boolean minimum, @TempDir Path dir) throws Exception {
        SplittableRandom random = new SplittableRandom(seed * 7919L + kind.name().hashCode());
        int pageSize = random.nextBoolean() ? 256 : 1024;
        int n = 1 + random.nextInt(8);
        int producers = 1 + random.nextInt(3);
        int early = kind.isReadableWhileWritten() ? random.nextInt(n + 1) : 0;
        ShuffleOptions probe =
                ShuffleOptions.builder()
                        .pageSizeBytes(pageSize)
                        .totalPages(1 << 12)
                        .sortBufferPages(1 + random.nextInt(6))
                        .writeBatchPages(1 + random.nextInt(4))
                        .readBatchPages(1 + random.nextInt(4))
                        .gatePages(1 + random.nextInt(4))
                        .compression(random.nextBoolean() ? Compression.LZ4 : Compression.NONE)
                        .build();
        int writers =
                (kind.isReadableWhileWritten() ? producers : 1)
                        * ShuffleMemory.writerPages(probe, kind, n);
        int needed =
                IoScheduler.pagesNeeded(probe)
                        + Math.max(writers + early * probe.gatePages(), probe.gatePages());
        ShuffleOptions options =
                probe.toBuilder().totalPages(minimum ? needed : needed * 4).build();
        String what = "seed " + seed + " " + kind + (minimum ? " minimum" : " ample");

        List<Stream> streams = new ArrayList<>();
        List<Totals> written = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            streams.add(ShuffleHarness.randomStream(random, n, random.nextInt(200), pageSize));
            written.add(new Totals(n));
        }
        int flushEvery = 1 + random.nextInt(20);
        List<List<List<byte[]>>> read = new ArrayList<>(); // consumer, producer, records
        ExecutorService earlyThreads = Executors.newFixedThreadPool(Math.max(1, early));
        NetworkBufferPool pool;
        try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
            pool = worker.bufferPool();
            List<ResultPartition> partitions = new ArrayList<>();
            if (kind.isReadableWhileWritten()) {
                List<ResultPartitionWriter> hybridWriters = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    HybridPartitionWriter writer =
                            ShuffleHarness.hybrid(worker, ShuffleHarness.id(p), n, kind);
                    hybridWriters.add(writer);
                    partitions.add(writer.partition());
                }
                List<Future<List<List<byte[]>>>> earlyReads = new ArrayList<>();
                for (int c = 0; c < early; c++) {
                    InputGate gate = worker.openGate("c" + c, partitions, c);
                    earlyReads.add(
                            earlyThreads.submit(
                                    () -> {
                                        try (gate) {
                                            return ShuffleHarness.drain(gate);
                                        }
                                    }));
                }
                for (int p = 0; p < producers; p++) {
                    ShuffleHarness.writeAll(
                            hybridWriters.get(p), streams.get(p), flushEvery, written.get(p));
                }
                for (Future<List<List<byte[]>>> reads : earlyReads) {
                    read.add(reads.get(2, TimeUnit.MINUTES)); // a hang guard; drain has its own
                }
            } else {
                for (int p = 0; p < producers; p++) {
                    ResultPartitionWriter writer =
                            worker.createPartition(ShuffleHarness.id(p), n, kind);
                    partitions.add(
                            ShuffleHarness.writeAll(writer, streams.get(p), 0, written.get(p)));
                }
            }
            for (int c = early; c < n; c++) {
                try (InputGate gate = worker.openGate("c" + c, partitions, c)) {
                    read.add(ShuffleHarness.drain(gate));
                }
            }

            for (int c = 0; c < n; c++) {
                for (int p = 0; p < producers; p++) {
                    String who = what + " consumer " + c + " producer " + p;
                    List<byte[]> records = read.get(c).get(p);
                    ShuffleHarness.assertRecords(records, streams.get(p).expected(c), who);
                    written.get(p).assertSameAs(Totals.read(n, c, records), c, who);
                }
            }
            for (ResultPartition partition : partitions) {
                partition.release();
                for (Path file : partition.files()) {
                    assertThat(file).as(what).doesNotExist();
                }
            }
            assertThat(worker.bufferPool().pagesInUse())
                    .as(what + ": pages in use after release")
                    .isEqualTo(IoScheduler.pagesNeeded(options));
            assertThat(worker.hybridStats().residentPages()).isZero();
        } finally {
            earlyThreads.shutdownNow();
        }
        assertThat(pool.pagesInUse()).as(what + ": pages in use after close").isZero();
        try (var files = Files.list(dir)) {
            assertThat(files).as(what + ": files left").isEmpty();
        }
    }
}
