package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.partition.ShuffleHarness.Stream;
import io.railyard.shuffle.partition.ShuffleHarness.Totals;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Disk faults a full disk cannot show, through {@link FaultyFileSystem}: Reliability row 22 (a
 * short write, then {@code EIO}, mid-spill; {@code EIO} on close; and {@code force}, which the
 * shuffle never calls) and rows 20/22 on the read side ({@code EACCES} and {@code EIO} become
 * "partition lost" naming the file). Every writer: hash, sort through lanes and through the sort
 * buffer, hybrid writing through (full) and hybrid writing to disk (no memory to borrow), and the
 * hybrid spill on the IO thread.
 */
class ShuffleIoFaultTest {
    private static final int PAGE_SIZE = 512;

    /** The writers, each a way bytes reach a partition file. */
    enum Writer {
        HASH(4, null, 0.7),
        SORT_LANES(4, null, 0.7),
        SORT_BUFFER(40, null, 0.7),
        HYBRID_WRITE_THROUGH(4, PartitionKind.HYBRID_FULL, 1),
        HYBRID_TO_DISK(40, PartitionKind.HYBRID_SELECTIVE, 0.01);

        final int numSubpartitions;
        final PartitionKind mode;
        final double memoryFraction;

        Writer(int numSubpartitions, PartitionKind mode, double memoryFraction) {
            this.numSubpartitions = numSubpartitions;
            this.mode = mode;
            this.memoryFraction = memoryFraction;
        }

        ShuffleOptions options() {
            return ShuffleOptions.builder()
                    .pageSizeBytes(PAGE_SIZE)
                    .totalPages(512)
                    .sortBufferPages(4)
                    .gatePages(4)
                    .compression(Compression.NONE)
                    .hybridMemoryFraction(memoryFraction)
                    .build();
        }

        ResultPartitionWriter create(ShuffleWorker worker) throws IOException {
            return switch (this) {
                case HASH ->
                        ShuffleHarness.blocking(worker, PartitionKind.HASH, 0, numSubpartitions);
                case SORT_LANES, SORT_BUFFER ->
                        ShuffleHarness.blocking(worker, PartitionKind.SORT, 0, numSubpartitions);
                case HYBRID_WRITE_THROUGH, HYBRID_TO_DISK ->
                        ShuffleHarness.hybrid(worker, ShuffleHarness.id(0), numSubpartitions, mode);
            };
        }

        /** Whether the writer is the kind this case means (lanes or buffer, resident or not). */
        void checkKind(ResultPartitionWriter writer) {
            switch (this) {
                case SORT_LANES -> assertThat(writer).isInstanceOf(LanePartitionWriter.class);
                case SORT_BUFFER -> assertThat(writer).isInstanceOf(SortPartitionWriter.class);
                default -> {}
            }
        }
    }

    private static Stream stream(int n) {
        return ShuffleHarness.randomStream(new SplittableRandom(42), n, 600, PAGE_SIZE);
    }

    private static void assertPagesBackAndNoFile(ShuffleWorker worker, Path root)
            throws IOException {
        ShuffleHarness.awaitUntil(
                () -> worker.bufferPool().pagesInUse() == IoScheduler.pagesNeeded(worker.options()),
                "every page but the IO scheduler's back, now " + worker.bufferPool().owners());
        assertThat(worker.bufferPool().owners()).as("owners left").hasSize(1);
        try (var files = Files.list(root)) {
            assertThat(files).as("files left in " + root).isEmpty();
        }
    }

    /** Writes 1000-byte records round robin until the writer fails; returns the failure. */
    private static Throwable writeUntilFailure(ResultPartitionWriter writer, int n) {
        byte[] record = new byte[1000];
        try {
            for (int i = 0; i < 10_000; i++) {
                writer.emit(ByteBuffer.wrap(record), i % n);
            }
            writer.finish();
            return new AssertionError("10 MB written and finished without a failure");
        } catch (Throwable e) {
            return e;
        }
    }

    /**
     * Row 22: each write call accepts at most 100 bytes (a short write, which every write loop must
     * continue), and once a file holds 5,000 bytes the next call fails with {@code EIO}. The
     * partition fails with a {@link PartitionWriteException} naming the file and exactly the bytes
     * the file system accepted (the short writes' included), the partial files are deleted and
     * every page is back.
     */
    @ParameterizedTest
    @EnumSource(Writer.class)
    void write_shortWriteThenEio_partialFilesDeletedErrorNamesPathAndEveryByte(Writer kind)
            throws Exception {
        try (FaultyFileSystem fs = new FaultyFileSystem()) {
            fs.target(name -> name.startsWith("p0.a0.")).shortWritesThenEio(100, 5000);
            Path root = fs.path("/shuffle");
            try (ShuffleWorker worker = new ShuffleWorker(kind.options(), root)) {
                ResultPartitionWriter writer = kind.create(worker);
                kind.checkKind(writer);
                Throwable failure = writeUntilFailure(writer, kind.numSubpartitions);
                long accepted = fs.bytesAcceptedByAll();
                assertThat(accepted).as("bytes accepted before EIO").isGreaterThanOrEqualTo(5000);
                assertThat(failure)
                        .isInstanceOf(PartitionWriteException.class)
                        .hasMessageContaining("writing partition 'p0.a0' to /shuffle/p0.a0.")
                        .hasMessageContaining("failed after " + accepted + " bytes")
                        .hasMessageContaining(FaultyFileSystem.EIO)
                        .hasMessageContaining("the partition's files were deleted");
                assertThat(failure).rootCause().hasMessage(FaultyFileSystem.EIO);
                assertThatThrownBy(() -> writer.emit(ByteBuffer.wrap(new byte[1]), 0))
                        .isInstanceOf(IllegalStateException.class);
                writer.close();
                assertPagesBackAndNoFile(worker, root);
            }
        }
    }

