package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.partition.HybridReader.Where;
import io.railyard.shuffle.partition.HybridRig.TestReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scripted transitions of a hybrid partition between memory and disk (Reliability invariant 1, rows
 * 29 and 34), one named scenario each, single-threaded through {@link HybridRig}: where each frame
 * is read from, what reaches disk, and that every record arrives exactly once, in order.
 */
class HybridTransitionsTest {
    private static final int PAGE = 256;

    @TempDir Path dir;

    /** An ample pool (256 pages; the writer may borrow all of them). */
    private HybridRig rig(PartitionKind mode, int n) throws IOException {
        return rig(mode, n, 256);
    }

    private HybridRig rig(PartitionKind mode, int n, int totalPages) throws IOException {
        return rig(mode, n, totalPages, 4);
    }

    private HybridRig rig(PartitionKind mode, int n, int totalPages, int sortBufferPages)
            throws IOException {
        ShuffleOptions options =
                HybridRig.options(PAGE, sortBufferPages)
                        .totalPages(totalPages)
                        .hybridMemoryFraction(1)
                        .build();
        return new HybridRig(dir, options, n, mode, false); // the sort writer's regions
    }

    /** A rig whose writer writes through lanes (sort-buffer-pages 4: up to 3 subpartitions). */
    private HybridRig laneRig(PartitionKind mode, int n, int totalPages) throws IOException {
        ShuffleOptions options =
                HybridRig.options(PAGE, 4).totalPages(totalPages).hybridMemoryFraction(1).build();
        HybridRig rig = new HybridRig(dir, options, n, mode, true);
        assertThat(rig.writer).isInstanceOf(LaneHybridWriter.class);
        return rig;
    }

    @SpillingModes
    void aLaneWriterPublishesEveryFullPage_soItsReaderReadsBeforeAnyFlush(PartitionKind mode)
            throws Exception {
        int n = 2;
        try (HybridRig rig = laneRig(mode, n, 256)) {
            Records records = new Records(n);
            for (int i = 0; i < 8; i++) {
                records.emit(rig.writer, 0, 100); // 808 B: frames of 232 B fill 3 pages
            }
            assertThat(rig.partition.regionCount()).as("a region per full page").isEqualTo(3);
            TestReader first = rig.attach(0);
            assertThat(first.readAll()).isEqualTo(Where.WAIT);
            assertThat(first.records)
                    .as("whole records in full pages, before any flush")
                    .hasSize(6);
            records.emit(rig.writer, 1, 30);
            records.broadcast(rig.writer, 40); // publishes both lanes' open pages first
            records.emit(rig.writer, 0, 20);
            rig.writer.finish();
            records.readToEnd(first);
            TestReader second = rig.attach(1);
            records.readToEnd(second);
            HybridStats stats = rig.partition.stats();
            assertThat(stats.bytesReadFromDisk()).as("everything read from memory").isZero();
            assertThat(stats.bytesWrittenToDisk())
                    .isEqualTo(mode == PartitionKind.HYBRID_FULL ? stats.bytesProduced() : 0);
            releaseAndCheck(rig);
        }
    }

    @SpillingModes
    void aLaneWriterThatCannotBorrow_writesEachFullPageToDisk(PartitionKind mode) throws Exception {
        int n = 3;
        int writerPages = HybridPartitionWriter.pagesNeeded(HybridRig.options(PAGE, 4).build());
        try (HybridRig rig = laneRig(mode, n, writerPages)) { // no page to borrow
            Records records = new Records(n);
            records.random(rig.writer, 60, true);
            TestReader reader = rig.attach(2);
            rig.writer.finish();
            records.readToEnd(reader);
            HybridStats stats = rig.partition.stats();
            assertThat(stats.peakResidentPages()).as("nothing resident").isZero();
            assertThat(stats.bytesWrittenToDisk()).isEqualTo(stats.bytesProduced());
            assertThat(stats.bytesReadFromDisk()).isPositive();
            releaseAndCheck(rig);
        }
    }

