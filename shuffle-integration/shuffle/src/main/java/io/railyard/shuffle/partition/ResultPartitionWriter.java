package io.railyard.shuffle.partition;

import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * The producer's side of one result partition: records go to one subpartition or to all of them, in
 * order; {@link #finish()} ends the partition. Any write failure fails the partition: its files are
 * deleted, its pages returned, and a {@link PartitionWriteException} names the file and bytes
 * written; later calls throw {@link IllegalStateException}.
 *
 * <p>Not thread-safe: owned by the producing task's thread.
 */
public interface ResultPartitionWriter extends AutoCloseable {
    /** The scheduler's id of the partition being written (partition and producer attempt). */
    PartitionId id();

    /** The id as text, {@code p17.a2}: the base name of the partition's files, named in errors. */
    String name();

    /** How the partition is written and read. */
    PartitionKind kind();

    /**
     * The partition consumers may read while this writer still writes: for the kinds readable while
     * written ({@link PartitionKind#isReadableWhileWritten()}), the partition from the writer's
     * creation on (the one {@link #finish()} returns; the writer is then a {@link
     * HybridPartitionWriter}); empty for blocking kinds, whose partition exists once {@link
     * #finish()} returns it. O(1); allocates the {@link Optional}.
     */
    Optional<ResultPartition> readablePartition();

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
     * Whether the producer should pause before its next record, without waiting: 0 if it may go on
     * now; otherwise it should stop adding records (a cooperative task yields), {@code waker} runs
     * once room may have come back, and the value is how long at most until it should look again
     * ({@link Long#MAX_VALUE}: only once {@code waker} runs). Only a {@link PartitionKind#PIPELINED
     * pipelined} partition ever asks to pause (its bound of unconsumed pages); a producer that goes
     * on anyway is not refused, its records go to memory beyond the bound or to disk. O(1); the
     * waker is kept only when a pause is returned.
     */
    default long roomWaitNanos(Runnable waker) {
        return 0;
    }

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