    /**
     * Row 22, {@code EIO} reported late: the shuffle never calls {@code force} (its files live as
     * long as the job, and a lost one is recomputed), so a deferred write error surfaces when the
     * file is closed at {@code finish()} (NFS and FUSE file systems report it there) — and fails
     * the partition like any other: path, bytes, files deleted, pages back.
     */
    @ParameterizedTest
    @EnumSource(Writer.class)
    void finish_eioOnClose_partitionFailsNamingPathAndBytes_filesDeleted(Writer kind)
            throws Exception {
        try (FaultyFileSystem fs = new FaultyFileSystem()) {
            fs.target(name -> name.startsWith("p0.a0.")).eioOnClose();
            Path root = fs.path("/shuffle");
            try (ShuffleWorker worker = new ShuffleWorker(kind.options(), root)) {
                ResultPartitionWriter writer = kind.create(worker);
                Stream stream = stream(kind.numSubpartitions);
                assertThatThrownBy(
                                () ->
                                        ShuffleHarness.writeAll(
                                                writer,
                                                stream,
                                                0,
                                                new Totals(kind.numSubpartitions)))
                        .isInstanceOf(PartitionWriteException.class)
                        .hasMessageContaining("writing partition 'p0.a0' to /shuffle/p0.a0.")
                        .hasMessageContaining("failed after " + fs.bytesAcceptedByAll() + " bytes")
                        .hasMessageContaining(FaultyFileSystem.EIO)
                        .hasMessageContaining("deleted");
                assertPagesBackAndNoFile(worker, root);
            }
        }
    }

    /**
     * Row 22: short writes alone are no failure (every write loop continues them), and no writer
     * calls {@code force}: with every {@code force} failing with {@code EIO}, each consumer still
     * reads exactly what was written and the file system saw no {@code force} at all.
     */
    @ParameterizedTest
    @EnumSource(Writer.class)
    void write_shortWritesOnly_readEqualsWritten_neverForces(Writer kind) throws Exception {
        try (FaultyFileSystem fs = new FaultyFileSystem()) {
            fs.target(name -> name.startsWith("p0.a0.")).shortWritesThenEio(7, Long.MAX_VALUE);
            fs.eioOnForce();
            Path root = fs.path("/shuffle");
            int n = kind.numSubpartitions;
            try (ShuffleWorker worker = new ShuffleWorker(kind.options(), root)) {
                Stream stream = stream(n);
                ResultPartition partition =
                        ShuffleHarness.writeAll(kind.create(worker), stream, 0, new Totals(n));
                for (int c = 0; c < n; c += 13) {
                    try (InputGate gate = worker.openGate("c" + c, List.of(partition), c)) {
                        ShuffleHarness.assertRecords(
                                ShuffleHarness.drain(gate).get(0),
                                stream.expected(c),
                                kind + " consumer " + c);
                    }
                }
                assertThat(fs.bytesAcceptedByAll()).isPositive();
                assertThat(fs.forceCalls()).as("force calls").isZero();
                partition.release();
                assertPagesBackAndNoFile(worker, root);
            }
        }
    }

