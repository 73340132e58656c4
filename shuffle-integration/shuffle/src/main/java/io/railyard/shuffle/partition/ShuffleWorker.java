package io.railyard.shuffle.partition;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.NetworkBufferPool;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.buffer.RevocationListener;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The shuffle layer of one worker: one {@link NetworkBufferPool} for every writer, gate and the IO
 * scheduler, one directory for partition files, and one IO thread for reads.
 *
 * <p>Writers: {@link #createPartition} of one {@link PartitionKind} — sort-based (memory
 * independent of the number of subpartitions; one file), hash-based (one page and one file per
 * subpartition; the baseline), or readable while it is written (hybrid, full or selective spilling,
 * or pipelined: bounded in memory). Readers: {@link #openGate}. Creating a writer or gate whose
 * guarantee the budget cannot hold throws {@link
 * io.railyard.shuffle.buffer.InsufficientNetworkMemoryException} naming the numbers and the setting
 * to raise.
 *
 * <p>Thread-safe: tasks on any thread create writers and gates; each writer and gate is then owned
 * by its task's thread. The worker's monitor guards its lifecycle and is the outermost lock of the
 * shuffle layer (the lock order is in the {@code io.railyard.shuffle} package documentation). If
 * the IO thread dies of an uncaught error, every open gate fails with an {@link
 * IllegalStateException} naming it, and no gate opens any more.
 */
public final class ShuffleWorker implements AutoCloseable {
    private final ShuffleOptions options;
    private final Path directory;
    private final NetworkBufferPool pool;
    private final IoScheduler scheduler;
    private final AtomicLong filesCreated = new AtomicLong();
    private final LongAdder bytesWritten = new LongAdder();
    private final LongAdder bytesReadForSending = new LongAdder();
    private final LeftoverFiles leftovers = new LeftoverFiles();
    private final HybridCounters hybrid = new HybridCounters();
    private final Set<LocalInputGate> openGates = ConcurrentHashMap.newKeySet();
    private final MemoryReads.Frames frames;

    @GuardedBy("this")
    private boolean closed;

    /**
     * A worker writing under {@code directory} (created if missing), with all network memory
     * allocated now.
     *
     * @throws IllegalArgumentException if the JVM's direct memory cannot hold {@value
     *     ShuffleOptions#TOTAL_MEMORY_KEY} (the message names the sizes and {@code
     *     -XX:MaxDirectMemorySize}; see {@link
     *     NetworkBufferPool#NetworkBufferPool(ShuffleOptions)})
     */
    public ShuffleWorker(ShuffleOptions options, Path directory) throws IOException {
        this.options = options;
        this.frames = MemoryReads.Frames.of(options);
        this.directory = Files.createDirectories(directory);
        this.pool = new NetworkBufferPool(options);
        int pages = IoScheduler.pagesNeeded(options);
        BufferOwner owner =
                pool.register("read scheduler", pages, ShuffleOptions.READ_BATCH_PAGES_KEY, null);
        List<Page> staging = takePages(owner, pages);
        this.scheduler =
                new IoScheduler(options, owner, staging, "railyard-shuffle-io", this::ioThreadDied);
    }

    /**
     * The IO thread died of {@code cause}: every open gate fails (a gate opening meanwhile fails
     * itself, see {@link #openGate}). On the dying thread.
     */
    private void ioThreadDied(Throwable cause) {
        for (LocalInputGate gate : openGates) {
            gate.ioThreadDied(cause);
        }
    }

    /** The settings. */
    public ShuffleOptions options() {
        return options;
    }

    /**
     * A count that grows while the worker's pipelined and hybrid data is consumed from memory:
     * pages draining owners gave back plus bytes consumers read from resident regions. A producer
     * or a start waiting for spare pages waits while it grows ({@code PoolRoom}). Thread-safe;
     * O(1).
     */
    public long memoryConsumption() {
        return pool.drainedPages() + hybrid.readFromMemory.sum();
    }

    /** The worker's buffer pool (for observing pages per owner). */
    public NetworkBufferPool bufferPool() {
        return pool;
    }

    /**
     * A writer of partition {@code id} of {@code kind} for {@code numSubpartitions} consumers; its
     * files are named after {@code id} ({@code p17.a2.data}, ...). What each kind costs in pages
     * and files is in {@link PartitionKind}: sort-based, {@code sort-buffer-pages +
     * write-batch-pages + 1 [+ 1]} pages and one file (with few subpartitions, a page per lane and
     * as many again, 35 with the default options, it writes records straight into per-subpartition
     * frames instead of through the sort buffer; the file is the same); hash-based, one page and
     * one open file per subpartition; hybrid and pipelined, {@code sort-buffer-pages + 1 [+ 1]}
     * pages, more borrowed while memory allows, a data file now and a spill file at the first
     * spill.
     *
     * <p>The one writer type has one seam for the two ways partitions become readable: a writer of
     * a kind readable while written ({@link PartitionKind#isReadableWhileWritten()}) is a {@link
     * HybridPartitionWriter}, and its partition, {@link ResultPartitionWriter#readablePartition()},
     * is readable at once (release it when its consumers are done); a blocking kind's partition is
     * what {@link ResultPartitionWriter#finish()} returns, a {@link BlockingPartition}. The
     * partition's {@link PartitionLostException}s carry {@code id}.
     *
     * @param numSubpartitions in [1, 2^24]
     * @throws IllegalArgumentException if {@code numSubpartitions} is out of range, or a file of
     *     {@code id} exists already in this worker (ids are unique per worker)
     * @throws io.railyard.shuffle.buffer.InsufficientNetworkMemoryException if the budget cannot
     *     pledge the writer's pages
     * @throws IllegalStateException if the worker is closed
     * @throws IOException if a file cannot be created
     */
    public ResultPartitionWriter createPartition(
            PartitionId id, int numSubpartitions, PartitionKind kind) throws IOException {
        checkWriter(id, numSubpartitions);
        return switch (kind) {
            case SORT -> createSortPartition(id, numSubpartitions);
            case HASH -> createHashPartition(id, numSubpartitions);
            case HYBRID_FULL, HYBRID_SELECTIVE, PIPELINED ->
                    createHybridPartition(id, numSubpartitions, kind);
        };
    }

    /**
     * The pages a writer of {@code kind} with {@code numSubpartitions} subpartitions pledges in
     * this worker's pool when it is created ({@link #createPartition}): sort and hybrid writers a
     * fixed number, a hash writer one per subpartition. O(1).
     */
    public int writerPages(PartitionKind kind, int numSubpartitions) {
        return switch (kind) {
            case SORT -> SortFormatWriter.pagesNeeded(options);
            case HASH -> HashPartitionWriter.pagesNeeded(options, numSubpartitions);
            case HYBRID_FULL, HYBRID_SELECTIVE, PIPELINED ->
                    HybridPartitionWriter.pagesNeeded(options);
        };
    }

    private PartitionWriter createSortPartition(PartitionId id, int numSubpartitions)
            throws IOException {
        int pages = SortFormatWriter.pagesNeeded(options);
        BufferOwner owner =
                pool.register(
                        "sort writer of '" + id + "'",
                        pages,
                        ShuffleOptions.SORT_BUFFER_PAGES_KEY,
                        null);
        List<Page> taken = takePages(owner, pages);
        Path data = directory.resolve(id + ".data");
        List<Path> created = new ArrayList<>(1);
        FileChannel[] channels = new FileChannel[1];
        try {
            FileChannel dataChannel = create(data, created);
            channels[0] = dataChannel;
            return SortFormatWriter.of(
                    new SortFormatWriter.Parts(
                            id,
                            numSubpartitions,
                            options,
                            owner,
                            taken,
                            data,
                            dataChannel,
                            bytesWritten,
                            leftovers));
        } catch (IOException | RuntimeException e) {
            undo(owner, taken, channels, created, e);
            throw e;
        }
    }

    private PartitionWriter createHashPartition(PartitionId id, int numSubpartitions)
            throws IOException {
        int pages = HashPartitionWriter.pagesNeeded(options, numSubpartitions);
        BufferOwner owner =
                pool.register(
                        "hash writer of '" + id + "' (" + numSubpartitions + " subpartitions)",
                        pages,
                        "the number of subpartitions (a hash-based partition needs one page each;"
                                + " the sort-based partition does not)",
                        null);
        List<Page> taken = takePages(owner, pages);
        List<Path> created = new ArrayList<>(numSubpartitions);
        FileChannel[] files = new FileChannel[numSubpartitions];
        try {
            for (int s = 0; s < numSubpartitions; s++) {
                files[s] = create(directory.resolve(id + ".hash." + s), created);
            }
            return new HashPartitionWriter(
                    id, options, owner, taken, created, files, bytesWritten, leftovers);
        } catch (RuntimeException e) {
            undo(owner, taken, files, created, e);
            throw e;
        } catch (IOException e) {
            PartitionWriteException failure =
                    new PartitionWriteException(
                            id,
                            directory.resolve(id + ".hash." + created.size()),
                            0,
                            PartitionWriteException.openFilesHint(numSubpartitions),
                            e);
            undo(owner, taken, files, created, failure);
            throw failure;
        }
    }

    private HybridPartitionWriter createHybridPartition(
            PartitionId id, int numSubpartitions, PartitionKind kind) throws IOException {
        int pages = HybridPartitionWriter.pagesNeeded(options);
        Revocation revocation = new Revocation(kind);
        BufferOwner owner =
                pool.register(
                        "hybrid writer of '" + id + "'",
                        pages,
                        ShuffleOptions.SORT_BUFFER_PAGES_KEY,
                        revocation);
        List<Page> taken = takePages(owner, pages);
        List<Path> created = new ArrayList<>(1);
        FileChannel[] files = new FileChannel[0]; // the data file is made at its first write
        try {
            Path data = directory.resolve(id + ".data");
            if (Files.exists(data)) {
                throw new IllegalArgumentException(
                        "a partition file "
                                + data
                                + " already exists: a partition id is written once per worker");
            }
            HybridPartition partition =
                    new HybridPartition(
                            id,
                            numSubpartitions,
                            kind,
                            data,
                            directory.resolve(id + ".spill"),
                            owner,
                            scheduler::execute,
                            hybrid,
                            leftovers);
            revocation.partition = partition;
            return HybridPartitionWriter.create(
                    new HybridPartitionWriter.Parts(
                            partition,
                            options,
                            pool,
                            taken,
                            new DataFile(() -> create(data, new ArrayList<>(1))),
                            bytesWritten,
                            leftovers));
        } catch (RuntimeException e) {
            undo(owner, taken, files, created, e);
            throw e;
        }
    }

    /**
     * A gate reading {@code subpartition} of each of {@code partitions} (channel i reads
     * partitions[i]; blocking and hybrid ones may be mixed); starts reading at once. Its guarantee
     * is {@code shuffle.read.gate-pages}. It reads through a feed of its own ({@link #newFeed}),
     * O(partitions) to make; consumers of one group share one instead ({@link #openGate(String,
     * PartitionFeed, int)}).
     *
     * @throws IllegalStateException if the worker is closed, or its IO thread died
     */
    public InputGate openGate(
            String name, List<? extends ResultPartition> partitions, int subpartition) {
        return openGate(name, partitions, subpartition, options.gatePages());
    }

    /**
     * A gate as {@link #openGate(String, List, int)} opens, guaranteed {@code pages} pages (a data
     * server's reader of a remote consumer's stream takes fewer than a task's gate).
     *
     * @throws IllegalArgumentException if {@code pages} is below 1
     * @throws io.railyard.shuffle.buffer.InsufficientNetworkMemoryException if the budget cannot
     *     pledge them
     * @throws IllegalStateException if the worker is closed, or its IO thread died
     */
    public InputGate openGate(
            String name, List<? extends ResultPartition> partitions, int subpartition, int pages) {
        for (ResultPartition partition : partitions) {
            partition.checkSubpartition(subpartition);
            checkArgument(!partition.isReleased(), "partition '%s' was released", partition.name());
        }
        PartitionFeed feed = newFeed(name, partitions.size());
        for (int i = 0; i < partitions.size(); i++) {
            feed.add(i, partitions.get(i));
        }
        InputGate gate;
        try {
            gate = openGate(name, feed, true, subpartition, pages);
        } catch (PartitionLostException e) {
            feed.close();
            throw new IllegalStateException("a gate of its own feed cannot be refused", e);
        }
        // Its partitions are its own: it claims its subpartition of those read once now, so a
        // second reader of one fails at once, whoever reads first (a gate fails at its poll).
        for (ResultPartition partition : partitions) {
            if (partition instanceof HybridPartition hybrid) {
                try {
                    hybrid.claim(subpartition, feed);
                } catch (PartitionLostException lost) {
                    ((LocalInputGate) gate).fail(lost);
                    break;
                }
            }
        }
        return gate;
    }

    /**
     * A feed named {@code name} of {@code numPartitions} partitions, none joined yet: what every
     * gate of one consumer group on this worker reads ({@link #openGate(String, PartitionFeed,
     * int)}), the partitions joining it as they are registered ({@link PartitionFeed#add}). Its
     * owner closes it once no gate reads it. O(partitions).
     *
     * @throws IllegalArgumentException if {@code numPartitions} is negative
     */
    public PartitionFeed newFeed(String name, int numPartitions) {
        checkArgument(numPartitions >= 0, "partitions must be >= 0, was %s", numPartitions);
        return new PartitionFeed(name, numPartitions);
    }

    /**
     * A gate named {@code name} reading {@code subpartition} of every partition of {@code feed}
     * (channel i reads its partition i), from the feed's first entry, guaranteed {@code
     * shuffle.read.gate-pages} pages: O(1), whatever the number of partitions. Resident regions of
     * hybrid and pipelined partitions are read where they lie, on the consumer's thread; the rest
     * through this worker's IO thread.
     *
     * @throws PartitionLostException if the feed failed, or its partitions are read once and a gate
     *     of {@code subpartition} was abandoned there
     * @throws IllegalStateException if the worker is closed, its IO thread died, or another gate
     *     reads {@code subpartition} of a feed read once
     */
    public InputGate openGate(String name, PartitionFeed feed, int subpartition)
            throws PartitionLostException {
        checkArgument(subpartition >= 0, "subpartition must be >= 0, was %s", subpartition);
        return openGate(name, feed, false, subpartition, options.gatePages());
    }

    private synchronized InputGate openGate(
            String name, PartitionFeed feed, boolean ownsFeed, int subpartition, int pages)
            throws PartitionLostException {
        checkArgument(pages >= 1, "gate pages must be >= 1, was %s", pages);
        checkState(!closed, "shuffle worker closed");
        checkIoThreadAlive();
        BufferOwner owner =
                pool.register(
                        "input gate '" + name + "'", pages, ShuffleOptions.GATE_PAGES_KEY, null);
        LocalInputGate gate;
        try {
            gate =
                    new LocalInputGate(
                            name,
                            owner,
                            scheduler,
                            feed,
                            ownsFeed,
                            subpartition,
                            frames,
                            openGates::remove);
        } catch (PartitionLostException | RuntimeException e) {
            owner.close();
            throw e;
        }
        openGates.add(gate);
        gate.prefetch();
        Throwable died = scheduler.deathCause(); // after the add: ioThreadDied may have missed it
        if (died != null) {
            gate.ioThreadDied(died);
        }
        return gate;
    }

    /**
     * A reader of {@code subpartition} of {@code partition}, a finished blocking partition of this
     * worker, as a data server sends it: runs of checked frames as they lie in the file ({@link
     * SectionReader}). Its bytes count as read ({@link ShuffleStats#bytesRead()}).
     *
     * @throws IllegalArgumentException if {@code partition} is not a finished blocking partition
     *     ({@link SectionReader#reads}), or {@code subpartition} is not one of its subpartitions
     * @throws PartitionLostException if the partition was released or its index cannot be read
     */
    public SectionReader openSections(ResultPartition partition, int subpartition)
            throws PartitionLostException {
        return SectionReader.open(partition, subpartition, options, bytesReadForSending);
    }

    private void checkIoThreadAlive() {
        Throwable died = scheduler.deathCause();
        if (died != null) {
            throw new IllegalStateException(
                    "shuffle worker cannot read any more: its IO thread died of " + died, died);
        }
    }

    /** The IO thread's scheduler (tests park it to order a round). */
    IoScheduler ioScheduler() {
        return scheduler;
    }

    /**
     * What the worker did so far: files, bytes written and read, reads, pages in use, files open,
     * files it could not delete.
     */
    public ShuffleStats stats() {
        return new ShuffleStats(
                filesCreated.get(),
                bytesWritten.sum(),
                scheduler.bytesRead() + bytesReadForSending.sum(),
                scheduler.reads(),
                scheduler.channelReads(),
                scheduler.handOffs(),
                pool.pagesInUse(),
                scheduler.openFiles(),
                leftovers.count());
    }

    /** The hybrid partitions' counters, summed over this worker's. O(1); allocates the record. */
    public HybridStats hybridStats() {
        return new HybridStats(
                hybrid.produced.sum(),
                hybrid.writtenToDisk.sum(),
                hybrid.spilled.sum(),
                hybrid.readFromMemory.sum(),
                hybrid.readFromDisk.sum(),
                hybrid.resident(),
                hybrid.peakResident());
    }

    /**
     * Fails and closes every open gate (their queued reads are cancelled and queued pages returned;
     * a consumer's next poll throws {@link IllegalStateException}: the worker closed), stops the IO
     * thread, closes its files, tries once more to delete the partition files that failed or
     * abandoned writers could not delete, and frees the network memory. Writers belong to their
     * tasks' threads and should be finished or closed first; buffers a consumer still holds are a
     * leak. Idempotent.
     *
     * @throws IOException naming every partition file that still cannot be deleted (each failure
     *     attached as suppressed); the worker is closed nevertheless
     * @throws IllegalStateException naming every owner still holding pages (a leak); a leftover
     *     file's IOException is then suppressed in it
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        for (LocalInputGate gate : List.copyOf(openGates)) {
            gate.workerClosed(); // fails it, cancels its queued reads, returns its queued pages
        }
        scheduler.close();
        IOException leftover = leftovers.retryAll();
        try {
            pool.close();
        } catch (IllegalStateException leak) {
            if (leftover != null) {
                leak.addSuppressed(leftover);
            }
            throw leak;
        }
        if (leftover != null) {
            throw leftover;
        }
    }

    /**
     * Counters of one worker.
     *
     * @param filesCreated partition files created so far
     * @param bytesWritten bytes written to partition data files (frames, after compression)
     * @param bytesRead bytes read from partition files: by the IO thread, and by data servers
     *     sending sections ({@link #openSections})
     * @param reads read calls of the IO thread
     * @param channelReads channel sections those calls served (above {@code reads} when adjacent
     *     sections of several consumers were merged into one read)
     * @param handOffs times the IO thread handed a gate the buffers it decoded for it in a round
     *     (each in one lock and at most one wake-up of the consumer)
     * @param pagesInUse network pages held now
     * @param filesOpenForRead files the IO thread holds open now
     * @param filesNotDeleted partition files a failed or abandoned writer could not delete, not
     *     deleted since; {@link #close()} retries them and names those still there
     */
    public record ShuffleStats(
            long filesCreated,
            long bytesWritten,
            long bytesRead,
            long reads,
            long channelReads,
            long handOffs,
            int pagesInUse,
            int filesOpenForRead,
            int filesNotDeleted) {}

    /** Asks a hybrid partition's IO-thread spill when the pool wants borrowed pages back. */
    private static final class Revocation implements RevocationListener {
        private final boolean pipelined;
        private volatile @Nullable HybridPartition partition;

        Revocation(PartitionKind kind) {
            this.pipelined = kind == PartitionKind.PIPELINED;
        }

        /** A pipelined partition's regions go as its consumers read them. */
        @Override
        public boolean drains() {
            return pipelined;
        }

        @Override
        public void revoke(BufferOwner owner, int pages) {
            HybridPartition target = partition;
            if (target != null) {
                target.requestSpill(pages);
            }
        }
    }

    private void checkWriter(PartitionId id, int numSubpartitions) {
        synchronized (this) {
            checkState(!closed, "shuffle worker closed");
        }
        checkArgument(
                numSubpartitions >= 1 && numSubpartitions <= (1 << 24),
                "numSubpartitions of '%s' must be in [1, 2^24], was %s",
                id,
                numSubpartitions);
    }

    private static List<Page> takePages(BufferOwner owner, int pages) throws IOException {
        try {
            return new ArrayList<>(owner.requestBlocking(pages));
        } catch (InterruptedException e) {
            owner.close();
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException(
                    "interrupted while waiting for " + pages + " pages for " + owner.name());
        }
    }

    private FileChannel create(Path path, List<Path> created) throws IOException {
        try {
            FileChannel channel =
                    FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            created.add(path);
            filesCreated.incrementAndGet();
            return channel;
        } catch (FileAlreadyExistsException e) {
            throw new IllegalArgumentException(
                    "a partition file "
                            + path
                            + " already exists: a partition id is written once per worker",
                    e);
        }
    }

    /**
     * Undoes a writer that could not be created while {@code propagating} is thrown: closes the
     * files opened so far and deletes those created (a failure to close or delete is added to
     * {@code propagating} as suppressed; a file that cannot be deleted is also recorded for {@link
     * #close()} to retry), and returns the pages and the guarantee.
     */
    private void undo(
            BufferOwner owner,
            List<Page> pages,
            @Nullable FileChannel[] files,
            List<Path> created,
            Throwable propagating) {
        for (FileChannel file : files) {
            if (file != null) {
                try {
                    file.close();
                } catch (IOException e) {
                    propagating.addSuppressed(e);
                }
            }
        }
        leftovers.deleteAll(created, propagating);
        for (Page page : pages) {
            owner.recycle(page);
        }
        owner.close();
    }
}
