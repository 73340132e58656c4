package io.railyard.shuffle.buffer;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.railyard.shuffle.ShuffleOptions;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The JVM's direct-memory limit and use, as the network pool checks its budget against them before
 * allocating anything: the limit is {@code -XX:MaxDirectMemorySize}, which defaults to the heap
 * limit ({@code -Xmx}, {@link Runtime#maxMemory()}) when unset; the use is what the JVM's "direct"
 * buffer pool reports. On a JVM without the HotSpot diagnostic bean the limit is unknown, the check
 * passes and only a failed allocation reports. Immutable; {@link #current()} is O(buffer pools) and
 * allocates.
 *
 * @param limitBytes the most direct memory this JVM lets {@code ByteBuffer.allocateDirect} reserve
 *     ({@link Long#MAX_VALUE} if unknown)
 * @param usedBytes direct memory reserved now (by other pools, NIO, libraries)
 * @param limitSource where the limit comes from, for the error message
 */
record DirectMemory(long limitBytes, long usedBytes, String limitSource) {
    static final String LIMIT_FLAG = "-XX:MaxDirectMemorySize";

    /** This JVM's limit and use now. */
    static DirectMemory current() {
        long used = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                used = Math.max(0, pool.getMemoryUsed());
            }
        }
        long configured = configuredLimit();
        if (configured > 0) {
            return new DirectMemory(configured, used, LIMIT_FLAG);
        }
        if (configured == 0) {
            return new DirectMemory(
                    Runtime.getRuntime().maxMemory(),
                    used,
                    LIMIT_FLAG + " unset, so the heap limit -Xmx");
        }
        return new DirectMemory(
                Long.MAX_VALUE, used, LIMIT_FLAG + " (unreadable here; it defaults to -Xmx)");
    }

    /**
     * Throws, before anything is allocated, if {@code requestedBytes} more cannot fit under the
     * limit.
     *
     * @throws IllegalArgumentException naming {@link ShuffleOptions#TOTAL_MEMORY_KEY}, the request,
     *     the limit and the flag to raise
     */
    void checkRoomFor(ShuffleOptions options, long requestedBytes) {
        if (requestedBytes > limitBytes - usedBytes) {
            throw tooLarge(options, requestedBytes, null);
        }
    }

    /** The error for a budget the JVM's direct memory cannot hold; {@code cause} if it failed. */
    IllegalArgumentException tooLarge(
            ShuffleOptions options, long requestedBytes, @Nullable Throwable cause) {
        String message =
                "cannot allocate the network memory: "
                        + ShuffleOptions.TOTAL_MEMORY_KEY
                        + " = "
                        + ShuffleOptions.bytesText(options.totalMemoryBytes())
                        + " asks for "
                        + options.totalPages()
                        + " pages of "
                        + ShuffleOptions.bytesText(options.pageSizeBytes())
                        + " ("
                        + text(requestedBytes)
                        + " of direct memory), but this JVM allows "
                        + (limitBytes == Long.MAX_VALUE ? "less" : text(limitBytes))
                        + " of direct memory ("
                        + limitSource
                        + ") and "
                        + text(usedBytes)
                        + " of it are in use; lower "
                        + ShuffleOptions.TOTAL_MEMORY_KEY
                        + " or raise "
                        + LIMIT_FLAG
                        + " to at least "
                        + ShuffleOptions.bytesText(roundUpToMiB(requestedBytes + usedBytes));
        return new IllegalArgumentException(message, cause);
    }

    /** The flag's value in bytes: 0 if unset (the heap limit applies), -1 if unreadable. */
    private static long configuredLimit() {
        try {
            HotSpotDiagnosticMXBean hotSpot =
                    ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return hotSpot == null
                    ? -1
                    : Long.parseLong(hotSpot.getVMOption("MaxDirectMemorySize").getValue());
        } catch (IllegalArgumentException e) {
            // Not a HotSpot JVM, or no such flag (NumberFormatException is one too): the limit is
            // unknown, so current() lets allocation decide and the allocation failure reports.
            return -1;
        }
    }

    private static long roundUpToMiB(long bytes) {
        long mib = 1L << 20;
        return (bytes + mib - 1) / mib * mib;
    }

    /** Exact when round (e.g. {@code 64 MiB}), else bytes with an approximate MiB figure. */
    private static String text(long bytes) {
        String exact = ShuffleOptions.bytesText(bytes);
        return exact.endsWith(" B") && bytes >= (1 << 20)
                ? String.format(Locale.ROOT, "%s (%.1f MiB)", exact, bytes / (double) (1 << 20))
                : exact;
    }

    /**
     * The pages of {@code options}' budget, from {@code allocator} in chunks of at most 1 GiB,
     * after checking the budget against this limit and use.
     *
     * @throws IllegalArgumentException if they cannot hold it (see {@link #checkRoomFor}), or an
     *     allocation fails anyway
     */
    Page[] allocatePages(ShuffleOptions options, IntFunction<ByteBuffer> allocator) {
        int total = options.totalPages();
        int pageSize = options.pageSizeBytes();
        long requested = (long) total * pageSize;
        checkRoomFor(options, requested);
        Page[] pages = new Page[total];
        int perChunk = Math.max(1, (1 << 30) / pageSize);
        for (int first = 0; first < total; first += perChunk) {
            int count = Math.min(perChunk, total - first);
            ByteBuffer chunk;
            try {
                chunk = allocator.apply(count * pageSize);
            } catch (OutOfMemoryError e) {
                // Direct memory ran out anyway (taken meanwhile, or the limit is unknown). The
                // chunks so far are referenced only from this frame: dropped, the JVM frees them.
                throw DirectMemory.current().tooLarge(options, requested, e);
            }
            for (int i = 0; i < count; i++) {
                pages[first + i] = new Page(chunk.slice(i * pageSize, pageSize), first + i);
            }
        }
        return pages;
    }
}