    /**
     * Row 22, the hybrid spill on the IO thread: a short write, then {@code EIO}, while selective
     * regions move to the spill file. The partition is lost naming the spill file and the bytes it
     * received; the producer fails at its next region; the spill and data files are deleted and
     * every page is back.
     */
    @Test
    void spill_shortWriteThenEio_partitionLostNamingSpillFileAndBytes_pagesBack() throws Exception {
        try (FaultyFileSystem fs = new FaultyFileSystem()) {
            fs.target(name -> name.equals("p0.a0.spill")).shortWritesThenEio(100, 3000);
            Path root = fs.path("/shuffle");
            ShuffleOptions options = Writer.HYBRID_WRITE_THROUGH.options();
            try (ShuffleWorker worker = new ShuffleWorker(options, root)) {
                HybridPartitionWriter writer =
                        ShuffleHarness.hybrid(
                                worker, ShuffleHarness.id(0), 2, PartitionKind.HYBRID_SELECTIVE);
                HybridPartition partition = writer.partition();
                Stream stream = stream(2);
                for (int i = 0; i < stream.targets().length; i++) {
                    emit(writer, stream, i);
                }
                writer.flush();
                assertThat(partition.residentPages()).as("resident pages").isGreaterThan(10);
                partition.requestSpill(Integer.MAX_VALUE);
                ShuffleHarness.awaitUntil(
                        () -> partition.lostException() != null, "the spill to fail");
                assertThat(partition.lostException())
                        .hasMessageContaining("partition lost: 'p0.a0'")
                        .hasMessageContaining(
                                "spilling to /shuffle/p0.a0.spill failed after "
                                        + fs.bytesAccepted(root.resolve("p0.a0.spill"))
                                        + " bytes")
                        .hasMessageContaining(FaultyFileSystem.EIO);
                assertThat(fs.bytesAccepted(root.resolve("p0.a0.spill"))).isEqualTo(3000);
                writer.emit(ByteBuffer.wrap(new byte[10]), 1);
                assertThatThrownBy(writer::flush)
                        .isInstanceOf(PartitionWriteException.class)
                        .hasCauseInstanceOf(PartitionLostException.class);
                writer.close();
                assertPagesBackAndNoFile(worker, root);
            }
        }
    }

    private static void emit(HybridPartitionWriter writer, Stream stream, int i)
            throws IOException {
        ByteBuffer record = ByteBuffer.wrap(stream.records()[i]);
        if (stream.targets()[i] < 0) {
            writer.broadcast(record);
        } else {
            writer.emit(record, stream.targets()[i]);
        }
    }

    // ---- reads ----

    /** Partitions as a consumer reads them from disk. */
    enum Reader {
        HASH(Writer.HASH),
        SORT(Writer.SORT_BUFFER),
        HYBRID_ON_DISK(Writer.HYBRID_TO_DISK);

        final Writer writer;

        Reader(Writer writer) {
            this.writer = writer;
        }

        /** The file subpartition {@code s} of {@code partition} is read from. */
        Path fileOf(ResultPartition partition, int s) {
            return partition instanceof BlockingPartition blocking
                    ? blocking.dataFile(s)
                    : ((HybridPartition) partition).dataFile();
        }
    }

    /**
     * Rows 20 and 22, reading: a file that cannot be opened ({@code EACCES}) or read ({@code EIO})
     * is a lost partition — a {@link PartitionLostException}, so the producer reruns, not a generic
     * {@link IOException} and not "corrupt" — whose message names the file; the cause is kept and
     * every page is back once the gate closes.
     */
    @ParameterizedTest
    @EnumSource(Reader.class)
    void read_eacces_partitionLostNamingTheFile(Reader kind) throws Exception {
        assertReadFault(kind, true);
    }

    /** As {@link #read_eacces_partitionLostNamingTheFile}, for {@code EIO} on every read. */
    @ParameterizedTest
    @EnumSource(Reader.class)
    void read_eio_partitionLostNamingTheFile(Reader kind) throws Exception {
        assertReadFault(kind, false);
    }

    private static void assertReadFault(Reader kind, boolean eacces) throws Exception {
        try (FaultyFileSystem fs = new FaultyFileSystem()) {
            Path root = fs.path("/shuffle");
            Writer writer = kind.writer;
            int n = writer.numSubpartitions;
            try (ShuffleWorker worker = new ShuffleWorker(writer.options(), root)) {
                ResultPartition partition =
                        ShuffleHarness.writeAll(writer.create(worker), stream(n), 0, new Totals(n));
                if (partition instanceof HybridPartition hybrid) {
                    assertThat(hybrid.residentPages()).as("resident pages").isZero();
                }
                fs.target(name -> name.startsWith("p0.a0."));
                if (eacces) {
                    fs.eaccesOnOpenForRead();
                } else {
                    fs.eioOnRead();
                }
                Throwable failure;
                try (InputGate gate = worker.openGate("c", List.of(partition), 1)) {
                    failure = drainFailure(gate);
                }
                assertThat(failure)
                        .isExactlyInstanceOf(PartitionLostException.class)
                        .hasMessageContaining("partition lost: 'p0.a0'")
                        .hasMessageContaining(kind.fileOf(partition, 1).toString());
                if (eacces) {
                    assertThat(failure).hasRootCauseExactlyInstanceOf(AccessDeniedException.class);
                } else {
                    assertThat(failure).rootCause().hasMessage(FaultyFileSystem.EIO);
                }
                partition.release();
                assertPagesBackAndNoFile(worker, root);
            }
        }
    }

    private static Throwable drainFailure(InputGate gate) {
        try {
            ShuffleHarness.drain(gate);
            return new AssertionError("gate '" + gate.name() + "' read to the end");
        } catch (Throwable e) {
            return e;
        }
    }
}
