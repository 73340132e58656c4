package io.railyard.benchmarks;

import static com.google.common.base.Preconditions.checkArgument;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.BlockingPartition;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionWriter;
import io.railyard.shuffle.partition.RecordDecoder;
import io.railyard.shuffle.partition.ShuffleWorker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The shuffle throughput measurement: P producers write {@code bytes} of records through sort-based
 * or hash-based partitions (P subpartitions each), then P consumers read them, {@code slots} tasks
 * at a time in waves, all in one process with one {@link ShuffleWorker}; beside it, the machine's
 * sequential limit: one file of the same size written and read with the same page size, in the same
 * run. Reports MB/s (10^6 bytes of records per second) and files created.
 *
 * <p>Consumers check what they read: the total record bytes must equal what was written, else the
 * run fails. Plain class: {@code ShuffleThroughputTest} runs it at a tiny scale in CI.
 */
public final class ShuffleThroughput {
    /** Partition kinds. */
    public enum Kind {
        /** Sort-based: one data file and one index per producer. */
        SORT,
        /** Hash-based: one file per subpartition. */
        HASH
    }

    /**
     * What to run.
     *
     * @param parallelism producers and consumers (P × P subpartitions)
     * @param bytes record bytes written in total
     * @param recordBytes bytes per record
     * @param slots tasks running at once (a worker's slots)
     * @param options the shuffle settings (network memory per worker)
     * @param directory where files go (a fresh sub-directory per run, deleted after)
     */
    public record Settings(
            int parallelism,
            long bytes,
            int recordBytes,
            int slots,
            ShuffleOptions options,
            Path directory) {
        /** Checks the numbers. */
        public Settings {
            checkArgument(parallelism >= 1, "parallelism must be >= 1, was %s", parallelism);
            checkArgument(bytes >= 1, "bytes must be >= 1, was %s", bytes);
            checkArgument(
                    recordBytes >= 1 && recordBytes <= (1 << 20),
                    "recordBytes must be in [1, 2^20], was %s",
                    recordBytes);
            checkArgument(slots >= 1 && slots <= 256, "slots must be in [1, 256], was %s", slots);
        }
    }

    /**
     * One measured system.
     *
     * @param writeMbPerSecond records written per second (10^6 bytes), or NaN if it failed
     * @param readMbPerSecond records read per second, or NaN if it failed
     * @param files files created
     * @param error why it failed, or null
     */
    public record Throughput(
            double writeMbPerSecond, double readMbPerSecond, long files, @Nullable String error) {
        static Throughput failed(long files, String error) {
            return new Throughput(Double.NaN, Double.NaN, files, error);
        }
    }

    /**
     * The result of one run.
     *
     * @param parallelism producers = consumers
     * @param bytes record bytes written and read
     * @param recordBytes bytes per record
     * @param networkMemoryBytes network memory of the worker
     * @param limit the sequential file limit through the page cache
     * @param deviceLimit the same with direct IO (the device itself), or an error
     * @param sort sort-based partitions
     * @param hash hash-based partitions
     */
    public record Result(
            int parallelism,
            long bytes,
            int recordBytes,
            long networkMemoryBytes,
            Throughput limit,
            Throughput deviceLimit,
            Throughput sort,
            Throughput hash) {}

    /** Steps reported to a progress listener by {@link #measure}. */
    public static final int STEPS = 3;

    /** Bytes per record unless told otherwise. */
    public static final int DEFAULT_RECORD_BYTES = 256;

    /** Tasks running at once unless told otherwise: a worker's slots. */
    public static final int DEFAULT_SLOTS = 8;

    private static final int LIMIT_ROUNDS = 3;

    private ShuffleThroughput() {}

    /** Measures the limit, sort and hash in that order; {@code progress} hears each step. */
    public static Result measure(Settings settings, Consumer<String> progress) throws IOException {
        Throughput limit = limit(settings);
        Throughput device = deviceLimit(settings);
        progress.accept("shuffle: sequential limits");
        progress.accept("shuffle: sort-based");
        Throughput sort = run(settings, Kind.SORT);
        progress.accept("shuffle: hash-based");
        Throughput hash = run(settings, Kind.HASH);
        return new Result(
                settings.parallelism(),
                settings.bytes(),
                settings.recordBytes(),
                settings.options().totalMemoryBytes(),
                limit,
                device,
                sort,
                hash);
    }

