package io.railyard.shuffle.partition;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The producer's side of one result partition: records go to one subpartition or to all of them, in
 * order; {@link #finish()} ends the partition. Any write failure fails the partition: its files are
 * deleted, its pages returned, and a {@link PartitionWriteException} names the file and bytes
 * written; later calls throw {@link IllegalStateException}.
 *
 * <p>Not thread-safe: owned by the producing task's thread.
 */
public interface ResultPartitionWriter extends AutoCloseable {
    /** The partition's name (used in file names and errors). */
    String name();

    /** Number of subpartitions (consumers). */
    int numSubpartitions();

    /**
     * Appends {@code record[position, limit)} to {@code subpartition}, consuming the buffer. The
     * record may be empty or larger than a page. Amortised O(record length); no allocation (beyond
     * the small interrupt handler the JDK allocates once per file, at its first write), provided
     * LZ4, if enabled, runs through its bundled native library: lz4-java's pure-Java fallback
     * allocates a 16 KiB hash table per compressed frame.
     */
    void emit(ByteBuffer record, int subpartition) throws IOException;

    /**
     * Appends {@code record[position, limit)} to every subpartition, consuming the buffer; ordered
     * with the records emitted before and after it in each subpartition.
     */
    void broadcast(ByteBuffer record) throws IOException;

    /**
     * Writes what is buffered, returns the writer's working pages, and returns the partition. Call
     * once.
     */
    ResultPartition finish() throws IOException;

    /**
     * Abandons an unfinished partition: deletes its files and returns its pages. A no-op after
     * {@link #finish()} or a failure; idempotent.
     */
    @Override
    void close();
}
