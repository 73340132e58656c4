package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.format.CorruptPartitionFileException;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.ShuffleHarness.Stream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults of hybrid partitions (ARCHITECTURE.md, Reliability rows 20–23 and 34, invariants 4 and 6):
 * a flipped byte in spilled or written data, a full disk during a spill and during a write-through,
 * a file deleted under a reader, a release during a read and during a spill, a second reader of a
 * selective subpartition, a full-mode consumer restarting mid-read. Each ends in a clear error
 * ("partition lost", "corrupt partition file" naming the file and offset, or the writer's {@link
 * PartitionWriteException} naming the file and bytes), every page back and no file left.
 */
class HybridFaultTest {
    private static final int PAGE_SIZE = 1024;

    /** Ample memory, so every region stays resident until a spill moves it. */
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder()
                    .pageSizeBytes(PAGE_SIZE)
                    .totalPages(512)
                    .sortBufferPages(4)
                    .readBatchPages(2)
                    .gatePages(4)
                    .compression(Compression.NONE)
                    .hybridMemoryFraction(1)
                    .build();

    @TempDir Path dir;

    private static Stream stream(int n) {
        return ShuffleHarness.randomStream(new SplittableRandom(42), n, 400, PAGE_SIZE);
    }

    private static void write(HybridPartitionWriter writer, Stream stream, int from, int to)
            throws IOException {
        for (int i = from; i < to; i++) {
            ByteBuffer record = ByteBuffer.wrap(stream.records()[i]);
            if (stream.targets()[i] < 0) {
                writer.broadcast(record);
            } else {
                writer.emit(record, stream.targets()[i]);
            }
            if (i % 16 == 15) {
                writer.flush();
            }
        }
    }

    /** A finished partition of {@code stream}, every region resident. */
    private static HybridPartition writeResident(
            ShuffleWorker worker, PartitionKind mode, int n, Stream stream) throws IOException {
        HybridPartitionWriter writer = ShuffleHarness.hybrid(worker, ShuffleHarness.id(0), n, mode);
        write(writer, stream, 0, stream.targets().length);
        HybridPartition partition = writer.finish();
        assertThat(partition.residentPages()).as("resident pages").isPositive();
        return partition;
    }

    /** Moves every resident page of {@code partition} out of memory, on the IO thread. */
    private static void spillAll(HybridPartition partition) {
        partition.requestSpill(Integer.MAX_VALUE);
        ShuffleHarness.awaitUntil(
                () -> partition.residentPages() == 0, "every region to leave memory");
    }

    /** What draining {@code gate} throws (closing it), or an AssertionError if it ends. */
    private static Throwable drainFailure(InputGate gate) {
        try (gate) {
            ShuffleHarness.drain(gate);
            return new AssertionError("gate '" + gate.name() + "' read to the end");
        } catch (Throwable e) {
            return e;
        }
    }

    private static void assertPagesBack(ShuffleWorker worker) {
        ShuffleHarness.awaitUntil(
                () -> worker.bufferPool().pagesInUse() == IoScheduler.pagesNeeded(OPTIONS),
                "every page but the IO scheduler's back, now " + worker.bufferPool().owners());
        assertThat(worker.hybridStats().residentPages()).isZero();
    }

