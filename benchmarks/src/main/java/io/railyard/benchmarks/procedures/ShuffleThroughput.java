package io.railyard.benchmarks.procedures;

import static com.google.common.base.Preconditions.checkArgument;

import io.railyard.shuffle.ShuffleDirectory;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.HybridStats;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleMemory;
import io.railyard.shuffle.partition.ShuffleWorker;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The shuffle throughput measurement: P producers write {@code bytes} of records through P
 * partitions of one kind (P subpartitions each) and P consumers read them, all in one process with
 * one {@link ShuffleWorker}; beside it, the machine's sequential limit: one file of the same size
 * written and read with the same page size, in the same run. Reports MB/s (10^6 bytes of records
 * per second), files created and, for hybrid partitions, where the bytes went (memory or disk).
 *
 * <ul>
 *   <li>Blocking kinds ({@link PartitionKind#SORT}, {@link PartitionKind#HASH}): P producers, then
 *       P consumers, {@code slots} tasks at a time in waves ({@code BlockingShuffle}).
 *   <li>Hybrid kinds: consumers read while producers write, attached as {@link Consumers} says;
 *       producers still run {@code slots} at a time, consumers on threads of their own ({@code
 *       HybridShuffle} says what runs where).
 * </ul>
 *
 * <p>Consumers check what they read: the records, their bytes and the sum of their hashes ({@link
 * Delivered}, counted by {@link RecordTally}) must equal what the producers wrote ({@link
 * ShuffleRecords}), else the run fails. Plain class: {@code ShuffleThroughputTest} runs it at a
 * tiny scale in CI.
 */
public final class ShuffleThroughput {
    /**
     * The partition kinds this measurement runs, in table order: every kind but {@link
     * PartitionKind#PIPELINED}, whose producers wait for their consumers instead of spilling.
     */
    public static final Set<PartitionKind> KINDS =
            Collections.unmodifiableSet(
                    EnumSet.of(
                            PartitionKind.SORT,
                            PartitionKind.HASH,
                            PartitionKind.HYBRID_FULL,
                            PartitionKind.HYBRID_SELECTIVE));

    /**
     * The name of {@code kind} in tables, JSON and on the command line: its name in lower case, '-'
     * for '_', e.g. {@code hybrid-full}. O(1); allocates the string.
     */
    public static String key(PartitionKind kind) {
        return kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The measured kind whose {@link #key} is {@code key}, if any. O(kinds). */
    public static Optional<PartitionKind> kindOfKey(String key) {
        for (PartitionKind kind : KINDS) {
            if (key(kind).equals(key)) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }

    /**
     * When the consumers of a hybrid kind attach (those of blocking kinds always start after every
     * producer finished). Producers always run {@code slots} at a time.
     */
    public enum Consumers {
        /**
         * Every consumer's gate opens before the first record; as a gate reads a fixed list of
         * partitions, every producer's writer is created before that.
         */
        EARLY,
        /**
         * As {@link #EARLY}, except that the upper half of the consumers (P / 2, rounded down)
         * attach only once the partitions have produced half the bytes (the worker's hybrid {@code
         * bytesProduced} reaches {@code bytes / 2}).
         */
        LATE,
        /**
         * As the slots allow: each producer creates its writer when it starts; consumers attach
         * once every partition exists (when the last producer started), {@code min(slots, P)} at a
         * time, the next as one ends. The setup that fits where P writers and P gates do not.
         */
        WAVES;

        /** The name on the command line and in JSON, e.g. {@code early}. */
        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The value whose {@link #key()} is {@code key}, if any. O(values). */
        public static Optional<Consumers> ofKey(String key) {
            for (Consumers consumers : values()) {
                if (consumers.key().equals(key)) {
                    return Optional.of(consumers);
                }
            }
            return Optional.empty();
        }
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
     * @param kinds the kinds {@link #measure} runs, at least one, of {@link #KINDS} (kept in {@link
     *     PartitionKind} order)
     * @param consumers when the consumers of hybrid kinds attach
     * @param producerBytesPerSecond the record bytes per second all producers running at once may
     *     emit together (each {@code 1 / min(slots, parallelism)} of it), or 0 for as fast as they
     *     can: pacing producers below what consumers drain is how a run models consumers that keep
     *     up
     */
    public record Settings(
            int parallelism,
            long bytes,
            int recordBytes,
            int slots,
            ShuffleOptions options,
            Path directory,
            Set<PartitionKind> kinds,
            Consumers consumers,
            long producerBytesPerSecond) {
        /** Checks the numbers; copies {@code kinds}. */
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
            checkArgument(!kinds.isEmpty(), "kinds must not be empty");
            checkArgument(KINDS.containsAll(kinds), "kinds must be of %s, were %s", KINDS, kinds);
            checkArgument(
                    producerBytesPerSecond >= 0,
                    "producerBytesPerSecond must be >= 0, was %s",
                    producerBytesPerSecond);
            kinds = Collections.unmodifiableSet(EnumSet.copyOf(kinds));
        }

        /** Unpaced producers. */
        public Settings(
                int parallelism,
                long bytes,
                int recordBytes,
                int slots,
                ShuffleOptions options,
                Path directory,
                Set<PartitionKind> kinds,
                Consumers consumers) {
            this(parallelism, bytes, recordBytes, slots, options, directory, kinds, consumers, 0);
        }

        /** One producer's record bytes per second, or 0 if unpaced. */
        public long producerPace() {
            return producerBytesPerSecond == 0
                    ? 0
                    : Math.max(1, producerBytesPerSecond / Math.min(slots, parallelism));
        }

        /** Every kind, hybrid consumers {@link Consumers#EARLY early}. */
        public Settings(
                int parallelism,
                long bytes,
                int recordBytes,
                int slots,
                ShuffleOptions options,
                Path directory) {
            this(
                    parallelism,
                    bytes,
                    recordBytes,
                    slots,
                    options,
                    directory,
                    EnumSet.copyOf(KINDS),
                    Consumers.EARLY);
        }

        /** The same settings with files under {@code runDirectory}. */
        public Settings in(Path runDirectory) {
            return new Settings(
                    parallelism,
                    bytes,
                    recordBytes,
                    slots,
                    options,
                    runDirectory,
                    kinds,
                    consumers,
                    producerBytesPerSecond);
        }

        /**
         * The settings of the untimed round each system runs before it is measured ({@link
         * #WARMUP_BYTES}): the same, with at most that many bytes.
         */
        public Settings warmup() {
            return new Settings(
                    parallelism,
                    Math.min(bytes, WARMUP_BYTES),
                    recordBytes,
                    slots,
                    options,
                    directory,
                    kinds,
                    consumers,
                    producerBytesPerSecond);
        }

        /** The same settings with hybrid consumers attached as {@code value} says. */
        public Settings withConsumers(Consumers value) {
            return new Settings(
                    parallelism,
                    bytes,
                    recordBytes,
                    slots,
                    options,
                    directory,
                    kinds,
                    value,
                    producerBytesPerSecond);
        }
    }

    /**
     * Why a system has no numbers: {@link InsufficientMemory} (with the memory the run needs),
     * {@link Unsupported} or {@link IoError}. Each message says what failed, with numbers and no
     * command-line option names (the caller adds them). Callers branch with {@code instanceof}.
     */
    public sealed interface Failure
            permits Failure.InsufficientMemory, Failure.Unsupported, Failure.IoError {
        /** What failed, with numbers (no command-line option names: the caller adds them). */
        String message();

        /**
         * The failure's name in JSON: {@code insufficient_memory}, {@code unsupported} or {@code
         * io_error}.
         */
        String key();

        /**
         * The network memory cannot hold the guarantees of what runs at once (an expected outcome
         * for hash-based partitions, and for hybrid ones with early consumers, at high parallelism;
         * not an error of the run).
         *
         * @param message what the run needs against what it has, in words
         * @param requiredMemoryBytes the network memory the run needs
         */
        record InsufficientMemory(String message, long requiredMemoryBytes) implements Failure {
            @Override
            public String key() {
                return "insufficient_memory";
            }
        }

        /**
         * The file system refused something this system needs (direct IO): not measurable here.
         *
         * @param message what was refused
         */
        record Unsupported(String message) implements Failure {
            @Override
            public String key() {
                return "unsupported";
            }
        }

        /**
         * Reading or writing files failed (a full disk, a vanished file): the run failed.
         *
         * @param message the file and what went wrong
         */
        record IoError(String message) implements Failure {
            @Override
            public String key() {
                return "io_error";
            }
        }
    }

    /**
     * Where a hybrid kind's bytes went: the worker's hybrid counters once every consumer ended
     * (bytes of frames, headers included). Each fraction is 0 when its denominator is.
     *
     * @param stats the counters, summed over the run's partitions
     */
    public record HybridCounts(HybridStats stats) {
        /** Bytes written to the data files plus bytes spilled, over bytes produced. O(1). */
        public double diskWriteFraction() {
            return fraction(
                    stats.bytesWrittenToDisk() + stats.bytesSpilled(), stats.bytesProduced());
        }

        /** Bytes consumers read from disk, over bytes they read. O(1). */
        public double diskReadFraction() {
            return fraction(stats.bytesReadFromDisk(), bytesRead());
        }

        /** Bytes consumers read from resident (in-memory) regions, over bytes they read. O(1). */
        public double memoryReadFraction() {
            return fraction(stats.bytesReadFromMemory(), bytesRead());
        }

        /**
         * The most pages the partitions held at once beyond their guarantees (resident regions).
         */
        public int peakBorrowedPages() {
            return stats.peakResidentPages();
        }

        private long bytesRead() {
            return stats.bytesReadFromMemory() + stats.bytesReadFromDisk();
        }

        private static double fraction(long part, long whole) {
            return whole == 0 ? 0 : (double) part / whole;
        }
    }

    /**
     * One system's outcome: {@link Measured} with its rates, or {@link Failed} with why it has no
     * numbers; either counts the files created. Callers branch with {@code instanceof}.
     */
    public sealed interface Throughput permits Throughput.Measured, Throughput.Failed {
        /** Files created. */
        long files();

        /**
         * A measured system.
         *
         * @param writeMbPerSecond records written per second (10^6 bytes)
         * @param readMbPerSecond records read per second
         * @param files files created
         * @param delivered what the consumers of a partition kind (or of Flink's partitions) read,
         *     checked against what the producers wrote; null for the sequential limits, which move
         *     no records
         * @param hybrid where the bytes went, for a hybrid kind; else null
         * @param network the same partitions read again over TCP, with {@code shuffle --transport
         *     tcp}; else null
         */
        record Measured(
                double writeMbPerSecond,
                double readMbPerSecond,
                long files,
                @Nullable Delivered delivered,
                @Nullable HybridCounts hybrid,
                @Nullable NetworkRead network)
                implements Throughput {
            /** A measurement without records (the sequential limits). */
            static Measured withoutRecords(double write, double read, long files) {
                return new Measured(write, read, files, null, null, null);
            }

            /** This measurement with the same partitions read over TCP as {@code network}. */
            public Measured withNetwork(NetworkRead network) {
                return new Measured(
                        writeMbPerSecond, readMbPerSecond, files, delivered, hybrid, network);
            }

            /**
             * A measured shuffle whose consumers read {@code delivered} (checked against the
             * producers already).
             */
            public static Measured shuffle(
                    double write, double read, long files, Delivered delivered) {
                return new Measured(write, read, files, delivered, null, null);
            }
        }

        /**
         * A read of the partitions over TCP: every consumer's gate reads from the producers' data
         * server on loopback through the transport, into pages of a second worker's pool.
         *
         * @param readMbPerSecond records read per second (10^6 bytes)
         * @param bytesSent payload bytes the data server sent
         * @param bytesSentWithoutCopy of those, bytes the server did not copy
         * @param bytesSentFromFiles of those, bytes sent as file regions (sendfile)
         */
        public record NetworkRead(
                double readMbPerSecond,
                long bytesSent,
                long bytesSentWithoutCopy,
                long bytesSentFromFiles) {
            /** The share of the bytes sent without a copy, in [0, 1]. */
            public double withoutCopyFraction() {
                return bytesSent == 0 ? 0 : (double) bytesSentWithoutCopy / bytesSent;
            }

            /** The share of the bytes sent as file regions, in [0, 1]. */
            public double fromFilesFraction() {
                return bytesSent == 0 ? 0 : (double) bytesSentFromFiles / bytesSent;
            }
        }

        /**
         * A system without numbers.
         *
         * @param failure why
         * @param files files created before it failed
         */
        record Failed(Failure failure, long files) implements Throughput {}
    }

    /**
     * What a run ran with: its settings as measured, the worker's network memory and gate pages
     * resolved.
     *
     * @param parallelism producers = consumers
     * @param bytes record bytes written and read
     * @param recordBytes bytes per record
     * @param slots tasks running at once
     * @param networkMemoryBytes network memory of the worker
     * @param gatePages pages guaranteed to each input gate
     * @param consumers when the consumers of hybrid kinds attached
     * @param producerBytesPerSecond the producers' pace ({@link Settings#producerBytesPerSecond}),
     *     0 if unpaced
     */
    public record Setup(
            int parallelism,
            long bytes,
            int recordBytes,
            int slots,
            long networkMemoryBytes,
            int gatePages,
            Consumers consumers,
            long producerBytesPerSecond) {
        /** The setup of a run of {@code settings}. O(1). */
        public static Setup of(Settings settings) {
            return new Setup(
                    settings.parallelism(),
                    settings.bytes(),
                    settings.recordBytes(),
                    settings.slots(),
                    settings.options().totalMemoryBytes(),
                    settings.options().gatePages(),
                    settings.consumers(),
                    settings.producerBytesPerSecond());
        }
    }

    /**
     * The machine's sequential file limits, measured in the same run as the shuffle.
     *
     * @param pageCache one file written and read through the page cache
     * @param device the same with direct IO (the device itself), or why that is not measurable
     */
    public record Limits(Throughput pageCache, Throughput device) {}

    /**
     * The result of one run: what it ran with, the limits, each kind run, and Flink's sort-merge
     * partition if it was measured beside them.
     *
     * @param setup what the run ran with
     * @param limits the sequential file limits
     * @param systems each kind that was run, in {@link PartitionKind} order
     * @param flinkSort Flink's sort-merge partition on the same records, memory and page size (the
     *     comparison, measured outside this package: {@link #withFlinkSort}), or null if not
     *     measured
     */
    public record Result(
            Setup setup,
            Limits limits,
            Map<PartitionKind, Throughput> systems,
            @Nullable Throughput flinkSort) {
        /** Copies {@code systems}. */
        public Result {
            systems =
                    Collections.unmodifiableMap(
                            systems.isEmpty()
                                    ? new EnumMap<>(PartitionKind.class)
                                    : new EnumMap<>(systems));
        }

        /** A result without Flink's sort-merge partition. */
        public Result(Setup setup, Limits limits, Map<PartitionKind, Throughput> systems) {
            this(setup, limits, systems, null);
        }

        /** This result with Flink's sort-merge partition measured on the same settings. */
        public Result withFlinkSort(Throughput flink) {
            return new Result(setup, limits, systems, flink);
        }

        /** The result of {@code kind}, or null if it was not run. O(1). */
        public @Nullable Throughput system(PartitionKind kind) {
            return systems.get(kind);
        }

        /** The first I/O failure of the run (which makes it a failed run), or null. */
        public Failure.@Nullable IoError ioFailure() {
            List<Throughput> all = new ArrayList<>(List.of(limits.pageCache(), limits.device()));
            all.addAll(systems.values());
            if (flinkSort != null) {
                all.add(flinkSort);
            }
            for (Throughput t : all) {
                if (t instanceof Throughput.Failed failed
                        && failed.failure() instanceof Failure.IoError ioError) {
                    return ioError;
                }
            }
            return null;
        }
    }

    /** Bytes per record unless told otherwise. */
    public static final int DEFAULT_RECORD_BYTES = 256;

    /** Tasks running at once unless told otherwise: a worker's slots. */
    public static final int DEFAULT_SLOTS = 8;

    /**
     * A benchmark's shuffle: a marked shuffle directory under {@code java.io.tmpdir} (stale ones
     * swept first) and settings with the default record size and slots. Close it to remove the
     * directory.
     */
    public record Fixture(ShuffleDirectory directory, Settings settings) implements AutoCloseable {
        /**
         * A fixture for {@code kind} at {@code parallelism}: {@code mebibytes} of records through
         * {@code memoryBytes} of network memory with {@code compression}.
         */
        public static Fixture create(
                int parallelism,
                int mebibytes,
                long memoryBytes,
                ShuffleOptions.Compression compression,
                PartitionKind kind,
                Consumers consumers)
                throws IOException {
            Path parent = Path.of(System.getProperty("java.io.tmpdir"));
            ShuffleDirectory.sweepStale(parent);
            ShuffleDirectory directory =
                    ShuffleDirectory.create(parent, "railyard-shuffle-jmh-").deleteOnExit();
            ShuffleOptions options =
                    ShuffleOptions.builder()
                            .totalMemoryBytes(memoryBytes)
                            .compression(compression)
                            .build();
            Settings settings =
                    new Settings(
                            parallelism,
                            (long) mebibytes << 20,
                            DEFAULT_RECORD_BYTES,
                            DEFAULT_SLOTS,
                            options,
                            directory.path(),
                            EnumSet.of(kind),
                            consumers);
            return new Fixture(directory, settings);
        }

        /** Removes the directory (each shuffle deleted its files already) and its exit hook. */
        @Override
        public void close() throws IOException {
            directory.close();
        }
    }

    /** Most tasks at once. */
    public static final int MAX_SLOTS = 256;

    /** Largest record. */
    public static final int MAX_RECORD_BYTES = 1 << 20;

    /** Prefix of the run directories under the settings' directory (see {@link #measure}). */
    public static final String RUN_DIRECTORY_PREFIX = "railyard-shuffle-";

    private ShuffleThroughput() {}

    /**
     * Bytes of the untimed round that every system (Flink's included) runs, at the same parallelism
     * and settings, right before it is measured, so that no system is timed while the JIT compiles
     * its path: a cold 256 MiB hybrid run spent a fifth of its CPU in the compilers and its
     * consumers fell behind the producers.
     */
    public static final long WARMUP_BYTES = 64L << 20;

    /** Steps {@link #measure} reports to its progress listener: the limits, then each kind. */
    public static int steps(Settings settings) {
        return 1 + settings.kinds().size();
    }

    /**
     * Measures the limits, then each of {@code settings.kinds()} in {@link PartitionKind} order
     * (each after an untimed round of {@link Settings#warmup()}), in a new {@link ShuffleDirectory}
     * under {@code settings.directory()} that is deleted afterwards, and also when the JVM is
     * stopped (Ctrl-C, SIGTERM); directories left by runs that were killed outright are swept
     * first. An I/O failure of one system is recorded in its {@link Throughput} and the run goes
     * on; {@code progress} hears each step.
     *
     * @throws IOException if the run directory cannot be created or deleted
     */
    public static Result measure(Settings settings, Consumer<String> progress) throws IOException {
        return measure(settings, progress, false);
    }

    /**
     * {@link #measure(Settings, Consumer)}; with {@code overTcp}, each blocking kind's partitions
     * are read a second time over TCP ({@link Throughput.Measured#network()}).
     */
    public static Result measure(Settings settings, Consumer<String> progress, boolean overTcp)
            throws IOException {
        ShuffleDirectory.sweepStale(settings.directory());
        try (ShuffleDirectory run =
                ShuffleDirectory.create(settings.directory(), RUN_DIRECTORY_PREFIX)
                        .deleteOnExit()) {
            Settings inRun = settings.in(run.path());
            Throughput limit;
            try {
                limit = SequentialLimit.limit(inRun);
            } catch (IOException e) {
                limit = ioError(1, "sequential limit: " + describe(e));
            }
            Throughput device = SequentialLimit.deviceLimit(inRun);
            progress.accept("shuffle: sequential limits");
            Map<PartitionKind, Throughput> systems = new EnumMap<>(PartitionKind.class);
            for (PartitionKind kind : settings.kinds()) {
                progress.accept("shuffle: " + key(kind));
                run(inRun.warmup(), kind, false); // a failure shows again in the measured run
                systems.put(kind, run(inRun, kind, overTcp));
            }
            return new Result(Setup.of(settings), new Limits(limit, device), systems);
        }
    }

    /**
     * The network memory a run of {@code kind} needs: the guarantees of everything that holds pages
     * at once, in pages of {@code page-size}, where {@code io} = {@link
     * ShuffleMemory#ioSchedulerPages} (read batch + 1) and {@code gate} = {@code
     * shuffle.read.gate-pages}. O(1).
     *
     * <ul>
     *   <li>sort, hash: {@code io + min(slots, P) × max(writer, gate)} — producers and consumers
     *       run in separate waves of {@code slots} tasks; {@code writer} is {@link
     *       ShuffleMemory#sortWriterPages} or {@link ShuffleMemory#hashWriterPages} (P
     *       subpartitions).
     *   <li>hybrid, {@link Consumers#EARLY early} or {@link Consumers#LATE late} consumers: {@code
     *       io + P × (hybridWriter + gate)}, with {@code hybridWriter} = {@link #hybridWriterPages}
     *       = {@code sort-buffer-pages + 1} (+ 1 with LZ4) — every producer's writer exists and
     *       every consumer's gate is open at once, so it grows with P. For late consumers it is a
     *       bound: their gates open when some writers have finished and lowered their guarantee to
     *       0.
     *   <li>hybrid, consumers in {@link Consumers#WAVES waves}: {@code io + min(slots, P) ×
     *       (hybridWriter + gate)} — the writers of the last {@code slots} producers and the gates
     *       of the first {@code slots} consumers at once.
     * </ul>
     *
     * Resident regions of hybrid partitions are borrowed beyond the guarantees, only from pages no
     * one was promised, and given back on demand: they need no room here.
     */
    public static long requiredMemoryBytes(Settings settings, PartitionKind kind) {
        return ShuffleNeeds.requiredBytes(settings, kind);
    }

    /**
     * What a run of {@code kind} needs in network memory against what it has, with the parts, in
     * words: "needs 19 MiB of network memory, has 1 MiB: 8 tasks at once, …".
     */
    public static String memoryNeeds(Settings settings, PartitionKind kind) {
        return ShuffleNeeds.text(settings, kind);
    }

    /**
     * The pages one hybrid partition writer is guaranteed: {@code sort-buffer-pages + 1}, + 1 with
     * compression (as {@link ShuffleWorker#createPartition} takes them). O(1).
     */
    public static int hybridWriterPages(ShuffleOptions options) {
        return ShuffleMemory.hybridWriterPages(options);
    }

    /**
     * P producers and P consumers through one kind of partition ({@link Consumers} says when the
     * consumers of a hybrid kind attach), in a new sub-directory of {@code settings.directory()}
     * that is deleted afterwards. Without enough network memory for what runs at once ({@link
     * #requiredMemoryBytes}) nothing runs and the result says so; an I/O failure is recorded in the
     * result, with every file deleted and every page returned.
     *
     * @throws IllegalStateException if the consumers did not read exactly what was written (a bug)
     */
    public static Throughput run(Settings settings, PartitionKind kind) {
        return run(settings, kind, false);
    }

    /**
     * {@link #run(Settings, PartitionKind)}; with {@code overTcp}, a blocking kind's partitions are
     * read a second time over TCP, after the in-process read ({@link
     * Throughput.Measured#network()}).
     */
    public static Throughput run(Settings settings, PartitionKind kind, boolean overTcp) {
        long required = requiredMemoryBytes(settings, kind);
        long available = settings.options().totalMemoryBytes();
        if (required > available) {
            return new Throughput.Failed(
                    new Failure.InsufficientMemory(memoryNeeds(settings, kind), required), 0);
        }
        Path directory;
        try {
            directory = Files.createTempDirectory(settings.directory(), key(kind));
        } catch (IOException e) {
            return ioError(0, describe(e));
        }
        Throughput result;
        try {
            result =
                    kind.isReadableWhileWritten()
                            ? HybridShuffle.run(directory, settings, kind)
                            : BlockingShuffle.run(directory, settings, kind, overTcp);
        } catch (IOException e) {
            result = ioError(0, key(kind) + ": " + describe(e));
        }
        try {
            deleteTree(directory);
        } catch (IOException e) {
            return result instanceof Throughput.Failed
                    ? result
                    : ioError(result.files(), "cleaning up: " + describe(e));
        }
        return result;
    }

    /** No numbers: reading or writing files failed, as {@code message} says. */
    public static Throughput.Failed ioError(long files, String message) {
        return new Throughput.Failed(new Failure.IoError(message), files);
    }

    /** What went wrong with a file, in one line. */
    public static String describe(IOException e) {
        if (e instanceof FileSystemException fse && fse.getFile() != null) {
            String reason = fse.getReason();
            return fse.getFile() + ": " + (reason != null ? reason : e.getClass().getSimpleName());
        }
        return String.valueOf(e.getMessage());
    }

    /** Megabytes (10^6 bytes) per second: how every MB/s of the measurement is computed. */
    public static double mbPerSecond(long bytes, long nanos) {
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
