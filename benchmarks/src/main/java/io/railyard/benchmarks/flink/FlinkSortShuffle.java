package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.Delivered;
import io.railyard.benchmarks.procedures.ShuffleRecords;
import io.railyard.benchmarks.procedures.ShuffleTasks;
import io.railyard.benchmarks.procedures.ShuffleThroughput;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Failure;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Settings;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Throughput;
import io.railyard.shuffle.ShuffleDirectory;
import io.railyard.shuffle.ShuffleOptions;
import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.Stream;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions.CompressionCodec;
import org.apache.flink.runtime.io.disk.BatchShuffleReadBufferPool;
import org.apache.flink.runtime.io.disk.FileChannelManagerImpl;
import org.apache.flink.runtime.io.network.buffer.BufferCompressor;
import org.apache.flink.runtime.io.network.buffer.BufferDecompressor;
import org.apache.flink.runtime.io.network.buffer.BufferPool;
import org.apache.flink.runtime.io.network.buffer.NetworkBufferPool;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionManager;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.SortMergeResultPartition;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.jspecify.annotations.Nullable;

/**
 * Flink 2.3's sort-merge blocking shuffle ({@code SortMergeResultPartition}: its write path, its
 * {@code BatchShuffleReadBufferPool}, its read scheduler and subpartition views) driven in this
 * process exactly as {@link ShuffleThroughput} drives Railyard's sort partitions: the {@code
 * flink-sort} row of {@code shuffle --with-flink} and {@code report --with-flink}.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li><b>The same work.</b> P producers, {@code slots} at a time, each write {@link
 *       ShuffleRecords#write}'s records (same generator, record size, share and round-robin targets
 *       over P subpartitions, same pace), framed as Flink's {@code RecordWriter} frames a record: a
 *       4-byte length and the bytes, copied into one heap buffer, handed to {@code emitRecord}.
 *       Then P consumers, {@code slots} at a time, each read subpartition {@code s} of all P
 *       partitions to its end of partition ({@link FlinkSortConsumer}) and parse the records back
 *       ({@link SpanningRecordDeserializer}). Producers report what they wrote, consumers what they
 *       read; the two must be equal ({@link Delivered#checkAllRead}), as on Railyard's side.
 *   <li><b>The same clocks and bytes.</b> Writing runs from the first producer's start (which
 *       creates its buffer pool and partition) to the last one's end ({@code finish}, {@code
 *       close}); reading from the first consumer's start (which creates its views) to the last
 *       one's end. MB/s = record bytes (no framing) / 10^6 per second, written bytes over the write
 *       time and read bytes over the read time ({@link ShuffleThroughput#mbPerSecond}). The pools
 *       are allocated before the clock starts, as Railyard's worker allocates its pool up front:
 *       {@code NetworkBufferPool} when it is built, the read pool by {@code initialize()}.
 *   <li><b>The same memory.</b> {@link FlinkSortMemory}: Railyard's budget and page size, each
 *       writer's pool the pages of a Railyard sort writer, the read pool the rest.
 *   <li><b>Flink's defaults otherwise.</b> The read IO executor has the threads Flink 2.3 gives a
 *       TaskManager of {@code slots} slots ({@link #readIoThreads}). Compression is Flink's {@code
 *       BufferCompressor} with LZ4 ({@code taskmanager.network.compression.codec}) when Railyard
 *       compresses with LZ4: one compressor per partition and one decompressor per consumer, as
 *       Flink's {@code ResultPartitionFactory} and {@code SingleInputGateFactory} make them.
 *   <li><b>Clean-up.</b> Every partition is released (its files deleted once no reader reads), the
 *       IO threads stopped, the pools destroyed, the {@code FileChannelManager} closed (its
 *       directory deleted), inside a marked run directory ({@link ShuffleDirectory}) that is
 *       deleted at the end and on Ctrl-C. After a measured run every buffer must be back in its
 *       pool, else the run fails (a leak).
 * </ul>
 *
 * <p>Not thread-safe: one instance per run, driven by the calling thread; producers and consumers
 * run on {@code slots} threads of its own, Flink's reads on its IO threads.
 */
public final class FlinkSortShuffle implements AutoCloseable {
    /** The system's name in tables and JSON. */
    public static final String KEY = "flink-sort";

    private final Settings settings;
    private final FlinkSortMemory memory;
    private final @Nullable CompressionCodec codec;
    private final byte[] source;
    private final ExecutorService slots;
    private final ScheduledExecutorService readIo;
    private final FileChannelManagerImpl files;
    private final NetworkBufferPool networkPool;
    private final BatchShuffleReadBufferPool readPool;
    private final ResultPartitionManager partitionManager = new ResultPartitionManager();
    private final AtomicReferenceArray<SortMergeResultPartition> partitions;
    private long filesCreated;
    private boolean measured;