    private static void assertNoFile(Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            assertThat(files).as("files in " + directory).isEmpty();
        }
    }

    // ---- corrupt data ----

    @Test
    void read_flippedByteInSpilledData_corruptPartitionFileNamingSpillFileAndOffset()
            throws Exception {
        Stream stream = stream(3);
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            HybridPartition partition =
                    writeResident(worker, PartitionKind.HYBRID_SELECTIVE, 3, stream);
            spillAll(partition);
            Path spill = dir.resolve("p0.a0.spill");
            assertThat(partition.stats().bytesSpilled()).isEqualTo(Files.size(spill)).isPositive();
            long flipped = Files.size(spill) / 2;
            flip(spill, flipped);
            assertOneCorruptReadTheRestExact(worker, partition, stream, spill, flipped);
            partition.release();
            assertPagesBack(worker);
        }
        assertNoFile(dir);
    }

    @Test
    void read_flippedByteInDataFileAfterTheRegionLeftMemory_corruptPartitionFile()
            throws Exception {
        Stream stream = stream(3);
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            HybridPartition partition = writeResident(worker, PartitionKind.HYBRID_FULL, 3, stream);
            spillAll(partition); // full mode: drops regions already written through
            Path data = dir.resolve("p0.a0.data");
            assertThat(partition.stats().bytesSpilled()).isZero();
            long flipped = Files.size(data) / 2;
            flip(data, flipped);
            assertOneCorruptReadTheRestExact(worker, partition, stream, data, flipped);
            partition.release();
            assertPagesBack(worker);
        }
        assertNoFile(dir);
    }

    /**
     * Reads every subpartition: the one whose frame holds the flipped byte fails with a corrupt
     * file naming {@code file} and the frame's offset (at most a page before the byte); the others
     * read exactly their records.
     */
    private static void assertOneCorruptReadTheRestExact(
            ShuffleWorker worker, HybridPartition partition, Stream stream, Path file, long flipped)
            throws Exception {
        List<CorruptPartitionFileException> corrupt = new ArrayList<>();
        for (int c = 0; c < partition.numSubpartitions(); c++) {
            InputGate gate = worker.openGate("c" + c, List.of(partition), c);
            try (gate) {
                ShuffleHarness.assertRecords(
                        ShuffleHarness.drain(gate).get(0), stream.expected(c), "consumer " + c);
            } catch (CorruptPartitionFileException e) {
                corrupt.add(e);
            }
        }
        assertThat(corrupt).hasSize(1);
        CorruptPartitionFileException e = corrupt.get(0);
        assertThat(e)
                .isInstanceOf(PartitionLostException.class)
                .hasMessageContaining("partition lost: 'p0.a0'")
                .hasMessageContaining("corrupt partition file " + file)
                .hasMessageContaining("at offset " + e.offset());
        assertThat(e.file()).isEqualTo(file.toString());
        assertThat(e.offset()).isBetween(flipped - PAGE_SIZE + 1, flipped);
    }

    // ---- disk full ----

    @Test
    void spill_diskFull_partitionLostWithTheCause_producerFails_pagesBack() throws Exception {
        try (FileSystem fs = diskOf(32 << 10)) {
            Path root = fs.getPath("/shuffle");
            Stream stream = stream(2);
            try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, root)) {
                HybridPartitionWriter writer =
                        ShuffleHarness.hybrid(
                                worker, ShuffleHarness.id(0), 2, PartitionKind.HYBRID_SELECTIVE);
                HybridPartition partition = writer.partition();
                InputGate early = worker.openGate("early", List.of(partition), 0);
                write(writer, stream, 0, stream.targets().length); // ~130 KiB, all resident
                assertThat(partition.residentPages()).isGreaterThan(32);
                // An owner pledging more than the pool has unlent: the pool asks the writer's
                // borrowed pages back, and the spill that should free them fills the disk.
                BufferOwner pledge = pledgeAllUnpledged(worker);
                CompletableFuture<List<Page>> request = pledge.request(pledge.guaranteedPages());
                List<Page> granted = request.get(10, TimeUnit.SECONDS); // the lost pages came back
                granted.forEach(pledge::recycle);
                pledge.close();

                assertThat(partition.lostException())
                        .hasMessageContaining("partition lost: 'p0.a0'")
                        .hasMessageContaining("spilling to /shuffle/p0.a0.spill failed")
                        .hasRootCauseInstanceOf(IOException.class)
                        .hasStackTraceContaining("out of disk space");
                writer.emit(ByteBuffer.wrap(new byte[10]), 1);
                assertThatThrownBy(writer::flush)
                        .isInstanceOf(PartitionWriteException.class)
                        .hasMessageContaining("/shuffle/p0.a0.data")
                        .hasCauseInstanceOf(PartitionLostException.class);
                assertThat(drainFailure(early))
                        .isInstanceOf(PartitionLostException.class)
                        .hasMessageContaining("spilling to /shuffle/p0.a0.spill failed")
                        .hasCauseExactlyInstanceOf(IOException.class);
                assertThat(drainFailure(worker.openGate("late", List.of(partition), 1)))
                        .isInstanceOf(PartitionLostException.class)
                        .hasMessageContaining("out of disk space");
                partition.checkInvariants();
                writer.close();
                assertPagesBack(worker);
                assertNoFile(root);
            }
        }
    }

    @Test
    void writeThrough_diskFull_partitionWriteExceptionNamingFileAndBytes_readersLost()
            throws Exception {
        try (FileSystem fs = diskOf(32 << 10)) {
            Path root = fs.getPath("/shuffle");
            Stream stream = stream(2);
            try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, root)) {
                HybridPartitionWriter writer =
                        ShuffleHarness.hybrid(
                                worker, ShuffleHarness.id(0), 2, PartitionKind.HYBRID_FULL);
                HybridPartition partition = writer.partition();
                InputGate early = worker.openGate("early", List.of(partition), 0);
                assertThatThrownBy(() -> write(writer, stream, 0, stream.targets().length))
                        .isInstanceOf(PartitionWriteException.class)
                        .hasMessageContaining("writing partition 'p0.a0' to /shuffle/p0.a0.data")
                        .hasMessageMatching("(?s).*failed after [1-9][0-9]* bytes.*")
                        .hasMessageContaining("out of disk space")
                        .hasMessageContaining("deleted");
                assertThatThrownBy(() -> writer.emit(ByteBuffer.wrap(new byte[1]), 0))
                        .isInstanceOf(IllegalStateException.class);
                partition.checkInvariants();
                assertThat(drainFailure(early))
                        .isInstanceOf(PartitionLostException.class)
                        .hasMessageContaining("partition lost: 'p0.a0'")
                        .hasMessageContaining("the producer failed");
                assertThat(drainFailure(worker.openGate("late", List.of(partition), 1)))
                        .isInstanceOf(PartitionLostException.class);
                writer.close();
                assertPagesBack(worker);
                assertNoFile(root);
            }
        }
    }

    private static FileSystem diskOf(long bytes) {
        return Jimfs.newFileSystem(Configuration.unix().toBuilder().setMaxSize(bytes).build());
    }

    /** An owner guaranteed every page not yet guaranteed to someone. */
    private static BufferOwner pledgeAllUnpledged(ShuffleWorker worker) {
        int unpledged = worker.bufferPool().totalPages() - worker.bufferPool().guaranteedPages();
        return worker.bufferPool().register("pledge", unpledged, "test", null);
    }

    // ---- files deleted, releases ----

    @SpillingModes
    void read_fileDeletedUnderAReader_partitionLost(PartitionKind mode) throws Exception {
        Stream stream = stream(1);
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            HybridPartition partition = writeResident(worker, mode, 1, stream);
            InputGate gate = worker.openGate("c", List.of(partition), 0);
            InputGate.Buffer first = gate.poll(); // read in memory, on this thread
            assertThat(first).as("the first frame, read where it lies").isNotNull();
            first.recycle();
            // The region it reads stays (its section is pinned); the rest is only on disk now.
            int reading = partition.pinnedPages();
            assertThat(reading).as("pages of the region read in memory").isPositive();
            partition.requestSpill(Integer.MAX_VALUE);
            ShuffleHarness.awaitUntil(
                    () ->
                            partition.residentPages() == reading
                                    && partition.pinnedPages() == reading
                                    && (mode == PartitionKind.HYBRID_FULL
                                            || partition.stats().bytesSpilled() > 0),
                    "every other region to leave memory");
            Path file =
                    dir.resolve(mode == PartitionKind.HYBRID_FULL ? "p0.a0.data" : "p0.a0.spill");
            Files.delete(file);
            assertThat(drainFailure(gate))
                    .isInstanceOf(PartitionLostException.class)
                    .hasMessageContaining("partition lost: 'p0.a0'")
                    .hasMessageContaining(file + " is gone");
            partition.release();
            assertPagesBack(worker);
        }
        assertNoFile(dir);
    }

    @SpillingModes
    void release_duringARead_readersLost_othersUnaffected_pagesBack(PartitionKind mode)
            throws Exception {
        Stream stream = stream(2);
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            HybridPartition partition = writeResident(worker, mode, 2, stream);
            HybridPartitionWriter otherWriter =
                    ShuffleHarness.hybrid(worker, ShuffleHarness.id(1), 2, mode);
            write(otherWriter, stream, 0, stream.targets().length);
            HybridPartition other = otherWriter.finish();
            InputGate gate = worker.openGate("c", List.of(partition, other), 0);
            InputGate.Buffer first = null;
            while (first == null) {
                gate.availability().get(10, TimeUnit.SECONDS);
                first = gate.poll();
            }
            partition.release();
            first.recycle();
            assertThat(drainFailure(gate))
                    .isInstanceOf(PartitionLostException.class)
                    .hasMessageContaining("partition lost: 'p0.a0'")
                    .hasMessageContaining("released");
            try (InputGate unaffected = worker.openGate("d", List.of(other), 1)) {
                ShuffleHarness.assertRecords(
                        ShuffleHarness.drain(unaffected).get(0), stream.expected(1), "other");
            }
            other.release();
            assertPagesBack(worker);
        }
        assertNoFile(dir);
    }

    /**
     * Releases partitions while the IO thread spills them, at varied moments: nothing throws on the
     * IO thread, every page comes back, no file is left, and the IO thread serves on.
     */
    @SpillingModes
    void release_duringASpill_noCrash_pagesBack(PartitionKind mode) throws Exception {
        SplittableRandom random = new SplittableRandom(7);
        Stream stream = stream(2);
        int[] unfinished = {0};
        List<Throwable> uncaught =
                uncaughtDuring(
                        () -> {
                            try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
                                for (int round = 0; round < 20; round++) {
                                    HybridPartitionWriter writer =
                                            ShuffleHarness.hybrid(
                                                    worker, ShuffleHarness.id(round), 2, mode);
                                    write(writer, stream, 0, stream.targets().length);
                                    HybridPartition partition = writer.finish();
                                    partition.requestSpill(Integer.MAX_VALUE);
                                    spin(random.nextInt(2_000_000));
                                    // racing the spill
                                    unfinished[0] += partition.residentPages() > 0 ? 1 : 0;
                                    partition.release();
                                    assertPagesBack(worker);
                                    assertNoFile(dir);
                                }
                                assertServesOn(worker, mode, stream);
                            }
                        });
        System.out.printf(
                "release during a spill (%s): released with the spill queued or running in %s of 20%n",
                mode, unfinished[0]);
        assertThat(uncaught).as("exceptions thrown on the IO thread").isEmpty();
    }

    /**
     * A release that lands while the IO thread is inside the spill's write (held there by the file
     * system until the release was called): the spill ends without an exception on the IO thread,
     * every page comes back, no file is left, and the IO thread serves on. The test above races the
     * spill at random moments and cannot tell whether any release landed inside it; this one
     * asserts that it did. Selective only: a HYBRID_FULL partition wrote every page as it was
     * produced, so its spill writes nothing (it drops the resident copies).
     */
    @Test
    void release_whileTheSpillIsWriting_noCrash_pagesBack_noFile() throws Exception {
        PartitionKind mode = PartitionKind.HYBRID_SELECTIVE;
        Stream stream = stream(2);
        List<Throwable> uncaught =
                uncaughtDuring(
                        () -> {
                            try (FaultyFileSystem fs = new FaultyFileSystem()) {
                                Path root = fs.path("/shuffle");
                                try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, root)) {
                                    releaseInsideTheSpillsWrite(
                                            fs, writeResident(worker, mode, 2, stream));
                                    assertPagesBack(worker);
                                    assertNoFile(root);
                                    assertServesOn(worker, mode, stream);
                                }
                            }
                        });
        assertThat(uncaught).as("exceptions thrown on the IO thread").isEmpty();
    }

    /**
     * Spills {@code partition} and releases it from another thread while {@code fs} holds the
     * spill's write; returns once the release returned.
     */
    private static void releaseInsideTheSpillsWrite(FaultyFileSystem fs, HybridPartition partition)
            throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        fs.target(name -> true).holdNextWrite(writing, proceed);
        partition.requestSpill(Integer.MAX_VALUE);
        assertThat(writing.await(10, TimeUnit.SECONDS))
                .as("the IO thread inside the spill's write")
                .isTrue();
        CompletableFuture<Void> release =
                CompletableFuture.runAsync(
                        () -> {
                            try {
                                partition.release();
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        });
        Thread.sleep(50); // the release starts while the write is held
        proceed.countDown();
        release.get(10, TimeUnit.SECONDS);
        assertThat(partition.isReleased()).isTrue();
    }

    /** The IO thread serves on: a fresh resident partition reads back exactly. */
    private static void assertServesOn(ShuffleWorker worker, PartitionKind mode, Stream stream)
            throws Exception {
        HybridPartition after = writeResident(worker, mode, 2, stream);
        try (InputGate gate = worker.openGate("after", List.of(after), 1)) {
            ShuffleHarness.assertRecords(
                    ShuffleHarness.drain(gate).get(0), stream.expected(1), "after");
        }
        after.release();
    }

    /** What {@link #uncaughtDuring} runs. */
    private interface Body {
        void run() throws Exception;
    }

    /**
     * Runs {@code body} with every thread's uncaught exceptions collected (the default handler
     * swapped meanwhile); returns them.
     */
    private static List<Throwable> uncaughtDuring(Body body) throws Exception {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> uncaught.add(e));
        try {
            body.run();
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
        return uncaught;
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    // ---- a second reader (Reliability row 34) ----

    @Test
    void selective_secondAttachWhileTheFirstReads_partitionLost_firstReadsOn() throws Exception {
        Stream stream = stream(2);
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            HybridPartition partition =
                    writeResident(worker, PartitionKind.HYBRID_SELECTIVE, 2, stream);
            InputGate first = worker.openGate("first", List.of(partition), 1);
            ShuffleHarness.awaitUntil(
                    () -> partition.attachedReaders() == 1, "the first reader to attach");
            assertThat(drainFailure(worker.openGate("second", List.of(partition), 1)))
                    .isInstanceOf(PartitionLostException.class)
                    .hasMessageContaining("partition lost: 'p0.a0'")
                    .hasMessageContaining("subpartition 1")
                    .hasMessageContaining("read before");
            try (first) {
                ShuffleHarness.assertRecords(
                        ShuffleHarness.drain(first).get(0), stream.expected(1), "first");
            }
            assertThat(drainFailure(worker.openGate("third", List.of(partition), 1)))
                    .isInstanceOf(PartitionLostException.class)
                    .hasMessageContaining("read before");
            partition.checkInvariants();
            partition.release();
            assertPagesBack(worker);
        }
        assertNoFile(dir);
    }

    /**
     * A full-mode consumer reads part of its subpartition and restarts (its gate closes; a new one
     * opens) while the producer still produces and part of the data has left memory: the new reader
     * reads from the first frame, every frame once (the frame numbers are checked on the way), from
     * disk and from memory.
     */
    @Test
    void full_consumerRestartsMidRead_rereadsFromTheFirstFrameEachOnce() throws Exception {
        Stream stream = stream(2);
        int half = stream.targets().length / 2;
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            HybridPartitionWriter writer =
                    ShuffleHarness.hybrid(
                            worker, ShuffleHarness.id(0), 2, PartitionKind.HYBRID_FULL);
            HybridPartition partition = writer.partition();
            write(writer, stream, 0, half);
            writer.flush();
            InputGate attempt = worker.openGate("attempt-1", List.of(partition), 0);
            List<byte[]> partial = readSome(attempt, 5);
            assertThat(partial).isNotEmpty();
            attempt.close(); // the consumer fails mid-read
            spillAll(partition); // what was produced so far is on disk only
            write(writer, stream, half, stream.targets().length);
            writer.finish();
            assertThat(partition.residentPages()).isPositive(); // the rest is in memory
            HybridStats before = partition.stats();
            try (InputGate retry = worker.openGate("attempt-2", List.of(partition), 0)) {
                ShuffleHarness.assertRecords(
                        ShuffleHarness.drain(retry).get(0), stream.expected(0), "attempt 2");
            }
            HybridStats after = partition.stats();
            assertThat(after.bytesReadFromDisk()).isGreaterThan(before.bytesReadFromDisk());
            assertThat(after.bytesReadFromMemory()).isGreaterThan(before.bytesReadFromMemory());
            ShuffleHarness.assertRecords(
                    partial, stream.expected(0).subList(0, partial.size()), "attempt 1 (a prefix)");
            partition.checkInvariants();
            partition.release();
            assertPagesBack(worker);
        }
        assertNoFile(dir);
    }

    /** Polls at least {@code records} records of a one-channel gate (recycling each buffer). */
    private static List<byte[]> readSome(InputGate gate, int records) throws Exception {
        List<byte[]> out = new ArrayList<>();
        RecordDecoder decoder = new RecordDecoder(1);
        while (out.size() < records) {
            InputGate.@Nullable Buffer buffer = gate.poll();
            if (buffer == null) {
                gate.availability().get(10, TimeUnit.SECONDS);
                continue;
            }
            try {
                decoder.decode(0, buffer.data(), ShuffleHarness.copyInto(out));
            } finally {
                buffer.recycle();
            }
        }
        return out;
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