    @SpillingModes
    void attachAfterFinish_everyConsumerReadsItsRecordsOnce(PartitionKind mode) throws Exception {
        int n = 3;
        try (HybridRig rig = rig(mode, n)) {
            Records records = new Records(n);
            for (int round = 0; round < 6; round++) {
                records.random(rig.writer, 15, true);
                rig.writer.flush();
                if (round == 2) {
                    spillEverything(rig); // the first regions on disk, the later ones in memory
                }
            }
            rig.writer.finish();
            for (int s = 0; s < n; s++) {
                TestReader reader = rig.attach(s);
                records.readToEnd(reader);
                rig.checkAccounting();
            }
            assertThat(rig.partition.stats().bytesReadFromDisk()).isPositive();
            assertThat(rig.partition.stats().bytesReadFromMemory()).isPositive();
            releaseAndCheck(rig);
        }
    }

    @SpillingModes
    void attachMidStream_readsTheSpilledRegionsFromDiskThenTheResidentOnesFromMemory(
            PartitionKind mode) throws Exception {
        int n = 2;
        try (HybridRig rig = rig(mode, n)) {
            Records records = new Records(n);
            for (int region = 0; region < 2; region++) {
                records.spread(rig.writer, 6, 200);
                rig.writer.flush();
            }
            spillEverything(rig);
            for (int region = 0; region < 2; region++) {
                records.spread(rig.writer, 6, 200);
                rig.writer.flush();
            }
            assertThat(rig.partition.residentPages()).isPositive();
            TestReader reader = rig.attach(0);
            assertThat(readFrameByFrame(rig, reader)).matches("D+M+");
            rig.writer.finish();
            records.readToEnd(reader);
            releaseAndCheck(rig);
        }
    }

    @SpillingModes
    void slowReader_readsFromMemoryThenDiskAfterASpillThenMemoryAgain(PartitionKind mode)
            throws Exception {
        int n = 2;
        try (HybridRig rig = rig(mode, n)) {
            Records records = new Records(n);
            TestReader reader = rig.attach(0);
            records.spread(rig.writer, 12, 200);
            rig.writer.flush();
            assertThat(reader.read(2)).isEqualTo(Where.MEMORY);
            assertThat(rig.partition.stats().bytesReadFromDisk()).isZero();
            for (int region = 0; region < 2; region++) { // the reader is slow meanwhile
                records.spread(rig.writer, 6, 200);
                rig.writer.flush();
            }
            spillEverything(rig);
            records.spread(rig.writer, 6, 200);
            rig.writer.flush();
            assertThat(readFrameByFrame(rig, reader)).matches("D+M+");
            rig.writer.finish();
            records.readToEnd(reader);
            releaseAndCheck(rig);
        }
    }

    @SpillingModes
    void spillWhileAReaderIsHalfWayThroughASection_resumesOnDiskAtTheNextFrame(PartitionKind mode)
            throws Exception {
        int n = 2;
        try (HybridRig rig = rig(mode, n, 256, 16)) {
            Records records = new Records(n);
            for (int i = 0; i < 12; i++) {
                records.emit(rig.writer, 0, 180); // a section of many frames
            }
            records.emit(rig.writer, 1, 300);
            rig.writer.flush();
            assertThat(rig.partition.regionCount()).isEqualTo(1);
            TestReader first = rig.attach(0);
            assertThat(first.read(5)).isEqualTo(Where.MEMORY);
            long consumed = rig.partition.stats().bytesReadFromMemory();
            assertThat(consumed).isEqualTo(first.frameBytes);
            spillEverything(rig);
            HybridStats spilled = rig.partition.stats();
            if (mode == PartitionKind.HYBRID_SELECTIVE) {
                assertThat(spilled.bytesSpilled())
                        .as("spilled: the region but the bytes its reader consumed")
                        .isEqualTo(spilled.bytesProduced() - consumed);
            } else {
                assertThat(spilled.bytesSpilled()).isZero();
            }
            assertThat(readFrameByFrame(rig, first)).matches("D+");
            rig.writer.finish();
            records.readToEnd(first);
            TestReader second = rig.attach(1);
            records.readToEnd(second);
            HybridStats stats = rig.partition.stats();
            assertThat(stats.bytesReadFromMemory() + stats.bytesReadFromDisk())
                    .as("every byte read once")
                    .isEqualTo(stats.bytesProduced())
                    .isEqualTo(first.frameBytes + second.frameBytes);
            assertThat(stats.bytesReadFromMemory()).isEqualTo(consumed);
            releaseAndCheck(rig);
        }
    }

