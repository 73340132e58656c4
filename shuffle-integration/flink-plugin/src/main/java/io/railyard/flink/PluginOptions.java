package io.railyard.flink;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleMemory;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.jspecify.annotations.Nullable;

/**
 * The plugin's settings, read from Flink's configuration. Every key is checked when the
 * JobManager's shuffle master or a TaskManager's environment is created, so a misconfigured cluster
 * fails at start with one {@link IllegalArgumentException} line naming the key, its value and what
 * is allowed.
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #FALLBACK_KEY}</td><td>{@code pipelined}</td><td>what goes to Flink's own
 *       (Netty) shuffle: {@code pipelined} (what Railyard does not serve: PIPELINED and
 *       PIPELINED_BOUNDED partitions, which streaming jobs use, and BLOCKING_PERSISTENT ones) or
 *       {@code all} (every partition: Railyard serves nothing, logged per job)</td></tr>
 *   <tr><td>{@value #BLOCKING_KEY}</td><td>{@code sort}</td><td>how BLOCKING partitions are
 *       written: {@code sort} (one file, memory independent of the parallelism) or {@code hash}
 *       (a file and a page per subpartition)</td></tr>
 *   <tr><td>{@value #MEMORY_FRACTION_KEY}</td><td>0.8</td><td>the share of the TaskManager's
 *       network memory ({@code taskmanager.memory.network.*}) in Railyard's buffer pool; Flink's
 *       Netty shuffle gets the rest (none at 1, and then nothing may fall back)</td></tr>
 *   <tr><td>{@code railyard.shuffle.compression}</td><td>as Flink's</td><td>{@code none} or
 *       {@code lz4}; by default none when Flink's {@code taskmanager.network.compression.codec}
 *       is {@code NONE}, else LZ4 (Railyard's one codec, also for Flink's LZO and ZSTD), so
 *       both shuffles compress alike</td></tr>
 *   <tr><td>{@code railyard.shuffle.*}</td><td>Railyard's</td><td>Railyard's own shuffle keys
 *       ({@link ShuffleOptions}) with the {@code railyard.} prefix, e.g. {@code
 *       railyard.shuffle.read.gate-pages}; the page size is Flink's {@code
 *       taskmanager.memory.segment-size} and the pool's size follows from the fraction</td></tr>
 * </table>
 *
 * @param fallback what Flink's shuffle serves
 * @param blocking the kind BLOCKING partitions are written as ({@link PartitionKind#SORT} or {@link
 *     PartitionKind#HASH})
 * @param memoryFraction Railyard's share of the network memory, in (0, 1]
 * @param shuffle Railyard's shuffle settings, with the page size from Flink and the default pool
 *     size (the TaskManager's environment sets the real one)
 */