    private FlinkSortShuffle(Path directory, Settings settings, FlinkSortMemory memory) {
        this.settings = settings;
        this.memory = memory;
        this.codec =
                settings.options().compression() == ShuffleOptions.Compression.LZ4
                        ? CompressionCodec.LZ4
                        : null;
        this.source = ShuffleRecords.source(settings.recordBytes());
        this.partitions = new AtomicReferenceArray<>(settings.parallelism());
        this.files =
                new FileChannelManagerImpl(new String[] {directory.toString()}, "sort-shuffle");
        this.networkPool = new NetworkBufferPool(memory.networkBuffers(), memory.pageSizeBytes());
        this.readPool = new BatchShuffleReadBufferPool(memory.readBytes(), memory.pageSizeBytes());
        this.slots =
                Executors.newFixedThreadPool(settings.slots(), ShuffleTasks.daemon(KEY + "-slot-"));
        this.readIo =
                Executors.newScheduledThreadPool(
                        readIoThreads(readPool, settings.slots()),
                        ShuffleTasks.daemon(KEY + "-blocking-shuffle-io-"));
    }

    /** What the {@value #KEY} row measures, e.g. {@code Flink 2.3.0 SortMergeResultPartition}. */
    public static String system() {
        return "Flink " + EnvironmentInformation.getVersion() + " SortMergeResultPartition";
    }

    /**
     * The read IO threads Flink 2.3 gives a TaskManager of {@code slots} slots and one temporary
     * directory: {@code NettyShuffleServiceFactory.createNettyShuffleEnvironment} starts {@code
     * Executors.newScheduledThreadPool(max(1, min(readPool.getMaxConcurrentRequests(),
     * max(numberOfSlots, tmpDirs.length))))} ("blocking-shuffle-io"), where {@code
     * getMaxConcurrentRequests()} is the pool's buffers over the buffers of one 4 MiB request
     * ({@code BatchShuffleReadBufferPool.NUM_BYTES_PER_REQUEST}). Read from the 2.3.0 jar's
     * bytecode ({@code javap -c}). At 64 MiB and 8 slots: 8. O(1).
     */
    static int readIoThreads(BatchShuffleReadBufferPool readPool, int slots) {
        int tmpDirs = 1;
        return Math.max(1, Math.min(readPool.getMaxConcurrentRequests(), Math.max(slots, tmpDirs)));
    }

    /**
     * Runs Flink's side for {@code settings} in a new marked directory under {@code
     * settings.directory()}, deleted afterwards, after an untimed round of {@link
     * Settings#warmup()} as Railyard's systems have. Without Flink's minimum read pool beside the
     * writers ({@link FlinkSortMemory}) nothing runs and the result says so ({@link
     * Failure.InsufficientMemory}, with the memory it needs); an I/O failure is recorded in the
     * result ({@link Failure.IoError}), with every file deleted.
     *
     * @throws IllegalStateException if the consumers did not read exactly the records written, or a
     *     buffer was not returned (a bug)
     */
    public static Throughput run(Settings settings) {
        runOnce(settings.warmup()); // a failure shows again in the measured run
        return runOnce(settings);
    }

    private static Throughput runOnce(Settings settings) {
        FlinkSortMemory memory = FlinkSortMemory.of(settings);
        if (!memory.fits()) {
            return new Throughput.Failed(
                    new Failure.InsufficientMemory(memory.needs(), memory.requiredBytes()), 0);
        }
        try (ShuffleDirectory directory =
                ShuffleDirectory.create(
                                settings.directory(), ShuffleThroughput.RUN_DIRECTORY_PREFIX)
                        .deleteOnExit()) {
            try (FlinkSortShuffle shuffle =
                    new FlinkSortShuffle(directory.path(), settings, memory)) {
                return shuffle.execute();
            }
        } catch (IOException e) {
            return ShuffleThroughput.ioError(0, KEY + ": " + ShuffleThroughput.describe(e));
        }
    }

    private Throughput execute() throws IOException {
        readPool.initialize();
        long start = System.nanoTime();
        Delivered written = produce();
        double write = ShuffleThroughput.mbPerSecond(settings.bytes(), System.nanoTime() - start);
        filesCreated = countFiles();
        start = System.nanoTime();
        Delivered read = consume();
        double readRate = ShuffleThroughput.mbPerSecond(read.bytes(), System.nanoTime() - start);
        Delivered.checkAllRead(KEY, read, written);
        measured = true;
        return Throughput.Measured.shuffle(write, readRate, filesCreated, read);
    }

    private Delivered produce() throws IOException {
        int p = settings.parallelism();
        List<Future<Delivered>> futures = new ArrayList<>(p);
        for (int producer = 0; producer < p; producer++) {
            int index = producer;
            futures.add(slots.submit(() -> produceOne(index)));
        }
        Delivered written = Delivered.NONE;
        for (Delivered one : ShuffleTasks.await(futures)) {
            written = written.plus(one);
        }
        return written;
    }

