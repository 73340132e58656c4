package io.railyard.shuffle.buffer;

import io.railyard.shuffle.ShuffleOptions;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The network budget cannot hold an owner's guarantee. Thrown at once (nothing waits for memory
 * that can never come); the message names the owner, required and available pages, and the settings
 * to change.
 */
public final class InsufficientNetworkMemoryException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** An exception with its full message. */
    public InsufficientNetworkMemoryException(String message) {
        super(message);
    }

    /**
     * The exception for owner {@code name}, whose guarantee of {@code required} pages (sized by
     * {@code guaranteeKey}) a pool of {@code options} cannot pledge beside the {@code guaranteed}
     * pages of its {@code owners}. Called under the pool's lock. O(owners log owners).
     */
    static InsufficientNetworkMemoryException of(
            String name,
            int required,
            String guaranteeKey,
            ShuffleOptions options,
            int guaranteed,
            List<BufferOwner> owners) {
        int pageSize = options.pageSizeBytes();
        int total = options.totalPages();
        String largest =
                owners.stream()
                        .sorted(Comparator.comparingInt(BufferOwner::guaranteedPages).reversed())
                        .limit(5)
                        .map(o -> "'" + o.name() + "' " + o.guaranteedPages())
                        .collect(Collectors.joining(", "));
        long neededBytes = ((long) guaranteed + required) * pageSize;
        return new InsufficientNetworkMemoryException(
                "insufficient network memory: '"
                        + name
                        + "' needs "
                        + required
                        + " guaranteed pages ("
                        + ShuffleOptions.bytesText((long) required * pageSize)
                        + "), but only "
                        + (total - guaranteed)
                        + " of "
                        + total
                        + " pages are not yet guaranteed ("
                        + guaranteed
                        + " guaranteed to "
                        + owners.size()
                        + " owners"
                        + (largest.isEmpty() ? "" : ", largest: " + largest)
                        + "); raise "
                        + ShuffleOptions.TOTAL_MEMORY_KEY
                        + " (now "
                        + ShuffleOptions.bytesText(options.totalMemoryBytes())
                        + ") to at least "
                        + ShuffleOptions.bytesText(neededBytes)
                        + ", or lower "
                        + guaranteeKey);
    }
}
