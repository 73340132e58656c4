package io.railyard.shuffle.partition;

import java.io.IOException;

/**
 * The producer's side of one blocking result partition (sort-based or hash-based): {@link
 * #finish()} makes the partition readable. See {@link ResultPartitionWriter} for the contract of
 * every call.
 *
 * <p>Not thread-safe: owned by the producing task's thread.
 */
public interface PartitionWriter extends ResultPartitionWriter {
    /**
     * Writes what is buffered, closes the files, returns every page, and returns the readable
     * partition. Call once.
     */
    @Override
    BlockingPartition finish() throws IOException;
}