    /** Producer {@code producer}: its pool and partition, its records, finish; what it wrote. */
    private Delivered produceOne(int producer) throws IOException {
        int p = settings.parallelism();
        String name = ShuffleRecords.producerName(producer);
        BufferPool pool = networkPool.createBufferPool(memory.writerPages(), memory.writerPages());
        SortMergeResultPartition partition =
                new SortMergeResultPartition(
                        name,
                        producer,
                        new ResultPartitionID(),
                        ResultPartitionType.BLOCKING,
                        p,
                        p,
                        readPool,
                        readIo,
                        partitionManager,
                        files.createChannel().getPath(),
                        codec == null ? null : new BufferCompressor(memory.pageSizeBytes(), codec),
                        () -> pool);
        partitions.set(producer, partition);
        try {
            partition.setup();
            Delivered written =
                    ShuffleRecords.write(
                            new FramedRecords(partition, settings.recordBytes()),
                            name,
                            p,
                            ShuffleRecords.share(settings.bytes(), p, producer),
                            settings.recordBytes(),
                            source,
                            settings.producerPace());
            partition.finish();
            return written;
        } finally {
            partition.close(); // returns the writer's buffers and destroys its pool
            pool.lazyDestroy(); // in case setup failed before the partition took the pool
        }
    }

    private Delivered consume() throws IOException {
        int p = settings.parallelism();
        List<SortMergeResultPartition> all = new ArrayList<>(p);
        for (int producer = 0; producer < p; producer++) {
            all.add(partitions.get(producer));
        }
        List<Future<Delivered>> futures = new ArrayList<>(p);
        for (int consumer = 0; consumer < p; consumer++) {
            int subpartition = consumer;
            futures.add(
                    slots.submit(
                            () ->
                                    FlinkSortConsumer.read(
                                            all,
                                            subpartition,
                                            memory.pageSizeBytes(),
                                            codec == null
                                                    ? null
                                                    : new BufferDecompressor(
                                                            memory.pageSizeBytes(), codec))));
        }
        Delivered read = Delivered.NONE;
        for (Delivered one : ShuffleTasks.await(futures)) {
            read = read.plus(one);
        }
        return read;
    }

    /** Files in the {@code FileChannelManager}'s directories: each partition's data and index. */
    private long countFiles() throws IOException {
        long count = 0;
        for (File directory : files.getPaths()) {
            try (Stream<Path> listed = Files.list(directory.toPath())) {
                count += listed.count();
            }
        }
        return count;
    }

    /**
     * Stops the tasks, releases every partition, stops the IO threads, checks (after a measured
     * run) that every buffer is back, destroys the pools and deletes the files.
     *
     * @throws IOException if the files cannot be deleted, or this thread is interrupted
     * @throws IllegalStateException if a buffer was not returned after a measured run (a bug)
     */
    @Override
    public void close() throws IOException {
        ShuffleTasks.stop(slots);
        for (int producer = 0; producer < partitions.length(); producer++) {
            SortMergeResultPartition partition = partitions.get(producer);
            if (partition != null) {
                partition.release();
            }
        }
        partitionManager.shutdown();
        readIo.shutdown();
        try {
            if (!readIo.awaitTermination(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("Flink's read IO threads did not stop in 5 min");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while Flink's IO threads stopped");
        }
        if (measured) {
            checkEveryBufferBack();
        }
        readPool.destroy();
        networkPool.destroyAllBufferPools();
        networkPool.destroy();
        try {
            files.close();
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("deleting Flink's shuffle files: " + e, e);
        }
    }

    private void checkEveryBufferBack() {
        int network = networkPool.getNumberOfAvailableMemorySegments();
        int read = readPool.getAvailableBuffers();
        if (network != memory.networkBuffers() || read != readPool.getNumTotalBuffers()) {
            throw new IllegalStateException(
                    String.format(
                            Locale.ROOT,
                            "%s: buffers not returned: %d of %d network buffers and %d of %d read"
                                    + " buffers are back",
                            KEY,
                            network,
                            memory.networkBuffers(),
                            read,
                            readPool.getNumTotalBuffers()));
        }
    }

    /**
     * A producer's records, framed as Flink's {@code RecordWriter} frames them (a 4-byte big-endian
     * length, then the bytes, in one heap buffer) and emitted to the partition. Not thread-safe:
     * one per producer; no allocation per record.
     */
    private static final class FramedRecords implements ShuffleRecords.Target {
        private final SortMergeResultPartition partition;
        private final ByteBuffer frame;

        FramedRecords(SortMergeResultPartition partition, int recordBytes) {
            this.partition = partition;
            this.frame = ByteBuffer.allocate(SpanningRecordDeserializer.LENGTH_BYTES + recordBytes);
        }

        @Override
        public void emit(ByteBuffer record, int subpartition) throws IOException {
            frame.clear();
            frame.putInt(record.remaining()).put(record).flip();
            partition.emitRecord(frame, subpartition);
        }
    }
}
