package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.ShuffleThroughput.Settings;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.ShuffleMemory;
import java.util.Locale;

/**
 * How Flink's side of the shuffle comparison divides the same network memory as Railyard's worker
 * ({@code shuffle.network.memory.total}, in pages of {@code shuffle.network.memory.page-size},
 * which is also Flink's buffer size): each of the {@code min(slots, P)} writers at once gets a
 * {@code BufferPool} of as many buffers as a Railyard sort writer holds ({@link
 * ShuffleMemory#sortWriterPages}), from a {@code NetworkBufferPool} of exactly those; Flink's
 * {@code BatchShuffleReadBufferPool}, which holds every buffer its readers read into, gets the
 * rest. Flink's own minimum for that pool is one buffer ({@code BatchShuffleReadBufferPool} refuses
 * less than {@code taskmanager.memory.segment-size}); with less the comparison is not measured.
 *
 * <p>Railyard spends the same budget on its writers, its IO scheduler and the consumers' input
 * gates; Flink's consumers here read the partitions in process, as its local input channels do,
 * which take no buffers of their own. Immutable.
 *
 * @param pageSizeBytes bytes per page: Flink's buffer size
 * @param totalPages pages of the whole budget
 * @param writerPages buffers of each writer's pool: a Railyard sort writer's pages
 * @param writersAtOnce writers that exist at once: {@code min(slots, P)}
 */
record FlinkSortMemory(int pageSizeBytes, long totalPages, int writerPages, int writersAtOnce) {
    /** Flink's minimum of the read pool, in buffers. */
    static final int MIN_READ_BUFFERS = 1;

    /** The division of {@code settings}' network memory. O(1). */
    static FlinkSortMemory of(Settings settings) {
        ShuffleOptions options = settings.options();
        return new FlinkSortMemory(
                options.pageSizeBytes(),
                options.totalPages(),
                ShuffleMemory.sortWriterPages(options),
                Math.min(settings.slots(), settings.parallelism()));
    }

    /** Buffers of the network buffer pool: every writer's at once. */
    int networkBuffers() {
        return writersAtOnce * writerPages;
    }

    /** Buffers of the read pool: the rest of the budget (negative if the writers exceed it). */
    long readBuffers() {
        return totalPages - networkBuffers();
    }

    /** Bytes of the read pool. */
    long readBytes() {
        return readBuffers() * pageSizeBytes;
    }

    /** Whether the read pool gets at least Flink's minimum. */
    boolean fits() {
        return readBuffers() >= MIN_READ_BUFFERS;
    }

    /** The network memory the comparison needs: the writers' pools and the read pool's minimum. */
    long requiredBytes() {
        return ((long) networkBuffers() + MIN_READ_BUFFERS) * pageSizeBytes;
    }

    /** What the comparison needs against what it has, in words (no option names). */
    String needs() {
        return String.format(
                Locale.ROOT,
                "needs %s of network memory, has %s: %s at once, each a Flink sort-merge writer of"
                        + " %,d buffers (a Railyard sort writer's pages) of %s, plus at least %d"
                        + " buffer for Flink's batch-shuffle read pool",
                ShuffleOptions.bytesText(requiredBytes()),
                ShuffleOptions.bytesText(totalPages * pageSizeBytes),
                writersAtOnce == 1 ? "1 writer" : writersAtOnce + " writers",
                writerPages,
                ShuffleOptions.bytesText(pageSizeBytes),
                MIN_READ_BUFFERS);
    }
}
