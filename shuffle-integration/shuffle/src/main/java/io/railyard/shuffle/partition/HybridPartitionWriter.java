package io.railyard.shuffle.partition;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.NetworkBufferPool;
import io.railyard.shuffle.buffer.Page;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The producer's side of a {@link HybridPartition}: records become sealed regions that consumers
 * can read at once. Two ways to seal, chosen by the number of subpartitions when the writer is
 * created ({@link #create}):
 *
 * <ul>
 *   <li>few subpartitions ({@link #lanesFit}): every lane (each subpartition and the broadcast
 *       lane) writes its records straight into frames in a page of its own, and a full page is
 *       published at once as a region of one section (a record is copied once; see {@link
 *       LaneHybridWriter});
 *   <li>otherwise: records are collected in a sort buffer (memory independent of the number of
 *       subpartitions) and drained into a region when the buffer is full, on {@link #flush()}, and
 *       at {@link #finish()} (see {@link SortHybridWriter}).
 * </ul>
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Memory: the guarantee is {@code sort-buffer-pages + 1 [+ 1 LZ4 scratch]} pages. A region
 *       stays in memory (<em>resident</em>) in pages borrowed beyond it while the pool's pages in
 *       use stay below {@code shuffle.hybrid.memory-fraction} of all pages (and, if set, enough
 *       consumers are attached); otherwise it is written to the data file and lives on disk only.
 *       Above the memory fraction the writer also asks the IO thread to move {@code
 *       shuffle.hybrid.spill-fraction} of the partition's resident pages out of memory.
 *   <li>Full mode writes every resident region through to the data file right after it is published
 *       (consumers read it from memory meanwhile).
 *   <li>A finished writer returns its working pages and lowers its guarantee to 0; the partition
 *       keeps only borrowed pages, which the pool can ask back.
 * </ul>
 *
 * <p>Not thread-safe: owned by the producing task's thread.
 */
public abstract sealed class HybridPartitionWriter extends AbstractPartitionWriter<HybridPartition>
        permits SortHybridWriter, LaneHybridWriter {
    private final HybridPartition partition;
    private final NetworkBufferPool pool;
    private final BufferOwner owner;
    private final DataFile data;
    private final int memoryLimitPages;
    private final double spillFraction;
    private final int attachedForResidence;
    private final int pipelinedBound;
    private final @Nullable PoolRoom poolRoom; // pipelined: when to pause for the pool
    private boolean roomChecked; // pipelined: resident pages did not grow since the last check
    private long dataEnd;

    /**
     * The parts every hybrid writer is built from (only {@link ShuffleWorker} and tests build one).
     */
    record Parts(
            HybridPartition partition,
            ShuffleOptions options,
            NetworkBufferPool pool,
            List<Page> pages,
            DataFile data,
            LongAdder workerBytesWritten,
            LeftoverFiles leftovers) {}

    HybridPartitionWriter(Parts parts) {
        super(
                parts.partition().id(),
                parts.partition().kind(),
                parts.partition().numSubpartitions(),
                parts.partition().owner(),
                parts.pages(),
                parts.workerBytesWritten(),
                parts.leftovers());
        this.partition = parts.partition();
        this.pool = parts.pool();
        this.owner = partition.owner();
        this.data = parts.data();
        ShuffleOptions options = parts.options();
        this.memoryLimitPages =
                (int) Math.floor(options.hybridMemoryFraction() * pool.totalPages());
        this.spillFraction = options.hybridSpillFraction();
        this.pipelinedBound = pipelinedBoundPages(options);
        this.poolRoom =
                partition.kind() == PartitionKind.PIPELINED
                        ? new PoolRoom(pool, partition::workerBytesReadFromMemory)
                        : null;
        this.attachedForResidence =
                (int)
                        Math.ceil(
                                options.hybridResidentAttachedFraction()
                                        * partition.numSubpartitions());
    }

    /**
     * The writer for {@code parts}: straight into lane pages when {@link #lanesFit} and {@code
     * lanes}, else through the sort buffer.
     */
    static HybridPartitionWriter create(Parts parts, boolean lanes) {
        return lanes && lanesFit(parts.options(), parts.partition().numSubpartitions())
                ? new LaneHybridWriter(parts)
                : new SortHybridWriter(parts);
    }

    /** The writer for {@code parts}, as the worker chooses it. */
    static HybridPartitionWriter create(Parts parts) {
        return create(parts, preferLanes(parts.options(), parts.partition().numSubpartitions()));
    }

    /** Whether a lane writer can serve {@code numSubpartitions}: a sort page for every lane. */
    static boolean lanesFit(ShuffleOptions options, int numSubpartitions) {
        return numSubpartitions + 1L <= options.sortBufferPages();
    }

    /**
     * Whether the worker writes {@code numSubpartitions} through lanes: when every lane has a page
     * and as many are left (as {@link LanePartitionWriter#fits} decides for blocking partitions).
     * Beyond that a region per page would make each reader step over many other lanes' regions.
     */
    static boolean preferLanes(ShuffleOptions options, int numSubpartitions) {
        return 2 * (numSubpartitions + 1L) <= options.sortBufferPages();
    }

    /**
     * The unconsumed pages a {@link PartitionKind#PIPELINED pipelined} partition holds before its
     * producer waits for its consumers: {@code sort-buffer-pages} (beyond the writer's own pages,
     * and a region being sealed).
     */
    static int pipelinedBoundPages(ShuffleOptions options) {
        return options.sortBufferPages();
    }

    /** Pages a writer holds: its guarantee. */
    static int pagesNeeded(ShuffleOptions options) {
        return options.sortBufferPages()
                + 1
                + (options.compression() == ShuffleOptions.Compression.NONE ? 0 : 1);
    }

    /** The partition, readable from now on (consumers may attach before any record). */
    public final HybridPartition partition() {
        return partition;
    }

    /** The partition, readable from now on: {@link #partition()}. */
    @Override
    public final Optional<ResultPartition> readablePartition() {
        return Optional.of(partition);
    }

    /**
     * Seals what is buffered as regions now, so that consumers can read it (a producer that wants
     * low latency calls this periodically). O(buffered bytes + subpartitions).
     *
     * @throws PartitionWriteException if writing failed (the partition is failed and lost)
     */
    public final void flush() throws IOException {
        guarded(this::sealBuffered);
    }

    /** Seals everything written so far into published regions. */
    abstract void sealBuffered() throws IOException;

    /** Gives back pages the writer holds beyond its working pages (it is being discarded). */
    abstract void discardWorking();

    @Override
    final HybridPartition complete() throws IOException {
        sealBuffered();
        data.close();
        partition.finishProducing();
        return partition;
    }

    @Override
    final List<Path> files() {
        return partition.files();
    }

    @Override
    final Path fileInProgress() {
        return partition.dataFile();
    }

    @Override
    final void closeFiles() throws IOException {
        data.close();
    }

    @Override
    final void discarding(@Nullable Throwable propagating) {
        discardWorking();
        partition.writerFailed(
                propagating == null
                        ? "the producer abandoned it before finishing"
                        : "the producer failed: " + propagating.getMessage(),
                propagating,
                propagating);
    }

    @Override
    final void ownerDone(BufferOwner writerOwner, boolean finished) {
        if (finished) {
            writerOwner.lowerGuarantee(0);
        }
        partition.writerDone();
    }

    // ---- for the two ways to seal ----

    final BufferOwner owner() {
        return owner;
    }

    /** The data file's length so far: where the next region written to it starts. */
    final long dataEnd() {
        return dataEnd;
    }

    /** Whether a new region may stay in memory: enough consumers are attached. */
    final boolean mayStayResident() {
        return partition.attachedReaders() >= attachedForResidence;
    }

    /**
     * Publishes a region held by {@code pages} (page {@code i} holding stream bytes {@code
     * [starts[i], starts[i + 1])}) and, in full mode, writes it through to the data file. The pages
     * go to the partition (or back to the pool if it is lost).
     */
    final void publishResident(boolean broadcast, int[] sectionStart, Page[] pages, int[] starts)
            throws IOException {
        boolean full = partition.kind() == PartitionKind.HYBRID_FULL;
        HybridRegion region;
        sealed();
        try {
            region = partition.publishResident(broadcast, sectionStart, pages, starts, full);
        } catch (PartitionLostException lost) {
            for (Page page : pages) {
                owner.recycle(page);
            }
            throw lost;
        }
        if (full) {
            long at = dataEnd;
            ByteBuffer[] views = region.views(0, region.length());
            long written = 0;
            while (written < region.length()) {
                long now = data.channel().write(views);
                written += now;
                addWritten(now); // per call: a failure after a short write names every byte
            }
            dataEnd += written;
            partition.written(region, at);
        }
    }

    /** Publishes a region written to the data file at {@code fileOffset} only. */
    final void publishOnDisk(boolean broadcast, int[] sectionStart, long fileOffset)
            throws PartitionLostException {
        sealed();
        partition.publishOnDisk(broadcast, sectionStart, fileOffset);
    }

    /** Appends {@code page[position, limit)} to the data file. */
    final void writeData(ByteBuffer page) throws IOException {
        long written = 0;
        while (page.hasRemaining()) {
            int now = data.channel().write(page);
            written += now;
            addWritten(now); // per call: a failure after a short write names every byte
        }
        dataEnd += written;
    }

    /**
     * Whether the producer should pause before its next record; never for the hybrid kinds. A
     * {@link PartitionKind#PIPELINED pipelined} producer pauses at its partition's bound of
     * unconsumed pages ({@link #pipelinedBoundPages}; see {@link HybridPartition#roomWaitNanos}),
     * and before its buffer holds more than the worker's pool could lend it as a resident region
     * while pages lent to pipelined partitions would cover it once consumed ({@link PoolRoom}).
     * Checked between records: a producer that goes on seals at most the region its next record
     * completes beyond it. O(1); the partition's lock is taken only after a region was published
     * and while paused, the pool's once per page buffered.
     */
    @Override
    public final long roomWaitNanos(Runnable waker) {
        if (poolRoom == null) {
            return 0;
        }
        if (!roomChecked) {
            long pause = partition.roomWaitNanos(pipelinedBound, waker);
            if (pause > 0) {
                return pause;
            }
            roomChecked = true; // resident pages only shrink until this writer publishes again
        }
        return poolRoom.pauseNanos(pagesToSeal(), waker);
    }

    /** Pages sealing what is buffered now would borrow (0: the writer does not pause for them). */
    abstract int pagesToSeal();

    private void sealed() {
        roomChecked = false;
        if (poolRoom != null) {
            poolRoom.sealed();
        }
    }

    /**
     * A page beyond the guarantee, or null: when the pool cannot lend, or, for the hybrid kinds, is
     * at the memory fraction (the IO thread is then asked to free some of this partition's resident
     * pages; a pipelined producer pauses instead, {@link #roomWaitNanos}). Never waits.
     */
    final @Nullable Page borrow() {
        if (poolRoom == null && pool.pagesInUse() >= memoryLimitPages) {
            int resident = partition.residentPages();
            if (resident > 0) {
                partition.requestSpill((int) Math.ceil(spillFraction * resident));
            }
            return null;
        }
        return owner.tryRequest();
    }
}
