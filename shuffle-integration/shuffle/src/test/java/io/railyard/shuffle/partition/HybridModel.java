package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.OwnerStats;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.buffer.PoolInvariants;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.HybridReader.Where;
import io.railyard.shuffle.partition.HybridRig.FileFrames;
import io.railyard.shuffle.partition.HybridRig.TestReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The partition under test and what it must deliver: {@link HybridModelTest}'s model of a hybrid
 * partition, its writer, readers, IO thread and pool, driven by random steps (see the test).
 */
final class HybridModel {
    static final int STEPS = 200;
    static final int TRACE = 40;

    /** What all runs covered, printed once (the per-run lines would flood the report). */
    static final Map<String, Long> COVERED = new LinkedHashMap<>();

    private static String format(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    final SplittableRandom random;
    final PartitionKind mode;
    final HybridRig rig;
    // Whether the writer writes through lanes (else through the sort buffer).
    final boolean lanes;
    final int n;
    final int pageSize;
    final boolean skewed;
    final boolean compressible;
    final int releaseEarlyAt;
    // Per subpartition: every record written for it, in order, and how many are sealed at
    // least.
    final List<List<byte[]>> expected = new ArrayList<>();
    final int[] sealed;
    final @Nullable TestReader[] readers;
    final int[] checked;
    final int[] lastRegion;
    final int[] lastOffset;
    final int[] slowUntil;
    final boolean[] attachedEver;
    // Selective: the subpartition needs nothing any more (its reader ended or was abandoned).
    final boolean[] gone;
    // Selective: frames its reader took, of its lane and of the broadcast lane.
    final int[] unicastTaken;
    final int[] broadcastTaken;
    long frameBytesTaken;
    // Disk: the files' frames, and (full mode) the records the data file holds.
    final FileFrames dataFrames;
    final FileFrames spillFrames;
    final RecordDecoder diskDecoder;
    final List<List<byte[]>> diskRecords = new ArrayList<>();
    final Set<Long> framesOnDisk = new HashSet<>();
    final ArrayDeque<String> trace = new ArrayDeque<>();
    @Nullable BufferOwner competitor;
    @Nullable CompletableFuture<List<Page>> competitorPages;
    HybridStats last = new HybridStats(0, 0, 0, 0, 0, 0, 0);
    int step;
    int nextId;
    boolean released;
    int writeThroughs;
    // Whether the last record emitted since the last flush was a broadcast one.
    boolean broadcastBuffered;

    HybridModel(
            SplittableRandom random,
            PartitionKind mode,
            Compression compression,
            boolean minimum,
            Path dir)
            throws IOException {
        this.random = random;
        this.mode = mode;
        this.pageSize = random.nextBoolean() ? 256 : 1024;
        this.n = 1 + random.nextInt(6);
        double[] fractions = {0.5, 0.7, 1.0};
        ShuffleOptions probe =
                HybridRig.options(pageSize, 1 + random.nextInt(8))
                        .readBatchPages(1 + random.nextInt(3))
                        .compression(compression)
                        .hybridMemoryFraction(
                                minimum ? 1.0 : fractions[random.nextInt(fractions.length)])
                        .hybridSpillFraction(random.nextBoolean() ? 0.4 : 1.0)
                        .hybridResidentAttachedFraction(random.nextInt(4) == 0 ? 0.5 : 0)
                        .build();
        int writerPages = HybridPartitionWriter.pagesNeeded(probe);
        int total =
                minimum
                        ? writerPages + 1 + random.nextInt(4)
                        : writerPages * 4 + 32 + random.nextInt(64);
        ShuffleOptions options = probe.toBuilder().totalPages(total).build();
        this.lanes = random.nextBoolean() && HybridPartitionWriter.lanesFit(options, n);
        this.rig = new HybridRig(dir, options, n, mode, lanes);
        cover(lanes ? "lane writer" : "sort writer", 1);
        this.skewed = random.nextBoolean();
        this.compressible = random.nextBoolean();
        this.releaseEarlyAt = random.nextInt(8) == 0 ? random.nextInt(STEPS) : -1;
        this.sealed = new int[n];
        this.readers = new TestReader[n];
        this.checked = new int[n];
        this.lastRegion = new int[n];
        this.lastOffset = new int[n];
        this.slowUntil = new int[n];
        this.attachedEver = new boolean[n];
        this.gone = new boolean[n];
        this.unicastTaken = new int[n];
        this.broadcastTaken = new int[n];
        for (int s = 0; s < n; s++) {
            expected.add(new ArrayList<>());
            diskRecords.add(new ArrayList<>());
        }
        this.dataFrames = new FileFrames(rig.dataFile, options);
        this.spillFrames = new FileFrames(rig.spillFile, options);
        this.diskDecoder = new RecordDecoder(n + 1);
        if (mode == PartitionKind.HYBRID_FULL) {
            rig.duringWriteThrough(this::duringWriteThrough);
        }
    }

    void run() throws IOException {
        note(
                format(
                        "n %s, %s, skewed %s, release early at %s",
                        n, rig.options, skewed, releaseEarlyAt));
        for (step = 0; step < STEPS; step++) {
            if (step == releaseEarlyAt) {
                releaseEarly();
                tally();
                return;
            }
            act();
            check();
        }
        readEverythingToTheEnd();
        note("release");
        closeFiles();
        rig.partition.release();
        released = true;
        checkReleased();
        tally();
    }

    private void tally() {
        HybridStats stats = rig.partition.stats();
        cover("runs", 1);
        cover("regions", rig.partition.regionCount());
        cover("spilled bytes", stats.bytesSpilled());
        cover("disk read bytes", stats.bytesReadFromDisk());
        cover("write throughs", writeThroughs);
        cover("revocation asks", rig.revocationAsks());
    }

    private void cover(String what, long amount) {
        COVERED.merge(what, amount, Long::sum);
    }

    // ---- the steps ----

    private void act() throws IOException {
        int action = random.nextInt(100);
        if (action < 30) {
            produce();
        } else if (action < 36) {
            seal();
        } else if (action < 44) {
            attach(random.nextInt(n));
        } else if (action < 66) {
            consume();
        } else if (action < 70) {
            slowDown();
        } else if (action < 73) {
            failReader();
        } else if (action < 78) {
            revoke();
        } else if (action < 82) {
            competitorArrivesOrLeaves();
        } else if (action < 98) {
            ioStep();
        } else if (step > STEPS / 3 && rig.writer.isOpen()) {
            finish();
        }
    }

    private void produce() throws IOException {
        if (!rig.writer.isOpen()) {
            return;
        }
        int burst = 1 + random.nextInt(8);
        boolean broadcast = random.nextInt(8) == 0;
        for (int i = 0; i < burst; i++) {
            int target = broadcast ? -1 : skewed && random.nextBoolean() ? 0 : random.nextInt(n);
            byte[] record = record();
            int[] before = new int[n];
            for (int s = 0; s < n; s++) {
                before[s] = expected.get(s).size();
                if (target < 0 || target == s) {
                    expected.get(s).add(record); // before the emit: a write-through may read it
                }
            }
            int regions = rig.partition.regionCount();
            note("produce " + record.length + " B to " + (target < 0 ? "all" : target));
            if (target < 0) {
                rig.writer.broadcast(ByteBuffer.wrap(record));
            } else {
                rig.writer.emit(ByteBuffer.wrap(record), target);
            }
            if (rig.partition.regionCount() > regions) {
                // The sort writer drains every subpartition at once; the lane writer publishes
                // the target's full page, or every lane when broadcast and unicast alternate.
                boolean every = !lanes || target < 0 || broadcastBuffered;
                for (int s = 0; s < n; s++) {
                    if (every || s == target) {
                        sealed[s] = Math.max(sealed[s], before[s]); // buffered before
                    }
                }
            }
            broadcastBuffered = target < 0;
        }
    }

    /** 0 B to several pages; the first bytes number the record, so no two look alike. */
    private byte[] record() {
        int size =
                switch (random.nextInt(8)) {
                    case 0 -> 0;
                    case 1 -> random.nextInt(pageSize * 3 + 1);
                    case 2 -> pageSize - random.nextInt(40);
                    default -> random.nextInt(64);
                };
        byte[] bytes = new byte[size];
        for (int b = 0; b < size; b++) {
            bytes[b] = compressible ? (byte) ('a' + (b % 7)) : (byte) random.nextInt();
        }
        int id = nextId++;
        for (int b = 0; b < Math.min(4, size); b++) {
            bytes[b] = (byte) (id >>> (8 * b));
        }
        return bytes;
    }

    private void seal() throws IOException {
        if (!rig.writer.isOpen()) {
            return;
        }
        note("seal");
        rig.writer.flush();
        sealAll();
    }

    private void finish() throws IOException {
        note("finish");
        rig.writer.finish();
        sealAll();
        assertThat(rig.partition.isFinished()).isTrue();
    }

    private void sealAll() {
        broadcastBuffered = false;
        for (int s = 0; s < n; s++) {
            sealed[s] = expected.get(s).size();
        }
    }

    private void attach(int s) throws IOException {
        if (readers[s] != null && mode == PartitionKind.HYBRID_FULL) {
            return; // one reader of a subpartition at a time, as with gates
        }
        if (mode == PartitionKind.HYBRID_SELECTIVE && attachedEver[s]) {
            note("second attach of " + s + " (must fail)");
            cover("second attaches refused", 1);
            assertThatThrownBy(() -> rig.partition.attach(s, () -> {}))
                    .as("second attach of selective subpartition %s", s)
                    .isInstanceOf(PartitionLostException.class)
                    .hasMessageContaining("subpartition " + s)
                    .hasMessageContaining("read before");
            return;
        }
        note("attach " + s);
        if (attachedEver[s]) {
            cover("full rereads", 1);
        }
        readers[s] = rig.attach(s);
        attachedEver[s] = true;
        checked[s] = 0;
        lastRegion[s] = 0;
        lastOffset[s] = 0;
    }

    private void consume() throws IOException {
        int s = pickReader(true);
        if (s < 0) {
            return;
        }
        int frames = random.nextInt(3) == 0 ? Integer.MAX_VALUE : 1 + random.nextInt(6);
        read(s, frames);
    }

    private Where read(int s, int frames) throws IOException {
        TestReader reader = Objects.requireNonNull(readers[s]);
        int before = reader.frames();
        long bytesBefore = reader.frameBytes;
        note("reader " + s + " takes " + (frames == Integer.MAX_VALUE ? "all" : frames));
        Where where = reader.read(frames);
        int took = reader.frames() - before;
        frameBytesTaken += reader.frameBytes - bytesBefore;
        note(format("  %s after %s frames, %s records", where, took, reader.records.size()));
        checkDelivered(reader);
        if (where == Where.MEMORY || where == Where.DISK) {
            assertThat(took).as("frames taken before the sink refused").isEqualTo(frames);
        } else {
            assertThat(took).isLessThanOrEqualTo(frames);
            if (where == Where.END || !lanes) {
                // A lane writer publishes full pages, which may end inside a record.
                assertThat(reader.atRecordBoundary()).as("reader %s ends on a record", s).isTrue();
            }
            assertThat(reader.records.size())
                    .as("records of %s when its reader stops at %s", s, where)
                    .isGreaterThanOrEqualTo(sealed[s]);
        }
        if (where == Where.WAIT) {
            assertThat(rig.partition.isFinished()).as("WAIT after finish").isFalse();
        }
        if (where == Where.END) {
            assertThat(rig.partition.isFinished()).as("END before finish").isTrue();
            assertThat(reader.records.size()).isEqualTo(expected.get(s).size());
            reader.detach(true);
            retire(s, true);
        }
        return where;
    }

    /** Each new record is the next one written for the subpartition; positions only advance. */
    private void checkDelivered(TestReader reader) {
        int s = reader.subpartition;
        List<byte[]> want = expected.get(s);
        for (int i = checked[s]; i < reader.records.size(); i++) {
            assertThat(i)
                    .as("subpartition %s received more records than were written for it", s)
                    .isLessThan(want.size());
            assertThat(Arrays.equals(reader.records.get(i), want.get(i)))
                    .as(
                            "record %s of %s is the one written (not one twice, late or misrouted)",
                            i, s)
                    .isTrue();
        }
        checked[s] = reader.records.size();
        int region = reader.reader.region();
        int offset = reader.reader.offset();
        assertThat(region > lastRegion[s] || (region == lastRegion[s] && offset >= lastOffset[s]))
                .as(
                        "reader %s moved back from region %s byte %s to region %s byte %s",
                        s, lastRegion[s], lastOffset[s], region, offset)
                .isTrue();
        lastRegion[s] = region;
        lastOffset[s] = offset;
        unicastTaken[s] = Math.max(unicastTaken[s], reader.unicastFrames);
        broadcastTaken[s] = Math.max(broadcastTaken[s], reader.broadcastFrames);
    }

    private void slowDown() {
        int s = pickReader(false);
        if (s >= 0) {
            slowUntil[s] = step + 5 + random.nextInt(40);
            note("reader " + s + " slow until step " + slowUntil[s]);
        }
    }

    private void failReader() {
        int s = pickReader(false);
        if (s < 0) {
            return;
        }
        note("reader " + s + " fails");
        cover("failed readers", 1);
        Objects.requireNonNull(readers[s]).detach(false);
        retire(s, false);
    }

    private void retire(int s, boolean completed) {
        readers[s] = null;
        if (mode == PartitionKind.HYBRID_SELECTIVE) {
            gone[s] = true; // ended or abandoned: it needs nothing any more
        }
        note("  reader " + s + (completed ? " ended" : " abandoned"));
    }

    private void revoke() {
        int pages = 1 + random.nextInt(Math.max(1, rig.partition.residentPages()));
        note("revoke " + pages + " pages (resident " + rig.partition.residentPages() + ")");
        rig.partition.requestSpill(pages);
    }

    private void competitorArrivesOrLeaves() {
        BufferOwner present = competitor;
        if (present != null) {
            note("competitor leaves");
            competitorLeaves(present);
            return;
        }
        int room = rig.pool.totalPages() - rig.pool.guaranteedPages();
        if (room <= 0) {
            return;
        }
        int pages = 1 + random.nextInt(room);
        int asks = rig.revocationAsks();
        note("competitor pledged " + pages + " pages");
        BufferOwner arrived = rig.pool.register("competitor", pages, "test", null);
        competitor = arrived;
        CompletableFuture<List<Page>> request = arrived.request(pages);
        competitorPages = request;
        if (!request.isDone()) {
            assertThat(rig.revocationAsks())
                    .as("the pool asks the writer's borrowed pages back")
                    .isGreaterThan(asks);
        }
    }

    private void competitorLeaves(BufferOwner present) {
        CompletableFuture<List<Page>> request = Objects.requireNonNull(competitorPages);
        if (request.isDone() || !request.cancel(false)) {
            for (Page page : request.join()) {
                present.recycle(page);
            }
        }
        present.close();
        competitor = null;
        competitorPages = null;
    }

    private void ioStep() {
        int ran = rig.runIo();
        note("IO step: " + ran + " tasks");
        CompletableFuture<List<Page>> request = competitorPages;
        if (ran > 0 && request != null) {
            assertThat(request)
                    .as("the competitor's guaranteed pages after the IO thread spilled")
                    .isDone();
        }
    }

    /** Full mode: the IO thread and readers run while the writer writes a region through. */
    private void duringWriteThrough() {
        writeThroughs++;
        if (released || random.nextInt(3) != 0) {
            return;
        }
        note("  during a write-through:");
        cover("interleaved write throughs", 1);
        try {
            rig.checkAccounting();
            switch (random.nextInt(3)) {
                case 0 -> rig.partition.requestSpill(1 + rig.partition.residentPages());
                case 1 -> competitorArrivesOrLeaves(); // a gate registers meanwhile
                default -> {}
            }
            int ran = rig.runIo();
            note("  IO step: " + ran + " tasks");
            rig.checkAccounting();
            int s = pickReader(true);
            if (s >= 0) {
                read(s, 1 + random.nextInt(4));
                rig.checkAccounting();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private int pickReader(boolean awake) {
        int from = random.nextInt(n);
        for (int i = 0; i < n; i++) {
            int s = (from + i) % n;
            if (readers[s] != null && (!awake || slowUntil[s] <= step)) {
                return s;
            }
        }
        return -1;
    }

    // ---- after every step ----

    private void check() throws IOException {
        rig.checkAccounting();
        HybridStats stats = rig.partition.stats();
        assertThat(stats.bytesProduced()).isGreaterThanOrEqualTo(last.bytesProduced());
        assertThat(stats.bytesWrittenToDisk()).isGreaterThanOrEqualTo(last.bytesWrittenToDisk());
        assertThat(stats.bytesSpilled()).isGreaterThanOrEqualTo(last.bytesSpilled());
        assertThat(stats.bytesReadFromMemory() + stats.bytesReadFromDisk())
                .as("bytes read = bytes of the frames the readers took")
                .isEqualTo(frameBytesTaken);
        last = stats;
        CompletableFuture<List<Page>> request = competitorPages;
        if (request != null && !request.isDone()) {
            assertThat(rig.queuedIo())
                    .as(
                            "the competitor waits for pages the partition was asked for: a spill"
                                    + " is queued, else the ask was lost")
                    .isPositive();
        }
        checkFiles(stats);
    }

    private void checkFiles(HybridStats stats) throws IOException {
        dataFrames.parseNew(this::dataFrame);
        spillFrames.parseNew(this::spilledFrame);
        assertThat(dataFrames.parsed()).as("data file bytes").isEqualTo(stats.bytesWrittenToDisk());
        assertThat(spillFrames.parsed()).as("spill file bytes").isEqualTo(stats.bytesSpilled());
        if (mode == PartitionKind.HYBRID_SELECTIVE) {
            return;
        }
        assertThat(stats.bytesWrittenToDisk())
                .as("full mode writes every byte")
                .isEqualTo(stats.bytesProduced());
        assertThat(stats.bytesSpilled()).as("full mode never spills").isZero();
        for (int s = 0; s < n; s++) {
            assertThat(diskRecords.get(s).size())
                    .as("records of %s in the data file (every sealed one)", s)
                    .isGreaterThanOrEqualTo(sealed[s])
                    .isLessThanOrEqualTo(expected.get(s).size());
        }
    }

    private void dataFrame(int lane, int sequence, ByteBuffer payload) {
        if (mode == PartitionKind.HYBRID_FULL) {
            diskDecoder.decode(lane < 0 ? n : lane, payload, this::diskRecord);
        } else {
            onDiskOnce(lane, sequence, "data");
        }
    }

    private void diskRecord(int channel, ByteBuffer record) {
        byte[] bytes = new byte[record.remaining()];
        record.get(bytes);
        for (int s = 0; s < n; s++) {
            if (channel == n || channel == s) {
                List<byte[]> on = diskRecords.get(s);
                int i = on.size();
                assertThat(i)
                        .as("records of %s in the data file", s)
                        .isLessThan(expected.get(s).size());
                assertThat(Arrays.equals(bytes, expected.get(s).get(i)))
                        .as("record %s of %s in the data file", i, s)
                        .isTrue();
                on.add(bytes);
            }
        }
    }

    /** Selective: a spilled frame was not consumed by the subpartitions that need it. */
    private void spilledFrame(int lane, int sequence, ByteBuffer payload) {
        assertThat(mode).as("a spill file in full mode").isEqualTo(PartitionKind.HYBRID_SELECTIVE);
        onDiskOnce(lane, sequence, "spill");
        if (lane >= 0) {
            assertThat(gone[lane])
                    .as("frame %s of lane %s spilled, which nobody reads any more", sequence, lane)
                    .isFalse();
            assertThat(sequence)
                    .as("spilled frame of lane %s its reader took already", lane)
                    .isGreaterThanOrEqualTo(unicastTaken[lane]);
            return;
        }
        int needed = Integer.MAX_VALUE;
        for (int s = 0; s < n; s++) {
            if (!gone[s]) {
                needed = Math.min(needed, broadcastTaken[s]);
            }
        }
        assertThat(sequence)
                .as("spilled broadcast frame every reader still reading took already")
                .isGreaterThanOrEqualTo(needed);
    }

    private void onDiskOnce(int lane, int sequence, String file) {
        long key = ((long) lane << 32) | (sequence & 0xFFFFFFFFL);
        assertThat(framesOnDisk.add(key))
                .as("frame %s of lane %s on disk twice (now in the %s file)", sequence, lane, file)
                .isTrue();
    }

    // ---- the end ----

    private void readEverythingToTheEnd() throws IOException {
        if (rig.writer.isOpen()) {
            finish();
        }
        rig.runIo();
        check();
        for (int s = 0; s < n; s++) {
            attach(s); // a selective one read before must fail, and stays detached
            TestReader reader = readers[s];
            if (reader == null) {
                continue;
            }
            assertThat(read(s, Integer.MAX_VALUE)).as("subpartition %s", s).isEqualTo(Where.END);
            ShuffleHarness.assertRecords(
                    reader.records, expected.get(s), "subpartition " + s + " at the end");
            check();
        }
        if (mode == PartitionKind.HYBRID_FULL) {
            for (int s = 0; s < n; s++) {
                ShuffleHarness.assertRecords(
                        diskRecords.get(s), expected.get(s), "data file, subpartition " + s);
            }
        }
    }

    /** Row 23: released with readers attached and the writer perhaps still open. */
    private void releaseEarly() throws IOException {
        note("release early");
        cover("early releases", 1);
        closeFiles();
        rig.partition.release();
        released = true;
        rig.checkAccounting();
        for (int s = 0; s < n; s++) {
            TestReader reader = readers[s];
            if (reader != null) {
                assertThatThrownBy(() -> reader.read(Integer.MAX_VALUE))
                        .as("a reader of a released partition")
                        .isInstanceOf(PartitionLostException.class)
                        .hasMessageContaining("released");
                reader.detach(false);
                readers[s] = null;
            }
        }
        if (rig.writer.isOpen()) {
            if (random.nextBoolean()) {
                note("the producer writes on");
                assertThatThrownBy(
                                () -> {
                                    rig.writer.emit(ByteBuffer.wrap(record()), 0);
                                    rig.writer.flush();
                                })
                        .isInstanceOf(IOException.class);
            } else {
                note("the producer is abandoned");
                rig.writer.close();
            }
        }
        rig.runIo();
        checkReleased();
    }

    private void checkReleased() throws IOException {
        rig.checkAccounting();
        assertThat(rig.partition.isReleased()).isTrue();
        assertThat(rig.partition.residentPages()).isZero();
        assertThat(rig.owner.pagesInUse()).as("pages of the writer's owner").isZero();
        assertThat(rig.pool.owners())
                .extracting(OwnerStats::name)
                .as("owners once the partition is released")
                .doesNotContain(rig.owner.name());
        BufferOwner present = competitor;
        assertThat(rig.pool.pagesInUse())
                .as("pages in use: the competitor's only")
                .isEqualTo(present == null ? 0 : present.pagesInUse());
        assertThat(Files.exists(rig.dataFile)).as("data file after release").isFalse();
        assertThat(Files.exists(rig.spillFile)).as("spill file after release").isFalse();
        assertThatThrownBy(() -> rig.partition.attach(0, () -> {}))
                .isInstanceOf(PartitionLostException.class);
        if (present != null) {
            competitorLeaves(present);
        }
        PoolInvariants.check(rig.pool);
        assertThat(rig.pool.pagesInUse()).isZero();
        rig.pool.close();
    }

    void closeFiles() throws IOException {
        dataFrames.close();
        spillFrames.close();
    }

    private void note(String line) {
        if (trace.size() == TRACE) {
            trace.removeFirst();
        }
        trace.addLast("step " + step + ": " + line);
    }

    String describe() {
        return "last steps:\n  " + String.join("\n  ", trace);
    }
}