    @Test
    void revocationDuringAFullWriteThrough_neverDropsTheRegionBeforeItIsWritten() throws Exception {
        int n = 2;
        try (HybridRig rig = rig(PartitionKind.HYBRID_FULL, n, 64)) {
            Records records = new Records(n);
            TestReader reader = rig.attach(0);
            List<BufferOwner> competitor = new ArrayList<>();
            List<CompletableFuture<List<Page>>> request = new ArrayList<>();
            int[] residentDuringTheWrite = new int[2];
            rig.duringWriteThrough(
                    () -> {
                        rig.duringWriteThrough(null);
                        rig.checkAccounting();
                        residentDuringTheWrite[0] = rig.partition.residentPages();
                        // A consumer's gate registers now: its pledge leaves pages short.
                        int pledge = rig.pool.totalPages() - rig.pool.guaranteedPages();
                        BufferOwner gate = rig.pool.register("competitor", pledge, "test", null);
                        competitor.add(gate);
                        request.add(gate.request(pledge));
                        assertThat(rig.revocationAsks()).isPositive();
                        assertThat(rig.runIo()).isPositive(); // the IO thread spills meanwhile
                        rig.checkAccounting();
                        residentDuringTheWrite[1] = rig.partition.residentPages();
                        try {
                            reader.read(1); // the IO thread reads the region meanwhile
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                        assertThat(reader.frames()).isOne();
                        assertThat(rig.partition.stats().bytesReadFromMemory()).isPositive();
                        rig.checkAccounting();
                    });
            records.spread(rig.writer, 8, 200);
            rig.writer.flush();
            assertThat(competitor).as("a write-through ran").hasSize(1);
            assertThat(residentDuringTheWrite[0]).isPositive();
            assertThat(residentDuringTheWrite[1])
                    .as("pages of the region being written, after a spill during its write")
                    .isEqualTo(residentDuringTheWrite[0]);
            rig.checkAccounting();
            rig.runIo();
            assertThat(request.get(0))
                    .as("the pool's pages once the write completed and the IO thread ran")
                    .isDone();
            rig.checkAccounting();
            assertThat(rig.partition.residentPages()).isZero();
            for (Page page : request.get(0).join()) {
                competitor.get(0).recycle(page);
            }
            competitor.get(0).close();
            records.spread(rig.writer, 4, 100);
            rig.writer.finish();
            records.readToEnd(reader);
            for (int s = 0; s < n; s++) { // and again, everything from the data file
                TestReader again = rig.attach(s);
                records.readToEnd(again);
            }
            HybridStats stats = rig.partition.stats();
            assertThat(stats.bytesWrittenToDisk()).isEqualTo(stats.bytesProduced());
            releaseAndCheck(rig);
        }
    }

    @Test
    void selectiveReadersThatKeepUp_neverPutAByteOnDisk() throws Exception {
        int n = 3;
        try (HybridRig rig = rig(PartitionKind.HYBRID_SELECTIVE, n)) {
            Records records = new Records(n);
            TestReader[] readers = attachAll(rig, n);
            for (int round = 0; round < 20; round++) {
                records.random(rig.writer, 12, true);
                rig.writer.flush();
                readAll(rig, readers, Where.WAIT);
            }
            rig.writer.finish();
            readAll(rig, readers, Where.END);
            for (TestReader reader : readers) {
                records.assertReceived(reader);
                reader.detach(true);
            }
            HybridStats stats = rig.partition.stats();
            assertThat(stats.bytesProduced()).isPositive();
            assertThat(stats.bytesSpilled()).isZero();
            assertThat(stats.bytesWrittenToDisk()).isZero();
            assertThat(stats.bytesReadFromDisk()).isZero();
            assertThat(Files.size(rig.dataFile)).isZero();
            assertThat(Files.exists(rig.spillFile)).isFalse();
            assertThat(rig.partition.residentPages()).as("pages once everyone read").isZero();
            releaseAndCheck(rig);
        }
    }

    @Test
    void fullReadersThatKeepUp_readFromMemoryWhileEveryByteIsWritten() throws Exception {
        int n = 3;
        try (HybridRig rig = rig(PartitionKind.HYBRID_FULL, n)) {
            Records records = new Records(n);
            TestReader[] readers = attachAll(rig, n);
            for (int round = 0; round < 20; round++) {
                records.random(rig.writer, 12, false); // unicast: each byte has one reader
                rig.writer.flush();
                readAll(rig, readers, Where.WAIT);
            }
            rig.writer.finish();
            readAll(rig, readers, Where.END);
            for (TestReader reader : readers) {
                records.assertReceived(reader);
                reader.detach(true);
            }
            HybridStats stats = rig.partition.stats();
            assertThat(stats.bytesProduced()).isPositive();
            assertThat(stats.bytesWrittenToDisk()).isEqualTo(stats.bytesProduced());
            assertThat(Files.size(rig.dataFile)).isEqualTo(stats.bytesProduced());
            assertThat(stats.bytesReadFromMemory()).isEqualTo(stats.bytesProduced());
            assertThat(stats.bytesReadFromDisk()).isZero();
            assertThat(stats.bytesSpilled()).isZero();
            assertThat(rig.partition.residentPages()).as("pages once everyone read").isZero();
            releaseAndCheck(rig);
        }
    }

    @SpillingModes
    void aReaderFailsHalfWay_fullRereadsFromTheFirstRecord_selectiveIsLost(PartitionKind mode)
            throws Exception {
        int n = 2;
        try (HybridRig rig = rig(mode, n)) {
            Records records = new Records(n);
            for (int region = 0; region < 3; region++) {
                records.spread(rig.writer, 20, 150);
                records.broadcast(rig.writer, 50);
                rig.writer.flush();
            }
            TestReader failed = rig.attach(1);
            assertThat(failed.read(4)).isEqualTo(Where.MEMORY);
            failed.detach(false);
            rig.checkAccounting();
            rig.writer.finish();
            if (mode == PartitionKind.HYBRID_SELECTIVE) {
                assertThatThrownBy(() -> rig.attach(1))
                        .isInstanceOf(PartitionLostException.class)
                        .hasMessageContaining("subpartition 1")
                        .hasMessageContaining("read before");
            } else {
                TestReader again = rig.attach(1);
                records.readToEnd(again);
            }
            TestReader other = rig.attach(0);
            records.readToEnd(other);
            rig.checkAccounting();
            assertThat(rig.partition.residentPages()).as("pages nobody needs").isZero();
            releaseAndCheck(rig);
        }
    }

    // ---- helpers ----

    /** Asks the partition for all its resident pages back, as the pool would, and runs the IO. */
    private static void spillEverything(HybridRig rig) {
        rig.partition.requestSpill(rig.partition.residentPages());
        rig.runIo();
        rig.checkAccounting();
        assertThat(rig.partition.residentPages()).as("resident pages after a spill").isZero();
    }

    /**
     * Reads one frame at a time until the reader waits or ends; per frame where it came from, 'M'
     * (memory) or 'D' (disk).
     */
    private static String readFrameByFrame(HybridRig rig, TestReader reader) throws IOException {
        StringBuilder sources = new StringBuilder();
        while (true) {
            long fromDisk = rig.partition.stats().bytesReadFromDisk();
            int frames = reader.frames();
            Where where = reader.read(1);
            rig.checkAccounting();
            if (reader.frames() == frames) {
                assertThat(where).isIn(Where.WAIT, Where.END);
                return sources.toString();
            }
            sources.append(rig.partition.stats().bytesReadFromDisk() > fromDisk ? 'D' : 'M');
        }
    }

    private static TestReader[] attachAll(HybridRig rig, int n) throws IOException {
        TestReader[] readers = new TestReader[n];
        for (int s = 0; s < n; s++) {
            readers[s] = rig.attach(s);
        }
        return readers;
    }

    private static void readAll(HybridRig rig, TestReader[] readers, Where expected)
            throws IOException {
        for (TestReader reader : readers) {
            assertThat(reader.readAll()).isEqualTo(expected);
            rig.checkAccounting();
        }
    }

    /** Releases; every page is back, both files and the writer's pool owner are gone. */
    private static void releaseAndCheck(HybridRig rig) throws IOException {
        rig.partition.release();
        rig.checkAccounting();
        assertThat(rig.owner.pagesInUse()).isZero();
        assertThat(rig.pool.pagesInUse()).isZero();
        assertThat(rig.pool.guaranteedPages()).as("pledged after release").isZero();
        assertThat(Files.exists(rig.dataFile)).isFalse();
        assertThat(Files.exists(rig.spillFile)).isFalse();
        rig.pool.close();
    }

    /** Records written, numbered in their first bytes, and what each subpartition must read. */
    private static final class Records {
        private final List<List<byte[]>> expected = new ArrayList<>();
        private final SplittableRandom random = new SplittableRandom(29);
        private final int n;
        private int next;

        Records(int n) {
            this.n = n;
            for (int s = 0; s < n; s++) {
                expected.add(new ArrayList<>());
            }
        }

        void emit(HybridPartitionWriter writer, int s, int size) throws IOException {
            byte[] record = record(size);
            expected.get(s).add(record);
            writer.emit(ByteBuffer.wrap(record), s);
        }

        void broadcast(HybridPartitionWriter writer, int size) throws IOException {
            byte[] record = record(size);
            for (List<byte[]> of : expected) {
                of.add(record);
            }
            writer.broadcast(ByteBuffer.wrap(record));
        }

        /** {@code count} records of {@code size} bytes, round robin over the subpartitions. */
        void spread(HybridPartitionWriter writer, int count, int size) throws IOException {
            for (int i = 0; i < count; i++) {
                emit(writer, i % n, size);
            }
        }

        /** {@code count} records of 0 B to a page and a half, some broadcast if allowed. */
        void random(HybridPartitionWriter writer, int count, boolean broadcast) throws IOException {
            for (int i = 0; i < count; i++) {
                int size =
                        random.nextInt(4) == 0 ? random.nextInt(PAGE * 3 / 2) : random.nextInt(40);
                if (broadcast && random.nextInt(10) == 0) {
                    broadcast(writer, size);
                } else {
                    emit(writer, random.nextInt(n), size);
                }
            }
        }

        /** Reads {@code reader} to the end, checks what it received, and detaches it. */
        void readToEnd(TestReader reader) throws IOException {
            assertThat(reader.readAll()).isEqualTo(Where.END);
            assertReceived(reader);
            reader.detach(true);
        }

        void assertReceived(TestReader reader) {
            ShuffleHarness.assertRecords(
                    reader.records,
                    expected.get(reader.subpartition),
                    "subpartition " + reader.subpartition);
        }

        private byte[] record(int size) {
            byte[] bytes = new byte[size];
            for (int b = 0; b < size; b++) {
                bytes[b] = (byte) ('a' + (b % 5));
            }
            int id = next++;
            for (int b = 0; b < Math.min(4, size); b++) {
                bytes[b] = (byte) (id >>> (8 * b));
            }
            return bytes;
        }
    }
}
