package io.railyard.benchmarks.flink;

import static com.google.common.base.Preconditions.checkState;

import io.railyard.benchmarks.procedures.Delivered;
import io.railyard.benchmarks.procedures.RecordTally;
import io.railyard.topology.Failures;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.runtime.event.AbstractEvent;
import org.apache.flink.runtime.io.network.api.EndOfPartitionEvent;
import org.apache.flink.runtime.io.network.api.serialization.EventSerializer;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.buffer.BufferDecompressor;
import org.apache.flink.runtime.io.network.buffer.CompositeBuffer;
import org.apache.flink.runtime.io.network.buffer.FullyFilledBuffer;
import org.apache.flink.runtime.io.network.partition.BufferAvailabilityListener;
import org.apache.flink.runtime.io.network.partition.ResultPartition;
import org.apache.flink.runtime.io.network.partition.ResultSubpartition.BufferAndBacklog;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionView;
import org.jspecify.annotations.Nullable;

/**
 * One consumer of Flink's side of the shuffle comparison: reads subpartition {@code s} of every
 * partition to its end, as a Flink task's input gate of local channels does, and counts the
 * records.
 *
 * <p>Design notes. Each partition is a channel: a view from {@code createSubpartitionView(new
 * ResultSubpartitionIndexSet(s), listener)}, whose listener queues the channel when its reader has
 * buffers (Flink's {@code SingleInputGate} queues channels with data the same way). The consumer
 * takes the next queued channel and drains it with {@code getNextBuffer()} until it has none. Flink
 * 2.1's {@code SortMergeSubpartitionReader} hands out a {@code FullyFilledBuffer} of whole network
 * buffers read from the file, each a {@code CompositeBuffer} (its parts may lie in two read
 * buffers); like Flink's {@code LocalInputChannel} the consumer takes the parts one by one, joins
 * each with {@code getFullBufferData} into its own unpooled segment (a copy only when it has two
 * parts), decompresses it into the {@code BufferDecompressor}'s intermediate buffer if it is
 * compressed, hands the bytes to the channel's {@link SpanningRecordDeserializer}, and recycles it.
 * A channel ends at its {@code EndOfPartitionEvent}, with no record left half-read; its view is
 * then released.
 *
 * <p>Threading: the calling thread reads; Flink's read IO threads only queue channels (under the
 * queue's monitor). Not reusable: one instance per consumer run.
 */
final class FlinkSortConsumer {
    /** How long the consumer waits for any channel to have data before it gives up. */
    private static final long STALL_NANOS = TimeUnit.MINUTES.toNanos(5);

    private final List<? extends ResultPartition> partitions;
    private final int subpartition;
    private final @Nullable BufferDecompressor decompressor;
    private final MemorySegment unpooled;
    private final RecordTally tally = new RecordTally();
    private final SpanningRecordDeserializer[] deserializers;
    private final @Nullable ResultSubpartitionView[] views;
    private final boolean[] ended;

    /**
     * Queued channels, FIFO: {@code queue[head]} onwards, {@code queued} of them; guarded by it.
     */
    private final int[] queue;

    private final boolean[] isQueued;
    private int head;
    private int queued;

    private FlinkSortConsumer(
            List<? extends ResultPartition> partitions,
            int subpartition,
            int pageSizeBytes,
            @Nullable BufferDecompressor decompressor) {
        int n = partitions.size();
        this.partitions = partitions;
        this.subpartition = subpartition;
        this.decompressor = decompressor;
        this.unpooled = MemorySegmentFactory.allocateUnpooledSegment(pageSizeBytes);
        this.deserializers = new SpanningRecordDeserializer[n];
        this.views = new ResultSubpartitionView[n];
        this.ended = new boolean[n];
        this.queue = new int[n];
        this.isQueued = new boolean[n];
        for (int channel = 0; channel < n; channel++) {
            deserializers[channel] = new SpanningRecordDeserializer();
        }
    }

    /**
     * Reads subpartition {@code subpartition} of every one of {@code partitions} (finished
     * sort-merge partitions) to its end; returns what it read. Every view is released, also on
     * failure.
     *
     * @param decompressor decompresses compressed buffers; null when nothing was compressed
     * @throws IOException if Flink fails to read, or no channel has data for 5 minutes
     * @throws IllegalStateException if a channel's stream is corrupt (a bug)
     */
    static Delivered read(
            List<? extends ResultPartition> partitions,
            int subpartition,
            int pageSizeBytes,
            @Nullable BufferDecompressor decompressor)
            throws IOException {
        FlinkSortConsumer consumer =
                new FlinkSortConsumer(partitions, subpartition, pageSizeBytes, decompressor);
        Delivered read;
        try {
            read = consumer.readAll();
        } catch (IOException | RuntimeException e) {
            try {
                consumer.releaseViews();
            } catch (IOException | RuntimeException release) {
                e.addSuppressed(release);
            }
            throw e;
        }
        consumer.releaseViews();
        return read;
    }

