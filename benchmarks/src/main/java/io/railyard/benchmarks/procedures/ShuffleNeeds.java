package io.railyard.benchmarks.procedures;

import io.railyard.benchmarks.procedures.ShuffleThroughput.Consumers;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Settings;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleMemory;
import java.util.Locale;

/**
 * The network memory one run of a kind needs, by the formula {@link
 * ShuffleThroughput#requiredMemoryBytes} states, and the same in words. Stateless; O(1).
 */
final class ShuffleNeeds {
    private ShuffleNeeds() {}

    /** The network memory a run of {@code kind} needs, in bytes. */
    static long requiredBytes(Settings settings, PartitionKind kind) {
        ShuffleOptions options = settings.options();
        long tasks = tasks(settings, kind);
        long perTask =
                kind.isReadableWhileWritten()
                        ? (long) ShuffleThroughput.hybridWriterPages(options) + options.gatePages()
                        : Math.max(blockingWriterPages(settings, kind), options.gatePages());
        return (ShuffleMemory.ioSchedulerPages(options) + tasks * perTask)
                * options.pageSizeBytes();
    }

    /**
     * What a run of {@code kind} needs against what it has, with the parts, in words (no option
     * names: the caller adds them).
     */
    static String text(Settings settings, PartitionKind kind) {
        return kind.isReadableWhileWritten()
                ? hybridText(settings, kind)
                : blockingText(settings, kind);
    }

    /** Producers = consumers that hold memory at once. */
    private static long tasks(Settings settings, PartitionKind kind) {
        int atOnce = Math.min(settings.slots(), settings.parallelism());
        return kind.isReadableWhileWritten() && settings.consumers() != Consumers.WAVES
                ? settings.parallelism()
                : atOnce;
    }

    private static int blockingWriterPages(Settings settings, PartitionKind kind) {
        return kind == PartitionKind.SORT
                ? ShuffleMemory.sortWriterPages(settings.options())
                : ShuffleMemory.hashWriterPages(settings.options(), settings.parallelism());
    }

    private static String blockingText(Settings settings, PartitionKind kind) {
        ShuffleOptions options = settings.options();
        int tasks = Math.min(settings.slots(), settings.parallelism());
        return String.format(
                Locale.ROOT,
                "needs %s of network memory, has %s: %s at once, each a %s writer of %,d"
                        + " pages or an input gate of %,d pages of %s, plus %d pages for the IO"
                        + " scheduler",
                ShuffleOptions.bytesText(requiredBytes(settings, kind)),
                ShuffleOptions.bytesText(options.totalMemoryBytes()),
                tasks == 1 ? "1 task" : tasks + " tasks",
                ShuffleThroughput.key(kind),
                blockingWriterPages(settings, kind),
                options.gatePages(),
                ShuffleOptions.bytesText(options.pageSizeBytes()),
                ShuffleMemory.ioSchedulerPages(options));
    }

    private static String hybridText(Settings settings, PartitionKind kind) {
        ShuffleOptions options = settings.options();
        long tasks = tasks(settings, kind);
        int writerPages = ShuffleThroughput.hybridWriterPages(options);
        int ioPages = ShuffleMemory.ioSchedulerPages(options);
        String why =
                switch (settings.consumers()) {
                    case EARLY ->
                            "early consumers: every writer and every gate exist before the"
                                    + " first record";
                    case LATE -> "late consumers: at most every writer and every gate at once";
                    case WAVES ->
                            "consumers in waves: the last producers' writers and the first"
                                    + " consumers' gates";
                };
        long room = options.totalPages() - ioPages - tasks * writerPages;
        long fittingGatePages = room / tasks;
        String hint =
                fittingGatePages >= 1 && fittingGatePages < options.gatePages()
                        ? String.format(
                                Locale.ROOT,
                                "; it fits with input gates of at most %,d pages",
                                fittingGatePages)
                        : room < tasks
                                ? String.format(
                                        Locale.ROOT,
                                        "; the writers alone need %s",
                                        ShuffleOptions.bytesText(
                                                (ioPages + tasks * writerPages)
                                                        * (long) options.pageSizeBytes()))
                                : "";
        return String.format(
                Locale.ROOT,
                "needs %s of network memory, has %s: %,d hybrid writers of %,d pages and %,d input"
                        + " gates of %,d pages at once (%s), pages of %s, plus %d pages for the IO"
                        + " scheduler%s",
                ShuffleOptions.bytesText(requiredBytes(settings, kind)),
                ShuffleOptions.bytesText(options.totalMemoryBytes()),
                tasks,
                writerPages,
                tasks,
                options.gatePages(),
                why,
                ShuffleOptions.bytesText(options.pageSizeBytes()),
                ioPages,
                hint);
    }
}
