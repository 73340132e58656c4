package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.buffer.InsufficientNetworkMemoryException;
import io.railyard.shuffle.format.CorruptPartitionFileException;
import io.railyard.shuffle.format.IndexEntry;
import io.railyard.shuffle.partition.ShuffleHarness.Stream;
import io.railyard.testing.LeakDetector.KeepsFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * ARCHITECTURE.md, Reliability rows 19–25 and 27: corrupt, truncated, missing, released files; disk
 * full; memory. (Short writes, {@code EIO} and {@code EACCES}: {@link ShuffleIoFaultTest}.)
 */
class ShuffleFaultTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder()
                    .pageSizeBytes(512)
                    .totalPages(256)
                    .sortBufferPages(4)
                    .compression(Compression.NONE)
                    .build();

    @TempDir Path dir;

    private static Stream stream(int n) {
        return ShuffleHarness.randomStream(new SplittableRandom(42), n, 300, 512);
    }

    /**
     * The exception reading channel {@code c} to its end failed with, or null if it read to the
     * end. Only exceptions are caught: an error (the harness's own assertion) fails the test.
     */
    private static @Nullable Exception readFailure(
            ShuffleWorker worker, BlockingPartition partition, int c) {
        InputGate gate = worker.openGate("c" + c, List.of(partition), c);
        try {
            ShuffleHarness.drain(gate);
            return null;
        } catch (Exception e) {
            return e;
        } finally {
            gate.close();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"SORT", "HASH"})
    void read_bitFlipInDataFile_corruptPartitionFileNamingFileAndOffset(PartitionKind kind)
            throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            BlockingPartition partition = ShuffleHarness.write(worker, kind, 0, 3, stream(3));
            Path file = partition.files().get(0);
            flip(file, Files.size(file) - 10); // the last frame's payload (not a hole)
            List<Exception> failures = new ArrayList<>();
            for (int c = 0; c < 3; c++) {
                Exception failure = readFailure(worker, partition, c);
                if (failure != null) {
                    failures.add(failure);
                }
            }
            assertThat(failures).isNotEmpty();
            assertThat(failures.get(0))
                    .isInstanceOf(CorruptPartitionFileException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("offset");
            partition.release();
        }
    }

    @Test
    void read_truncatedSortDataFile_corrupt() throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            BlockingPartition partition =
                    ShuffleHarness.write(worker, PartitionKind.SORT, 0, 1, stream(1));
            Path file = partition.files().get(0);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.truncate(channel.size() - 10);
            }
            assertThat(readFailure(worker, partition, 0))
                    .isInstanceOf(CorruptPartitionFileException.class)
                    .hasMessageContaining("truncated");
            partition.release();
        }
    }

    @Test
    void read_wrongIndexEntry_corruptNamingIndexFile() throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            BlockingPartition partition =
                    ShuffleHarness.write(worker, PartitionKind.SORT, 0, 2, stream(2));
            Path index = partition.files().get(0); // region 0's index block opens the file
            flip(index, 3); // entry (0, 0): its offset
            assertThat(readFailure(worker, partition, 0))
                    .isInstanceOf(CorruptPartitionFileException.class)
                    .hasMessageContaining(index.toString())
                    .hasMessageContaining("index entry");
            partition.release();
        }
    }

    @Test
    void read_indexCutShort_entryPastTheEndOfTheFile() throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            BlockingPartition partition =
                    ShuffleHarness.write(worker, PartitionKind.SORT, 0, 2, stream(2));
            Path index = partition.files().get(0); // region 0's index block opens the file
            try (FileChannel channel = FileChannel.open(index, StandardOpenOption.WRITE)) {
                channel.truncate(IndexEntry.BYTES); // only entry (0, 0) is left
            }
            assertThat(readFailure(worker, partition, 1))
                    .isInstanceOf(CorruptPartitionFileException.class)
                    .hasMessageContaining("past the end");
            partition.release();
        }
    }

    @Test
    void read_indexEntryOfAnotherSubpartition_detected() throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            BlockingPartition partition =
                    ShuffleHarness.write(worker, PartitionKind.SORT, 0, 2, stream(2));
            Path index = partition.files().get(0); // region 0's index block opens the file
            byte[] bytes = Files.readAllBytes(index);
            System.arraycopy(bytes, IndexEntry.BYTES, bytes, 0, IndexEntry.BYTES);
            Files.write(index, bytes);
            assertThat(readFailure(worker, partition, 0))
                    .isInstanceOf(CorruptPartitionFileException.class)
                    .hasMessageContaining("index entry checksum");
            partition.release();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"SORT", "HASH"})
    void read_deletedFile_partitionLost(PartitionKind kind) throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            BlockingPartition partition = ShuffleHarness.write(worker, kind, 0, 2, stream(2));
            for (Path file : partition.files()) {
                Files.delete(file);
            }
            assertThat(readFailure(worker, partition, 1))
                    .isInstanceOf(PartitionLostException.class)
                    .hasMessageContaining("partition lost: 'p0.a0'");
            assertThat(worker.bufferPool().pagesInUse())
                    .isEqualTo(IoScheduler.pagesNeeded(OPTIONS));
        }
    }

    /**
     * Reliability row 23 ({@code testReleaseWhileReading}): the partition is released while its
     * consumer is mid-way — its gate holds a buffer and more data is on disk than the gate can
     * hold, so the read cannot have ended — and the consumer always fails with "partition lost …
     * released"; a consumer of another partition reads on unaffected, and every page is back.
     */
    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"SORT", "HASH"})
    void read_releasedWhileReading_partitionLostAndPagesBack(PartitionKind kind) throws Exception {
        Stream big = ShuffleHarness.randomStream(new SplittableRandom(42), 1, 2000, 512);
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            BlockingPartition partition = ShuffleHarness.write(worker, kind, 0, 1, big);
            BlockingPartition other = ShuffleHarness.write(worker, kind, 1, 1, stream(1));
            long gateBytes = (long) OPTIONS.gatePages() * OPTIONS.pageSizeBytes();
            assertThat(partition.frameBytes())
                    .as("bytes on disk, more than the gate can hold")
                    .isGreaterThan(2 * gateBytes);
            InputGate gate = worker.openGate("c", List.of(partition), 0);
            InputGate.Buffer first = null;
            while (first == null) {
                gate.availability().get(10, java.util.concurrent.TimeUnit.SECONDS);
                first = gate.poll();
            }
            assertThat(gate.isFinished()).as("the read cannot have ended").isFalse();
            partition.release();
            first.recycle();
            assertThatThrownBy(() -> ShuffleHarness.drain(gate))
                    .isInstanceOf(PartitionLostException.class)
                    .hasMessageContaining("partition lost: 'p0.a0'")
                    .hasMessageContaining("released");
            gate.close();
            try (InputGate unaffected = worker.openGate("d", List.of(other), 0)) {
                ShuffleHarness.assertRecords(
                        ShuffleHarness.drain(unaffected).get(0), stream(1).expected(0), "other");
            }
            other.release();
            assertThat(worker.bufferPool().pagesInUse())
                    .isEqualTo(IoScheduler.pagesNeeded(OPTIONS));
        }
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"SORT", "HASH"})
    void write_diskFull_failsWithPathAndBytesAndDeletesFiles(PartitionKind kind) throws Exception {
        try (FileSystem fs =
                Jimfs.newFileSystem(
                        Configuration.unix().toBuilder().setMaxSize(64 << 10).build())) {
            Path root = fs.getPath("/shuffle");
            try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, root)) {
                PartitionWriter writer =
                        kind == PartitionKind.SORT
                                ? ShuffleHarness.blocking(worker, PartitionKind.SORT, 0, 4)
                                : ShuffleHarness.blocking(worker, PartitionKind.HASH, 0, 4);
                byte[] record = new byte[1000];
                assertThatThrownBy(
                                () -> {
                                    for (int i = 0; i < 1000; i++) {
                                        writer.emit(ByteBuffer.wrap(record), i % 4);
                                    }
                                    writer.finish();
                                })
                        .isInstanceOf(PartitionWriteException.class)
                        .hasMessageContaining("/shuffle/p")
                        .hasMessageContaining("failed after")
                        .hasMessageContaining("deleted");
                assertThatThrownBy(() -> writer.emit(ByteBuffer.wrap(record), 0))
                        .isInstanceOf(IllegalStateException.class);
                writer.close();
                assertThat(worker.bufferPool().pagesInUse())
                        .isEqualTo(IoScheduler.pagesNeeded(OPTIONS));
            }
            try (var files = Files.list(root)) {
                assertThat(files).isEmpty();
            }
        }
    }

    @Test
    void write_abandonedWriter_filesDeletedPagesBack() throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            PartitionWriter writer = ShuffleHarness.blocking(worker, PartitionKind.SORT, 0, 3);
            writer.emit(ByteBuffer.wrap(new byte[3000]), 1);
            writer.close();
            assertThat(worker.bufferPool().pagesInUse())
                    .isEqualTo(IoScheduler.pagesNeeded(OPTIONS));
        }
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void createHash_thousandSubpartitionsEightProducersIn64MiB_namesOwnerNumbersAndSetting()
            throws Exception {
        ShuffleOptions options = ShuffleOptions.DEFAULT;
        List<PartitionWriter> writers = new ArrayList<>();
        try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
            assertThatThrownBy(
                            () -> {
                                for (int p = 0; p < 8; p++) {
                                    writers.add(
                                            ShuffleHarness.blocking(
                                                    worker, PartitionKind.HASH, p, 1000));
                                }
                            })
                    .isInstanceOf(InsufficientNetworkMemoryException.class)
                    .hasMessageContaining("hash writer of 'p2.a0'")
                    .hasMessageContaining(ShuffleOptions.TOTAL_MEMORY_KEY)
                    .hasMessageContaining("subpartitions");
            assertThat(writers).hasSize(2);
            for (PartitionWriter writer : writers) {
                writer.close();
            }
            for (int p = 0; p < 8; p++) {
                writers.add(ShuffleHarness.blocking(worker, PartitionKind.SORT, 1000 + p, 1000));
            }
            for (PartitionWriter writer : writers) {
                writer.close();
            }
        }
    }

    @Test
    @KeepsFiles("the file in the way is the test's own")
    void createHash_aFileInTheWay_clearErrorNothingLeaked() throws Exception {
        Path inTheWay = Files.createFile(dir.resolve("p0.a0.hash.3"));
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            assertThatThrownBy(() -> ShuffleHarness.blocking(worker, PartitionKind.HASH, 0, 5))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("p0.a0.hash.3 already exists");
            assertThat(worker.bufferPool().pagesInUse())
                    .isEqualTo(IoScheduler.pagesNeeded(OPTIONS));
            assertThat(worker.bufferPool().owners()).hasSize(1); // the IO scheduler only
        }
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(inTheWay);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"SORT", "HASH"})
    void close_whileGatesHaveQueuedReads_cancelsThemAndStopsTheIoThread(PartitionKind kind)
            throws Exception {
        ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir);
        List<BlockingPartition> partitions = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            partitions.add(ShuffleHarness.write(worker, kind, p, 2, stream(2)));
        }
        InputGate unread = worker.openGate("c0", partitions, 0);
        InputGate other = worker.openGate("c1", partitions, 1);
        other.availability().get(10, java.util.concurrent.TimeUnit.SECONDS);
        worker.close(); // no exception: nothing is held by a consumer
        assertThat(worker.bufferPool().pagesInUse()).isZero();
        assertThat(unread.availability()).as("a waiting consumer is woken").isDone();
        assertThatThrownBy(unread::poll) // not null for ever: a consumer outside an engine hangs
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("input gate 'c0' cannot be read: its shuffle worker closed");
        assertThat(Thread.getAllStackTraces().keySet())
                .noneMatch(t -> t.getName().equals("railyard-shuffle-io") && t.isAlive());
        for (BlockingPartition partition : partitions) {
            partition.release();
        }
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void createSort_duplicateIdOrNoSubpartitions_clearError() throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            ShuffleHarness.blocking(worker, PartitionKind.SORT, 0, 1).close();
            PartitionWriter writer = ShuffleHarness.blocking(worker, PartitionKind.SORT, 0, 1);
            assertThatThrownBy(() -> ShuffleHarness.blocking(worker, PartitionKind.SORT, 0, 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("already exists");
            writer.close();
            assertThatThrownBy(
                            () ->
                                    worker.createPartition(
                                            ShuffleHarness.id(1), 0, PartitionKind.SORT))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'p1.a0'")
                    .hasMessageContaining("was 0");
            assertThat(worker.bufferPool().pagesInUse())
                    .isEqualTo(IoScheduler.pagesNeeded(OPTIONS));
        }
    }

    private static void flip(Path file, long offset) throws IOException {
        try (FileChannel channel =
                FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, offset);
            one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
            channel.write(one, offset);
        }
    }
}
