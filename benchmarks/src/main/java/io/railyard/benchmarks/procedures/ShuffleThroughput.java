package io.railyard.benchmarks.procedures;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import io.railyard.shuffle.ShuffleDirectory;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.BlockingPartition;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionWriter;
import io.railyard.shuffle.partition.RecordDecoder;
import io.railyard.shuffle.partition.ShuffleMemory;
import io.railyard.shuffle.partition.ShuffleWorker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
     * @param directory where files go ({@link #measure} makes a run directory under it; {@link
     *     #run} a sub-directory per kind, deleted after)
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
                    recordBytes >= 1 && recordBytes <= MAX_RECORD_BYTES,
                    "recordBytes must be in [1, 2^20], was %s",
                    recordBytes);
            checkArgument(
                    slots >= 1 && slots <= MAX_SLOTS,
                    "slots must be in [1, %s], was %s",
                    MAX_SLOTS,
                    slots);
        }

        /** The same settings with files under {@code runDirectory}. */
        public Settings in(Path runDirectory) {
            return new Settings(parallelism, bytes, recordBytes, slots, options, runDirectory);
        }
    }

    /** Why a measured system has no numbers. */
    public enum Reason {
        /**
         * The network memory cannot hold the guarantees of the tasks that run at once (an expected
         * outcome for hash-based partitions at high parallelism, not an error of the run).
         */
        INSUFFICIENT_MEMORY,
        /** The file system refused something this system needs (direct IO): not measurable here. */
        UNSUPPORTED,
        /** Reading or writing files failed (a full disk, a vanished file): the run failed. */
        IO_ERROR
    }

    /**
     * Why a system has no numbers.
     *
     * @param reason the kind of failure
     * @param message what failed, with numbers (no command-line option names: the caller adds them)
     * @param requiredMemoryBytes for {@link Reason#INSUFFICIENT_MEMORY}, the network memory the run
     *     needs; else 0
     */
    public record Failure(Reason reason, String message, long requiredMemoryBytes) {}

    /**
     * One measured system.
     *
     * @param writeMbPerSecond records written per second (10^6 bytes), or NaN if it failed
     * @param readMbPerSecond records read per second, or NaN if it failed
     * @param files files created
     * @param failure why it has no numbers, or null
     */
    public record Throughput(
            double writeMbPerSecond,
            double readMbPerSecond,
            long files,
            @Nullable Failure failure) {
        static Throughput failed(long files, Reason reason, String message) {
            return new Throughput(Double.NaN, Double.NaN, files, new Failure(reason, message, 0));
        }
    }

    /**
     * The result of one run.
     *
     * @param parallelism producers = consumers
     * @param bytes record bytes written and read
     * @param recordBytes bytes per record
     * @param slots tasks running at once
     * @param networkMemoryBytes network memory of the worker
     * @param limit the sequential file limit through the page cache
     * @param deviceLimit the same with direct IO (the device itself), or a failure
     * @param sort sort-based partitions
     * @param hash hash-based partitions
     */
    public record Result(
            int parallelism,
            long bytes,
            int recordBytes,
            int slots,
            long networkMemoryBytes,
            Throughput limit,
            Throughput deviceLimit,
            Throughput sort,
            Throughput hash) {
        /** The first I/O failure of the run (which makes it a failed run), or null. */
        public @Nullable Failure ioFailure() {
            for (Throughput t : List.of(limit, deviceLimit, sort, hash)) {
                if (t.failure() != null && t.failure().reason() == Reason.IO_ERROR) {
                    return t.failure();
                }
            }
            return null;
        }
    }

    /** Steps reported to a progress listener by {@link #measure}. */
    public static final int STEPS = 3;

    /** Bytes per record unless told otherwise. */
    public static final int DEFAULT_RECORD_BYTES = 256;

    /** Tasks running at once unless told otherwise: a worker's slots. */
    public static final int DEFAULT_SLOTS = 8;

    /** Most tasks at once. */
    public static final int MAX_SLOTS = 256;

    /** Largest record. */
    public static final int MAX_RECORD_BYTES = 1 << 20;

    /** Prefix of the run directories under the settings' directory (see {@link #measure}). */
    public static final String RUN_DIRECTORY_PREFIX = "railyard-shuffle-";

    private ShuffleThroughput() {}

    /**
     * Measures the limit, sort and hash in that order, in a new {@link ShuffleDirectory} under
     * {@code settings.directory()} that is deleted afterwards, and also when the JVM is stopped
     * (Ctrl-C, SIGTERM); directories left by runs that were killed outright are swept first. An I/O
     * failure of one system is recorded in its {@link Throughput} and the run goes on; {@code
     * progress} hears each step.
     *
     * @throws IOException if the run directory cannot be created or deleted
     */
    public static Result measure(Settings settings, Consumer<String> progress) throws IOException {
        ShuffleDirectory.sweepStale(settings.directory());
        try (ShuffleDirectory run =
                ShuffleDirectory.create(settings.directory(), RUN_DIRECTORY_PREFIX)
                        .deleteOnExit()) {
            Settings inRun = settings.in(run.path());
            Throughput limit;
            try {
                limit = SequentialLimit.limit(inRun);
            } catch (IOException e) {
                limit = Throughput.failed(1, Reason.IO_ERROR, "sequential limit: " + describe(e));
            }
            Throughput device = SequentialLimit.deviceLimit(inRun);
            progress.accept("shuffle: sequential limits");
            progress.accept("shuffle: sort-based");
            Throughput sort = run(inRun, Kind.SORT);
            progress.accept("shuffle: hash-based");
            Throughput hash = run(inRun, Kind.HASH);
            return new Result(
                    settings.parallelism(),
                    settings.bytes(),
                    settings.recordBytes(),
                    settings.slots(),
                    settings.options().totalMemoryBytes(),
                    limit,
                    device,
                    sort,
                    hash);
        }
    }

    /**
     * The network memory a run of {@code kind} needs: the IO scheduler's pages plus, for the tasks
     * that run at once, the larger of a writer's and a gate's guarantee (producers and consumers
     * run in separate waves). O(1).
     */
    public static long requiredMemoryBytes(Settings settings, Kind kind) {
        ShuffleOptions options = settings.options();
        long writer =
                kind == Kind.SORT
                        ? ShuffleMemory.sortWriterPages(options)
                        : ShuffleMemory.hashWriterPages(options, settings.parallelism());
        long perTask = Math.max(writer, ShuffleMemory.gatePages(options));
        long tasks = Math.min(settings.slots(), settings.parallelism());
        return (ShuffleMemory.ioSchedulerPages(options) + tasks * perTask)
                * options.pageSizeBytes();
    }

    /**
     * P producers then P consumers through one kind of partition, in a new sub-directory of {@code
     * settings.directory()} that is deleted afterwards. Without enough network memory for the tasks
     * that run at once ({@link #requiredMemoryBytes}) nothing runs and the result says so; an I/O
     * failure is recorded in the result, with every file deleted and every page returned.
     *
     * @throws IllegalStateException if the consumers did not read exactly what was written (a bug)
     */
    public static Throughput run(Settings settings, Kind kind) {
        long required = requiredMemoryBytes(settings, kind);
        long available = settings.options().totalMemoryBytes();
        if (required > available) {
            return new Throughput(
                    Double.NaN,
                    Double.NaN,
                    0,
                    new Failure(Reason.INSUFFICIENT_MEMORY, memoryNeeds(settings, kind), required));
        }
        Path directory;
        try {
            directory =
                    Files.createTempDirectory(
                            settings.directory(), kind.name().toLowerCase(Locale.ROOT));
        } catch (IOException e) {
            return Throughput.failed(0, Reason.IO_ERROR, describe(e));
        }
        Throughput result;
        try {
            result = runIn(directory, settings, kind);
        } catch (IOException e) {
            result = Throughput.failed(0, Reason.IO_ERROR, kind + ": " + describe(e));
        }
        try {
            deleteTree(directory);
        } catch (IOException e) {
            return result.failure() != null
                    ? result
                    : Throughput.failed(
                            result.files(), Reason.IO_ERROR, "cleaning up: " + describe(e));
        }
        return result;
    }

    private static Throughput runIn(Path directory, Settings settings, Kind kind)
            throws IOException {
        ExecutorService slots = Executors.newFixedThreadPool(settings.slots(), daemon(kind));
        try (ShuffleWorker worker = new ShuffleWorker(settings.options(), directory)) {
            try {
                long start = System.nanoTime();
                List<BlockingPartition> partitions = produce(worker, settings, kind, slots);
                double write = mbPerSecond(settings.bytes(), System.nanoTime() - start);
                start = System.nanoTime();
                long read = consume(worker, partitions, slots);
                double readRate = mbPerSecond(read, System.nanoTime() - start);
                checkState(
                        read == settings.bytes(),
                        "%s: consumers read %s bytes of records, producers wrote %s",
                        kind,
                        read,
                        settings.bytes());
                for (BlockingPartition partition : partitions) {
                    partition.release();
                }
                return new Throughput(write, readRate, worker.stats().filesCreated(), null);
            } catch (IOException e) {
                stop(slots); // every task has failed or finished before the worker closes
                return Throughput.failed(
                        worker.stats().filesCreated(), Reason.IO_ERROR, kind + ": " + describe(e));
            }
        } finally {
            stop(slots);
        }
    }

    /**
     * What a run of {@code kind} needs in network memory against what it has, with the parts, in
     * words: "needs 19 MiB of network memory, has 1 MiB: 8 tasks at once, …".
     */
    public static String memoryNeeds(Settings settings, Kind kind) {
        ShuffleOptions options = settings.options();
        long required = requiredMemoryBytes(settings, kind);
        long available = options.totalMemoryBytes();
        int writerPages =
                kind == Kind.SORT
                        ? ShuffleMemory.sortWriterPages(options)
                        : ShuffleMemory.hashWriterPages(options, settings.parallelism());
        return String.format(
                Locale.ROOT,
                "needs %s of network memory, has %s: %s at once, each a %s writer of %,d"
                        + " pages or an input gate of %,d pages of %s, plus %d pages for the IO"
                        + " scheduler",
                ShuffleOptions.bytesText(required),
                ShuffleOptions.bytesText(available),
                tasks(Math.min(settings.slots(), settings.parallelism())),
                kind.name().toLowerCase(Locale.ROOT),
                writerPages,
                ShuffleMemory.gatePages(options),
                ShuffleOptions.bytesText(options.pageSizeBytes()),
                ShuffleMemory.ioSchedulerPages(options));
    }

    private static String tasks(int n) {
        return n == 1 ? "1 task" : n + " tasks";
    }

    /** What went wrong with a file, in one line. */
    static String describe(IOException e) {
        if (e instanceof FileSystemException fse && fse.getFile() != null) {
            String reason = fse.getReason();
            return fse.getFile() + ": " + (reason != null ? reason : e.getClass().getSimpleName());
        }
        return String.valueOf(e.getMessage());
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

    /** Megabytes (10^6 bytes) per second. */
    static double mbPerSecond(long bytes, long nanos) {
        return bytes / 1e6 / (Math.max(1, nanos) / 1e9);
    }

    private static void deleteTree(Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(directory);
    }
}
