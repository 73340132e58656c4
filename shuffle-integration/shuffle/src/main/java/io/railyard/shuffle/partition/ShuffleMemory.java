package io.railyard.shuffle.partition;

import static com.google.common.base.Preconditions.checkArgument;

import io.railyard.shuffle.ShuffleOptions;

/**
 * The network pages each shuffle owner is guaranteed, as {@link ShuffleWorker} registers them with
 * its pool: what an embedding process (or a command line) needs to size {@value
 * ShuffleOptions#TOTAL_MEMORY_KEY} before it starts work. Stateless; every method is O(1).
 */
public final class ShuffleMemory {
    private ShuffleMemory() {}

    /** Pages of a worker's IO scheduler (one per worker): read batch + 1. */
    public static int ioSchedulerPages(ShuffleOptions options) {
        return IoScheduler.pagesNeeded(options);
    }

    /**
     * Pages of one sort-based partition writer, whatever its number of subpartitions: sort buffer +
     * write batch + 1, + 1 with compression.
     */
    public static int sortWriterPages(ShuffleOptions options) {
        return SortFormatWriter.pagesNeeded(options);
    }

    /**
     * Pages of one hash-based partition writer: one per subpartition, + 1 with compression.
     *
     * @throws IllegalArgumentException if {@code numSubpartitions} is not in [1, 2^24]
     */
    public static int hashWriterPages(ShuffleOptions options, int numSubpartitions) {
        checkArgument(
                numSubpartitions >= 1 && numSubpartitions <= (1 << 24),
                "numSubpartitions must be in [1, 2^24], was %s",
                numSubpartitions);
        return HashPartitionWriter.pagesNeeded(options, numSubpartitions);
    }

    /**
     * Pages of one hybrid partition writer, whatever its number of subpartitions: sort buffer + 1,
     * + 1 with compression. The regions it keeps in memory are borrowed beyond this.
     */
    public static int hybridWriterPages(ShuffleOptions options) {
        return HybridPartitionWriter.pagesNeeded(options);
    }

    /**
     * Pages of one partition writer of {@code kind} for {@code numSubpartitions} consumers: {@link
     * #sortWriterPages}, {@link #hashWriterPages} or {@link #hybridWriterPages}.
     *
     * @throws IllegalArgumentException if {@code numSubpartitions} is not in [1, 2^24]
     */
    public static int writerPages(
            ShuffleOptions options, PartitionKind kind, int numSubpartitions) {
        checkArgument(
                numSubpartitions >= 1 && numSubpartitions <= (1 << 24),
                "numSubpartitions must be in [1, 2^24], was %s",
                numSubpartitions);
        return switch (kind) {
            case SORT -> sortWriterPages(options);
            case HASH -> hashWriterPages(options, numSubpartitions);
            case HYBRID_FULL, HYBRID_SELECTIVE, PIPELINED -> hybridWriterPages(options);
        };
    }

    /** Pages of one input gate: {@value ShuffleOptions#GATE_PAGES_KEY}. */
    public static int gatePages(ShuffleOptions options) {
        return options.gatePages();
    }
}
