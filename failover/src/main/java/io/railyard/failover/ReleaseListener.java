package io.railyard.failover;

/** Receives partitions that can be released now; see {@link PartitionRelease}. */
@FunctionalInterface
public interface ReleaseListener {
    /**
     * Partitions {@code [from, to)}, all of one dataset, are no longer needed by any consumer and
     * can be released (their data deleted). Called on the thread that fed the event.
     */
    void release(int from, int to);
}
