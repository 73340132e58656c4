package io.railyard.shuffle.partition;

import io.railyard.shuffle.PartitionLostException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A consumer's view of its inputs: one channel per partition it reads (one subpartition of each);
 * buffers arrive from any channel, in order within each channel. A consumer polls, processes a
 * buffer's records and {@link Buffer#recycle() recycles} it.
 *
 * <p>Where the bytes come from is the gate's business, not the consumer's: a gate opened by {@link
 * ShuffleWorker#openGate} reads partitions of its own worker through the worker's IO thread; a
 * transport's gate reads partitions of other workers over the network, into pages of its worker's
 * pool. Both hold at most their guaranteed pages, and both fail with {@link PartitionLostException}
 * naming the partition that was lost, released, corrupt or whose worker cannot be reached.
 *
 * <p>Threading: {@link #poll()}, {@link #availability()}, {@link #isFinished()}, {@link
 * #bytesReady()} and {@link #close()} are called by the consumer's thread; buffers may be recycled
 * from any thread.
 */
public interface InputGate extends AutoCloseable {
    /** The gate's name (its owner name in the buffer pool). */
    String name();

    /** Number of channels; channel {@code i} reads the i-th partition given at open. */
    int numChannels();

    /**
     * The next buffer from any channel, or null if none is ready yet. O(1) amortised.
     *
     * @throws PartitionLostException if a channel's partition is lost, released, corrupt or its
     *     worker cannot be reached
     * @throws IllegalStateException if the gate cannot read any more for a reason that is not a
     *     lost partition (its worker's IO thread died)
     */
    @Nullable Buffer poll() throws PartitionLostException;

    /** A future completed when {@link #poll()} may return a buffer, the gate ends, or fails. */
    CompletableFuture<Void> availability();

    /** Whether every channel ended and every buffer was polled. */
    boolean isFinished();

    /** Pages this gate holds (queued, polled but not recycled, and granted as credit). */
    int pagesInUse();

    /**
     * Bytes in the buffers {@link #poll()} would return now without waiting: a lower bound on what
     * the gate holds for its consumer while data arrives. O(1).
     */
    long bytesReady();

    /**
     * Stops reading: queued buffers are recycled; buffers the consumer still holds are recycled by
     * it later, after which the gate's pages are all back. Idempotent.
     */
    @Override
    void close();

    /**
     * A buffer of one channel: {@link #data()} holds a run of that channel's record stream (records
     * may continue into the channel's next buffer). Recycle each exactly once.
     */
    interface Buffer {
        /** The channel this buffer came from. */
        int channel();

        /** The bytes, from position to limit; valid until {@link #recycle()}. */
        ByteBuffer data();

        /**
         * Returns its share of its page to the gate; any thread. Call once.
         *
         * @throws IllegalStateException if called twice
         */
        void recycle();
    }
}