    /**
     * The machine's sequential limit: the best of three rounds of one large file written then read
     * sequentially, a page per call, through the page cache.
     */
    static Throughput limit(Settings settings) throws IOException {
        return bestOf(LIMIT_ROUNDS, settings, false, settings.bytes());
    }

    /**
     * The device's sequential limit: the same with {@code O_DIRECT} (no page cache), best of two
     * rounds over at most 512 MiB; an error if the file system refuses direct IO.
     */
    static Throughput deviceLimit(Settings settings) {
        long bytes = Math.min(settings.bytes(), 512L << 20);
        try {
            return bestOf(2, settings, true, bytes);
        } catch (IOException | UnsupportedOperationException e) {
            return Throughput.failed(1, "direct IO unavailable here: " + e);
        }
    }

    private static Throughput bestOf(int rounds, Settings settings, boolean direct, long bytes)
            throws IOException {
        double write = 0;
        double read = 0;
        for (int round = 0; round < rounds; round++) {
            Throughput one = limitOnce(settings, direct, bytes);
            write = Math.max(write, one.writeMbPerSecond());
            read = Math.max(read, one.readMbPerSecond());
        }
        return new Throughput(write, read, 1, null);
    }

    private static Throughput limitOnce(Settings settings, boolean direct, long bytes)
            throws IOException {
        int pageSize = settings.options().pageSizeBytes();
        Path file = Files.createTempFile(settings.directory(), "limit", ".data");
        try {
            int block = direct ? (int) Files.getFileStore(file).getBlockSize() : 1;
            ByteBuffer page = ByteBuffer.allocateDirect(pageSize + block).alignedSlice(block);
            page.limit(pageSize);
            byte[] random = new byte[pageSize];
            new SplittableRandom(1).nextBytes(random);
            page.put(random).flip();
            long pages = bytes / pageSize;
            long start = System.nanoTime();
            try (FileChannel channel = FileChannel.open(file, openOptions(direct, true))) {
                for (long p = 0; p < pages; p++) {
                    page.rewind();
                    while (page.hasRemaining()) {
                        channel.write(page);
                    }
                }
            }
            double write = mbPerSecond(pages * pageSize, System.nanoTime() - start);
            start = System.nanoTime();
            long read = 0;
            try (FileChannel channel = FileChannel.open(file, openOptions(direct, false))) {
                for (int n = 0; n >= 0; n = channel.read(page.clear())) {
                    read += n;
                }
            }
            return new Throughput(write, mbPerSecond(read, System.nanoTime() - start), 1, null);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static java.util.Set<java.nio.file.OpenOption> openOptions(
            boolean direct, boolean write) {
        java.util.Set<java.nio.file.OpenOption> options = new java.util.HashSet<>();
        options.add(write ? StandardOpenOption.WRITE : StandardOpenOption.READ);
        if (direct) {
            options.add(com.sun.nio.file.ExtendedOpenOption.DIRECT);
        }
        return options;
    }

    /** P producers then P consumers through one kind of partition. */
    static Throughput run(Settings settings, Kind kind) throws IOException {
        Path directory =
                Files.createTempDirectory(
                        settings.directory(), kind.name().toLowerCase(java.util.Locale.ROOT));
        ExecutorService slots = Executors.newFixedThreadPool(settings.slots(), daemon(kind));
        try (ShuffleWorker worker = new ShuffleWorker(settings.options(), directory)) {
            List<BlockingPartition> partitions;
            long start = System.nanoTime();
            try {
                partitions = produce(worker, settings, kind, slots);
            } catch (RuntimeException | IOException e) {
                stop(slots); // every writer has failed or finished before the worker closes
                return Throughput.failed(
                        worker.stats().filesCreated(), String.valueOf(e.getMessage()));
            }
            double write = mbPerSecond(settings.bytes(), System.nanoTime() - start);
            start = System.nanoTime();
            long read = consume(worker, partitions, slots);
            double readRate = mbPerSecond(read, System.nanoTime() - start);
            if (read != settings.bytes()) {
                throw new IllegalStateException(
                        kind
                                + ": consumers read "
                                + read
                                + " bytes of records, producers wrote "
                                + settings.bytes());
            }
            for (BlockingPartition partition : partitions) {
                partition.release();
            }
            ShuffleWorker.ShuffleStats stats = worker.stats();
            if (Boolean.getBoolean("railyard.shuffle.debug")) {
                System.err.printf(
                        "%s: %d reads served %d channel sections%n",
                        kind, stats.reads(), stats.channelReads());
            }
            return new Throughput(write, readRate, stats.filesCreated(), null);
        } finally {
            slots.shutdownNow();
            deleteTree(directory);
        }
    }

    private static List<BlockingPartition> produce(
            ShuffleWorker worker, Settings settings, Kind kind, ExecutorService slots)
            throws IOException {
        int p = settings.parallelism();
        byte[] source = new byte[settings.recordBytes() * 64];
        new SplittableRandom(7).nextBytes(source);
        List<Future<BlockingPartition>> futures = new ArrayList<>(p);
        for (int producer = 0; producer < p; producer++) {
            long share = settings.bytes() / p + (producer < settings.bytes() % p ? 1 : 0);
            String name = "p" + producer;
            futures.add(
                    slots.submit(() -> produceOne(worker, kind, name, p, share, settings, source)));
        }
        return await(futures);
    }

    private static BlockingPartition produceOne(
            ShuffleWorker worker,
            Kind kind,
            String name,
            int n,
            long share,
            Settings settings,
            byte[] source)
            throws IOException {
        try (PartitionWriter writer =
                kind == Kind.SORT
                        ? worker.createSortPartition(name, n)
                        : worker.createHashPartition(name, n)) {
            ByteBuffer record = ByteBuffer.wrap(source);
            int size = settings.recordBytes();
            int target = name.hashCode() & 0xFFFF;
            int slice = 0;
            for (long left = share; left > 0; left -= size) {
                int length = (int) Math.min(size, left);
                int offset = (slice++ & 63) * size;
                record.limit(offset + length).position(offset);
                writer.emit(record, target++ % n);
            }
            return writer.finish();
        }
    }

    private static long consume(
            ShuffleWorker worker, List<BlockingPartition> partitions, ExecutorService slots)
            throws IOException {
        long total = 0;
        List<Future<Long>> futures = new ArrayList<>(partitions.size());
        for (int consumer = 0; consumer < partitions.size(); consumer++) {
            int subpartition = consumer;
            futures.add(slots.submit(() -> consumeOne(worker, partitions, subpartition)));
        }
        for (Long bytes : await(futures)) {
            total += bytes;
        }
        return total;
    }

    private static long consumeOne(
            ShuffleWorker worker, List<BlockingPartition> partitions, int subpartition)
            throws Exception {
        long[] bytes = new long[1];
        RecordDecoder decoder = new RecordDecoder(partitions.size());
        try (InputGate gate = worker.openGate("c" + subpartition, partitions, subpartition)) {
            while (!gate.isFinished()) {
                InputGate.Buffer buffer = gate.poll();
                if (buffer == null) {
                    gate.availability().get(5, TimeUnit.MINUTES);
                    continue;
                }
                try {
                    decoder.decode(
                            buffer.channel(),
                            buffer.data(),
                            (channel, record) -> bytes[0] += record.remaining());
                } finally {
                    buffer.recycle();
                }
            }
        }
        return bytes[0];
    }

    private static <T> List<T> await(List<Future<T>> futures) throws IOException {
        List<T> results = new ArrayList<>(futures.size());
        try {
            for (Future<T> future : futures) {
                results.add(future.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            for (Future<T> future : futures) {
                future.cancel(true);
            }
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(e.getCause());
        }
        return results;
    }

    private static java.util.concurrent.ThreadFactory daemon(Kind kind) {
        AtomicLong ids = new AtomicLong();
        return runnable -> {
            Thread thread =
                    new Thread(runnable, "shuffle-" + kind + "-slot-" + ids.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    private static void stop(ExecutorService slots) {
        slots.shutdownNow();
        try {
            if (!slots.awaitTermination(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("shuffle tasks did not stop within 5 minutes");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static double mbPerSecond(long bytes, long nanos) {
        return bytes / 1e6 / (Math.max(1, nanos) / 1e9);
    }

    private static void deleteTree(Path directory) {
        try (var files = Files.list(directory)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clean " + directory, e);
        }
    }

    /** The kinds, for command-line help. */
    static String kinds() {
        return Arrays.toString(Kind.values());
    }
}
