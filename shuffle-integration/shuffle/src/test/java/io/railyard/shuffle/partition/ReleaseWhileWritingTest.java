package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reliability row 23, a partition released while it is written ({@code testReleaseWhileWriting}): a
 * producer thread writes a hybrid partition (the kind readable, so releasable, while it is written)
 * without pause while another thread releases it, at a different moment in each round. The producer
 * fails with the documented error only — a {@link PartitionWriteException} whose cause is the
 * {@link PartitionLostException} "released", then {@link IllegalStateException} for any later call
 * — and once it closes its writer every page is back and no file is left.
 *
 * <p>(A blocking partition exists only once its writer finished, so it cannot be released while
 * written; abandoning its writer is {@code
 * ShuffleFaultTest#write_abandonedWriter_filesDeletedPagesBack}.)
 */
class ReleaseWhileWritingTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder()
                    .pageSizeBytes(512)
                    .totalPages(256)
                    .sortBufferPages(4)
                    .gatePages(4)
                    .compression(Compression.LZ4)
                    .build();

    @TempDir Path dir;

    static Stream<Arguments> cases() {
        Stream.Builder<Arguments> cases = Stream.builder();
        for (PartitionKind mode : ShuffleHarness.HYBRID_KINDS) {
            cases.add(Arguments.of(mode, 1)); // lanes
            cases.add(Arguments.of(mode, 8)); // the sort buffer
        }
        return cases.build();
    }

    @ParameterizedTest(name = "{0}, {1} subpartitions")
    @MethodSource("cases")
    void release_whileAnotherThreadWrites_writerFailsCleanly_pagesBack_noFile(
            PartitionKind mode, int numSubpartitions) throws Exception {
        ExecutorService producer = Executors.newSingleThreadExecutor();
        // The seeds of the mode names before PartitionKind (FULL, SELECTIVE, PIPELINED).
        String modeName = mode.name().replace("HYBRID_", "");
        SplittableRandom random = new SplittableRandom(modeName.length() * 31L + numSubpartitions);
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            for (int round = 0; round < 8; round++) {
                String what = mode + " n=" + numSubpartitions + " round " + round;
                HybridPartitionWriter writer =
                        ShuffleHarness.hybrid(
                                worker, ShuffleHarness.id(round), numSubpartitions, mode);
                HybridPartition partition = writer.partition();
                long seed = random.nextLong();
                AtomicBoolean released = new AtomicBoolean();
                Future<Throwable> writing =
                        producer.submit(
                                () -> writeUntilFailure(writer, numSubpartitions, seed, released));
                long produced = 1L + random.nextInt(64 << 10);
                ShuffleHarness.awaitUntil(
                        () -> partition.stats().bytesProduced() >= produced || writing.isDone(),
                        what + ": " + produced + " bytes produced");
                assertThat(writing.isDone()).as(what + ": the writer still writes").isFalse();
                partition.release();
                released.set(true);

                Throwable failure = writing.get(60, TimeUnit.SECONDS);
                assertThat(failure)
                        .as(what)
                        .isExactlyInstanceOf(PartitionWriteException.class)
                        .hasMessageContaining("writing partition 'p" + round + ".a0'")
                        .cause()
                        .isExactlyInstanceOf(PartitionLostException.class)
                        .hasMessageContaining("released");
                assertThatThrownBy(() -> writer.emit(ByteBuffer.wrap(new byte[1]), 0))
                        .isInstanceOf(IllegalStateException.class);
                writer.close();
                ShuffleHarness.awaitUntil(
                        () -> worker.bufferPool().pagesInUse() == IoScheduler.pagesNeeded(OPTIONS),
                        what + ": every page back, now " + worker.bufferPool().owners());
                assertThat(worker.bufferPool().owners()).as(what + ": owners").hasSize(1);
                try (var files = Files.list(dir)) {
                    assertThat(files).as(what + ": files left").isEmpty();
                }
            }
        } finally {
            producer.shutdownNow();
        }
    }

    /**
     * Writes random records (0 B to three pages, a broadcast now and then, a flush every 16) until
     * the writer throws; returns what it threw, or an error if it still writes 1,000 records after
     * {@code released} (some 60 flushes, each a region it must fail to publish).
     */
    private static Throwable writeUntilFailure(
            HybridPartitionWriter writer, int n, long seed, AtomicBoolean released) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] bytes = new byte[3 * OPTIONS.pageSizeBytes()];
        random.nextBytes(bytes);
        int afterRelease = 0;
        try {
            for (int i = 0; afterRelease < 1000; i++) {
                if (released.get()) {
                    afterRelease++;
                }
                ByteBuffer record = ByteBuffer.wrap(bytes, 0, random.nextInt(bytes.length + 1));
                if (random.nextInt(20) == 0) {
                    writer.broadcast(record);
                } else {
                    writer.emit(record, random.nextInt(n));
                }
                if (i % 16 == 15) {
                    writer.flush();
                }
            }
            return new AssertionError("1,000 records written after the release, no failure");
        } catch (Throwable e) {
            return e;
        }
    }
}