public record PluginOptions(
        Fallback fallback, PartitionKind blocking, double memoryFraction, ShuffleOptions shuffle) {

    /** The key of {@link #fallback}. */
    public static final String FALLBACK_KEY = "railyard.shuffle.fallback";

    /** The key of {@link #blocking}. */
    public static final String BLOCKING_KEY = "railyard.shuffle.blocking";

    /** The key of {@link #memoryFraction}. */
    public static final String MEMORY_FRACTION_KEY = "railyard.shuffle.memory-fraction";

    /** The prefix that turns a Railyard shuffle key into a Flink configuration key. */
    public static final String SHUFFLE_PREFIX = "railyard.";

    /** What Flink's own shuffle serves instead of Railyard. */
    public enum Fallback {
        /** PIPELINED and PIPELINED_BOUNDED partitions (streaming jobs). */
        PIPELINED,
        /** Every partition. */
        ALL
    }

    /**
     * Reads and checks the plugin's keys in {@code config}.
     *
     * @throws IllegalArgumentException naming the first bad key, its value and what is allowed
     */
    public static PluginOptions from(Configuration config) {
        Map<String, String> all = config.toMap();
        Fallback fallback = parseEnum(all, FALLBACK_KEY, Fallback.PIPELINED);
        String blockingText = all.getOrDefault(BLOCKING_KEY, "sort").trim();
        PartitionKind blocking =
                switch (blockingText.toLowerCase(Locale.ROOT)) {
                    case "sort" -> PartitionKind.SORT;
                    case "hash" -> PartitionKind.HASH;
                    default ->
                            throw new IllegalArgumentException(
                                    BLOCKING_KEY
                                            + " must be sort or hash, was '"
                                            + blockingText
                                            + "'");
                };
        double fraction = parseDouble(all, MEMORY_FRACTION_KEY, 0.8);
        if (!(fraction > 0 && fraction <= 1)) {
            throw new IllegalArgumentException(
                    MEMORY_FRACTION_KEY
                            + " must be in (0, 1], was "
                            + all.get(MEMORY_FRACTION_KEY));
        }
        MemorySize segment = config.get(TaskManagerOptions.MEMORY_SEGMENT_SIZE);
        ShuffleOptions.Builder shuffle =
                ShuffleOptions.builder()
                        .pageSizeBytes(Math.toIntExact(segment.getBytes()))
                        .compression(compressionOf(config));
        readShuffleKeys(all, shuffle);
        return new PluginOptions(fallback, blocking, fraction, build(shuffle));
    }

    /**
     * Railyard's compression as Flink's shuffle compresses ({@code
     * taskmanager.network.compression.codec}): none for {@code NONE}, else LZ4, the one codec
     * Railyard has.
     */
    static ShuffleOptions.Compression compressionOf(Configuration config) {
        return config.get(NettyShuffleEnvironmentOptions.SHUFFLE_COMPRESSION_CODEC)
                        == NettyShuffleEnvironmentOptions.CompressionCodec.NONE
                ? ShuffleOptions.Compression.NONE
                : ShuffleOptions.Compression.LZ4;
    }

    /**
     * Whether Railyard serves partitions of {@code type}: BLOCKING and the hybrid types unless
     * {@link Fallback#ALL}; never the pipelined types or BLOCKING_PERSISTENT (cluster partitions,
     * which outlive the job and its TaskManagers' release protocol).
     */
    public boolean serves(ResultPartitionType type) {
        if (fallback == Fallback.ALL) {
            return false;
        }
        return type == ResultPartitionType.BLOCKING
                || type == ResultPartitionType.HYBRID_FULL
                || type == ResultPartitionType.HYBRID_SELECTIVE;
    }

    /**
     * The Railyard kind of a partition of {@code type} this plugin serves.
     *
     * @throws IllegalArgumentException if Railyard does not serve {@code type}
     */
    public PartitionKind kindOf(ResultPartitionType type) {
        return switch (type) {
            case BLOCKING -> blocking;
            case HYBRID_FULL -> PartitionKind.HYBRID_FULL;
            case HYBRID_SELECTIVE -> PartitionKind.HYBRID_SELECTIVE;
            default ->
                    throw new IllegalArgumentException(
                            "Railyard's shuffle does not serve " + type + " partitions");
        };
    }

    /**
     * Railyard's settings for a pool of {@code networkMemoryBytes} × the fraction.
     *
     * @throws IllegalArgumentException if that pool cannot hold {@link #leastPoolPages} (no task
     *     could ever write or read), naming the keys to raise and the least network memory
     */
    public ShuffleOptions shuffleFor(long networkMemoryBytes) {
        long bytes = (long) (networkMemoryBytes * memoryFraction);
        int page = shuffle.pageSizeBytes();
        int least = leastPoolPages();
        if (bytes / page < least) {
            long leastNetwork = (long) Math.ceil((double) least * page / memoryFraction);
            throw new IllegalArgumentException(
                    "Railyard's share of the network memory ("
                            + MEMORY_FRACTION_KEY
                            + " = "
                            + memoryFraction
                            + " of "
                            + networkMemoryBytes
                            + " bytes) holds "
                            + bytes / page
                            + " pages of "
                            + page
                            + " bytes, fewer than the "
                            + least
                            + " that the read scheduler and one writer or gate need together:"
                            + " raise taskmanager.memory.network.min/max to at least "
                            + leastNetwork
                            + " bytes or "
                            + MEMORY_FRACTION_KEY);
        }
        return shuffle.toBuilder().totalMemoryBytes(bytes).build();
    }

    /**
     * The fewest pages a TaskManager's pool may have: its read scheduler's and the largest of a
     * BLOCKING writer (of one subpartition, for hash), a hybrid writer and a gate. Fewer, and no
     * task could ever be pledged its memory; more writers and gates than fit wait ({@link
     * MemoryWait}).
     */
    int leastPoolPages() {
        int writer =
                Math.max(
                        ShuffleMemory.writerPages(shuffle, blocking, 1),
                        ShuffleMemory.hybridWriterPages(shuffle));
        return ShuffleMemory.ioSchedulerPages(shuffle)
                + Math.max(writer, ShuffleMemory.gatePages(shuffle));
    }

    private static void readShuffleKeys(Map<String, String> all, ShuffleOptions.Builder shuffle) {
        for (Map.Entry<String, String> entry : all.entrySet()) {
            String key = entry.getKey();
            if (!key.startsWith(SHUFFLE_PREFIX + "shuffle.")
                    || key.equals(FALLBACK_KEY)
                    || key.equals(BLOCKING_KEY)
                    || key.equals(MEMORY_FRACTION_KEY)) {
                continue;
            }
            String railyardKey = key.substring(SHUFFLE_PREFIX.length());
            String value = entry.getValue().trim();
            switch (railyardKey) {
                case ShuffleOptions.SORT_BUFFER_PAGES_KEY ->
                        shuffle.sortBufferPages(parseInt(key, value));
                case ShuffleOptions.WRITE_BATCH_PAGES_KEY ->
                        shuffle.writeBatchPages(parseInt(key, value));
                case ShuffleOptions.READ_BATCH_PAGES_KEY ->
                        shuffle.readBatchPages(parseInt(key, value));
                case ShuffleOptions.GATE_PAGES_KEY -> shuffle.gatePages(parseInt(key, value));
                case ShuffleOptions.COMPRESSION_KEY ->
                        shuffle.compression(parseCompression(key, value));
                case ShuffleOptions.HYBRID_MEMORY_FRACTION_KEY ->
                        shuffle.hybridMemoryFraction(parseDouble(key, value));
                case ShuffleOptions.HYBRID_SPILL_FRACTION_KEY ->
                        shuffle.hybridSpillFraction(parseDouble(key, value));
                case ShuffleOptions.HYBRID_RESIDENT_ATTACHED_FRACTION_KEY ->
                        shuffle.hybridResidentAttachedFraction(parseDouble(key, value));
                default ->
                        throw new IllegalArgumentException(
                                "unknown key "
                                        + key
                                        + ": the Railyard shuffle keys are "
                                        + SHUFFLE_PREFIX
                                        + "{"
                                        + String.join(
                                                ", ",
                                                ShuffleOptions.SORT_BUFFER_PAGES_KEY,
                                                ShuffleOptions.WRITE_BATCH_PAGES_KEY,
                                                ShuffleOptions.READ_BATCH_PAGES_KEY,
                                                ShuffleOptions.GATE_PAGES_KEY,
                                                ShuffleOptions.COMPRESSION_KEY,
                                                ShuffleOptions.HYBRID_MEMORY_FRACTION_KEY,
                                                ShuffleOptions.HYBRID_SPILL_FRACTION_KEY,
                                                ShuffleOptions
                                                        .HYBRID_RESIDENT_ATTACHED_FRACTION_KEY)
                                        + "}, "
                                        + FALLBACK_KEY
                                        + ", "
                                        + BLOCKING_KEY
                                        + " and "
                                        + MEMORY_FRACTION_KEY);
            }
        }
    }

    private static ShuffleOptions build(ShuffleOptions.Builder shuffle) {
        try {
            return shuffle.build();
        } catch (IllegalArgumentException e) {
            // Railyard's message names its key; the user wrote it with the prefix.
            throw new IllegalArgumentException(SHUFFLE_PREFIX + e.getMessage(), e);
        }
    }

    private static <E extends Enum<E>> E parseEnum(
            Map<String, String> all, String key, E defaultValue) {
        @Nullable String text = all.get(key);
        if (text == null) {
            return defaultValue;
        }
        for (E value : defaultValue.getDeclaringClass().getEnumConstants()) {
            if (value.name().equalsIgnoreCase(text.trim())) {
                return value;
            }
        }
        StringBuilder allowed = new StringBuilder();
        for (E value : defaultValue.getDeclaringClass().getEnumConstants()) {
            allowed.append(allowed.length() == 0 ? "" : ", ")
                    .append(value.name().toLowerCase(Locale.ROOT));
        }
        throw new IllegalArgumentException(
                key + " must be one of " + allowed + ", was '" + text + "'");
    }

    private static double parseDouble(Map<String, String> all, String key, double defaultValue) {
        @Nullable String text = all.get(key);
        return text == null ? defaultValue : parseDouble(key, text.trim());
    }

    private static double parseDouble(String key, String text) {
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a number, was '" + text + "'", e);
        }
    }

    private static int parseInt(String key, String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be an integer, was '" + text + "'", e);
        }
    }

    private static ShuffleOptions.Compression parseCompression(String key, String text) {
        for (ShuffleOptions.Compression value : ShuffleOptions.Compression.values()) {
            if (value.key().equalsIgnoreCase(text)) {
                return value;
            }
        }
        throw new IllegalArgumentException(key + " must be none or lz4, was '" + text + "'");
    }
}