    private Delivered readAll() throws IOException {
        ResultSubpartitionIndexSet index = new ResultSubpartitionIndexSet(subpartition);
        for (int channel = 0; channel < views.length; channel++) {
            int queuedChannel = channel;
            BufferAvailabilityListener listener = view -> enqueue(queuedChannel);
            views[channel] = partitions.get(channel).createSubpartitionView(index, listener);
        }
        for (int open = views.length; open > 0; ) {
            if (drain(nextChannel())) {
                open--;
            }
        }
        return tally.delivered();
    }

    /** Reads {@code channel}'s buffers until it has none; whether it reached its end. */
    private boolean drain(int channel) throws IOException {
        ResultSubpartitionView view = views[channel];
        if (ended[channel] || view == null) {
            return false; // a notification that came after the end
        }
        for (BufferAndBacklog next = view.getNextBuffer();
                next != null;
                next = view.getNextBuffer()) {
            if (consume(channel, next.buffer())) {
                ended[channel] = true;
                views[channel] = null;
                view.releaseAllResources();
                return true;
            }
        }
        Throwable failure = view.getFailureCause();
        if (failure != null || view.isReleased()) {
            throw new IOException(
                    "consumer "
                            + subpartition
                            + " could not read partition "
                            + channel
                            + ": "
                            + (failure != null ? failure : "its view was released"),
                    failure);
        }
        return false;
    }

    /** Consumes what the reader handed out; whether it held the end of the partition. */
    private boolean consume(int channel, Buffer buffer) throws IOException {
        if (!(buffer instanceof FullyFilledBuffer filled)) {
            return consumeOne(channel, buffer);
        }
        // Each part is recycled on its own, as LocalInputChannel does: recycling the whole as well
        // would recycle every part twice.
        List<Buffer> parts = filled.getPartialBuffers();
        boolean end = false;
        for (int i = 0; i < parts.size(); i++) {
            end |= consumeOne(channel, parts.get(i));
        }
        return end;
    }

    private boolean consumeOne(int channel, Buffer part) throws IOException {
        Buffer full =
                part instanceof CompositeBuffer composite
                        ? composite.getFullBufferData(unpooled)
                        : part;
        try {
            if (!full.isBuffer()) {
                return endOfPartition(channel, full);
            }
            if (!full.isCompressed()) {
                deserializers[channel].read(full.getNioBufferReadable(), tally);
                return false;
            }
            checkState(decompressor != null, "a compressed buffer, but compression is off");
            Buffer plain = decompressor.decompressToIntermediateBuffer(full);
            try {
                deserializers[channel].read(plain.getNioBufferReadable(), tally);
            } finally {
                plain.recycleBuffer();
            }
            return false;
        } finally {
            full.recycleBuffer();
        }
    }

    private boolean endOfPartition(int channel, Buffer event) throws IOException {
        AbstractEvent read = EventSerializer.fromBuffer(event, getClass().getClassLoader());
        checkState(
                read instanceof EndOfPartitionEvent,
                "partition %s sent %s to consumer %s; only the end of partition is expected",
                channel,
                read,
                subpartition);
        checkState(
                !deserializers[channel].hasPartialRecord(),
                "partition %s ended inside a record for consumer %s",
                channel,
                subpartition);
        return true;
    }

    /** Called by Flink's read IO threads: queues {@code channel} unless it is queued. */
    private void enqueue(int channel) {
        synchronized (queue) {
            if (!isQueued[channel]) {
                isQueued[channel] = true;
                queue[(head + queued) % queue.length] = channel;
                if (queued++ == 0) {
                    queue.notifyAll();
                }
            }
        }
    }

    /** The next queued channel, waiting for one. */
    private int nextChannel() throws IOException {
        synchronized (queue) {
            long deadline = System.nanoTime() + STALL_NANOS;
            while (queued == 0) {
                long wait = deadline - System.nanoTime();
                if (wait <= 0) {
                    throw new IOException(
                            "consumer "
                                    + subpartition
                                    + " got no data from any of its partitions for 5 minutes");
                }
                try {
                    queue.wait(TimeUnit.NANOSECONDS.toMillis(wait) + 1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("consumer " + subpartition + " interrupted");
                }
            }
            int channel = queue[head];
            head = (head + 1) % queue.length;
            queued--;
            isQueued[channel] = false;
            return channel;
        }
    }

    /** Releases the views still open (after a failure): their buffers go back to Flink's pool. */
    private void releaseViews() throws IOException {
        IOException failure = null;
        for (int channel = 0; channel < views.length; channel++) {
            ResultSubpartitionView view = views[channel];
            if (view != null) {
                views[channel] = null;
                try {
                    view.releaseAllResources();
                } catch (IOException e) {
                    failure = Failures.add(failure, e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
