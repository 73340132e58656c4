package io.railyard.flink;

import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.ShuffleWorker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.event.AbstractEvent;
import org.apache.flink.runtime.io.network.api.EndOfData;
import org.apache.flink.runtime.io.network.api.EndOfPartitionEvent;
import org.apache.flink.runtime.io.network.api.StopMode;
import org.apache.flink.runtime.io.network.api.writer.ResultPartitionWriter;
import org.apache.flink.runtime.io.network.metrics.ResultPartitionBytesCounter;
import org.apache.flink.runtime.io.network.partition.BufferAvailabilityListener;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionView;
import org.apache.flink.runtime.metrics.groups.TaskIOMetricGroup;
import org.jspecify.annotations.Nullable;

/**
 * A Flink result partition written by Railyard: what a Flink task's record writer writes to.
 * Serialized records are staged per subpartition in a small heap chunk ({@link #chunkBytes}), and
 * each chunk of whole records becomes one Railyard record ({@link FlinkRecords}): Railyard's
 * per-record work is paid per chunk, not per record of a few bytes. Events flush the chunks and are
 * broadcast as event records, and {@link #finish()} ends every subpartition with Flink's
 * end-of-partition event before Railyard's writer finishes. A BLOCKING partition becomes readable
 * when it finishes; a hybrid one as soon as {@link #setup()} created it. Either is registered with
 * the TaskManager's environment, which serves it over Railyard's transport and releases it when
 * Flink says.
 *
 * <p>Memory: Railyard's writer pledges its pages in the TaskManager's one pool at {@link #setup()}
 * ({@link io.railyard.shuffle.partition.ShuffleMemory#writerPages}); a task the pool cannot pledge
 * them to waits there for memory to come back ({@link MemoryWait}).
 *
 * <p>Not thread-safe, as Flink's writers: owned by the task's thread, except {@link #release} and
 * {@link #close()}, which Flink may call from other threads once the task ended.
 */
final class RailyardResultPartition implements ResultPartitionWriter {
    /** The heap a writer's chunks take at most, from 64 subpartitions on (then 256 B each). */
    static final int CHUNKS_BYTES = 256 << 10;

    private final String owner;
    private final RailyardShuffleDescriptor descriptor;
    private final int numSubpartitions;
    private final int numTargetKeyGroups;
    private final ShuffleWorker shuffle;
    private final RailyardShuffleEnvironment environment;

    private io.railyard.shuffle.partition.@Nullable ResultPartitionWriter writer;
    private Counter bytesOut = new SimpleCounter();
    private Counter buffersOut = new SimpleCounter();
    private final ResultPartitionBytesCounter subpartitionBytes;
    private final int chunkBytes;
    private final @Nullable ByteBuffer[] chunks;
    private boolean endOfDataNotified;
    private volatile boolean finished;
    private volatile boolean released;

    RailyardResultPartition(
            String owner,
            RailyardShuffleDescriptor descriptor,
            int numSubpartitions,
            int numTargetKeyGroups,
            ShuffleWorker shuffle,
            RailyardShuffleEnvironment environment) {
        this.owner = owner;
        this.descriptor = descriptor;
        this.numSubpartitions = numSubpartitions;
        this.numTargetKeyGroups = numTargetKeyGroups;
        this.shuffle = shuffle;
        this.environment = environment;
        this.subpartitionBytes = new ResultPartitionBytesCounter(numSubpartitions);
        this.chunkBytes = chunkBytes(numSubpartitions);
        this.chunks = new ByteBuffer[numSubpartitions];
    }

    /**
     * The bytes of a subpartition's chunk: 4 KiB, less from 64 subpartitions on so that a writer's
     * chunks stay within {@value #CHUNKS_BYTES} bytes, and at least 256.
     */
    static int chunkBytes(int numSubpartitions) {
        return Math.max(256, Math.min(4096, CHUNKS_BYTES / Math.max(1, numSubpartitions)));
    }

    /**
     * Creates Railyard's writer (pledging its pages and creating its file), waiting for memory to
     * come back if the pool cannot pledge them now ({@link MemoryWait}); a hybrid partition is
     * readable from now on.
     */
    @Override
    public void setup() throws IOException {
        if (writer != null) {
            throw new IllegalStateException(this + " is set up already");
        }
        io.railyard.shuffle.partition.ResultPartitionWriter created =
                MemoryWait.create(
                        shuffle.bufferPool(),
                        () ->
                                shuffle.createPartition(
                                        descriptor.railyardId(),
                                        numSubpartitions,
                                        descriptor.kind()));
        writer = created;
        ResultPartition readable = created.readablePartition().orElse(null);
        if (readable != null) {
            environment.hold(descriptor, readable);
        }
    }

    private io.railyard.shuffle.partition.ResultPartitionWriter writer() {
        io.railyard.shuffle.partition.ResultPartitionWriter current = writer;
        if (current == null) {
            throw new IllegalStateException(this + " is not set up");
        }
        return current;
    }

    @Override
    public ResultPartitionID getPartitionId() {
        return descriptor.getResultPartitionID();
    }

    @Override
    public int getNumberOfSubpartitions() {
        return numSubpartitions;
    }

    @Override
    public int getNumTargetKeyGroups() {
        return numTargetKeyGroups;
    }

    /** Railyard's writers take no overdraft: their pages are pledged up front. */
    @Override
    public void setMaxOverdraftBuffersPerGate(int maxOverdraftBuffersPerGate) {}

    /**
     * Stages the record in its subpartition's chunk; a full chunk goes to Railyard's writer as one
     * record (a record as large as a chunk goes alone, after the chunk before it).
     */
    @Override
    public void emitRecord(ByteBuffer record, int targetSubpartition) throws IOException {
        int bytes = record.remaining();
        bytesOut.inc(bytes);
        subpartitionBytes.inc(targetSubpartition, bytes);
        ByteBuffer chunk = chunks[targetSubpartition];
        if (chunk == null) {
            chunk = ByteBuffer.allocate(chunkBytes);
            chunks[targetSubpartition] = chunk;
        }
        if (bytes > chunk.remaining()) {
            flush(targetSubpartition, chunk);
            if (bytes >= chunkBytes) {
                writer().emit(record, targetSubpartition);
                return;
            }
        }
        put(chunk, record);
    }

    /**
     * Copies {@code record} into {@code chunk}. Flink serializes into heap arrays, and a record of
     * a few bytes copies several times faster with {@code System.arraycopy} than with {@code
     * ByteBuffer.put(ByteBuffer)}, whose checks cost more than the copy (profiled: half the source
     * task's time for 13-byte records).
     */
    private static void put(ByteBuffer chunk, ByteBuffer record) {
        if (record.hasArray()) {
            int bytes = record.remaining();
            int at = chunk.position();
            System.arraycopy(
                    record.array(),
                    record.arrayOffset() + record.position(),
                    chunk.array(),
                    chunk.arrayOffset() + at,
                    bytes);
            chunk.position(at + bytes);
            record.position(record.limit());
        } else {
            chunk.put(record);
        }
    }

    /** Writes what {@code chunk} staged for {@code subpartition} as one Railyard record. */
    private void flush(int subpartition, ByteBuffer chunk) throws IOException {
        if (chunk.position() > 0) {
            chunk.flip();
            writer().emit(chunk, subpartition);
            chunk.clear();
        }
    }

    /** Writes every staged chunk: what follows goes to every subpartition after them. */
    private void flushChunks() throws IOException {
        for (int s = 0; s < chunks.length; s++) {
            ByteBuffer chunk = chunks[s];
            if (chunk != null) {
                flush(s, chunk);
            }
        }
    }

    @Override
    public void broadcastRecord(ByteBuffer record) throws IOException {
        bytesOut.inc((long) record.remaining() * numSubpartitions);
        subpartitionBytes.incAll(record.remaining());
        flushChunks();
        writer().broadcast(record);
    }

    @Override
    public void broadcastEvent(AbstractEvent event, boolean isPriorityEvent) throws IOException {
        flushChunks();
        writer().broadcast(FlinkRecords.event(event));
    }

    /** Checkpoints are not served: Railyard's partitions are batch partitions. */
    @Override
    public void alignedBarrierTimeout(long checkpointId) {}

    /** Checkpoints are not served: Railyard's partitions are batch partitions. */
    @Override
    public void abortCheckpoint(long checkpointId, CheckpointException cause) {}

    @Override
    public void notifyEndOfData(StopMode mode) throws IOException {
        if (!endOfDataNotified) {
            endOfDataNotified = true;
            broadcastEvent(new EndOfData(mode), false);
        }
    }

    @Override
    public CompletableFuture<Void> getAllDataProcessedFuture() {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Feeds the task's output counters and registers the bytes per subpartition, which Flink's
     * adaptive batch scheduler reads to size the consumers.
     */
    @Override
    public void setMetricGroup(TaskIOMetricGroup metrics) {
        this.bytesOut = metrics.getNumBytesOutCounter();
        this.buffersOut = metrics.getNumBuffersOutCounter();
        metrics.registerResultPartitionBytesCounter(
                getPartitionId().getPartitionId(), subpartitionBytes);
    }

    /** Flink's own network stack never reads a Railyard partition. */
    @Override
    public ResultSubpartitionView createSubpartitionView(
            ResultSubpartitionIndexSet indexSet, BufferAvailabilityListener listener) {
        throw new UnsupportedOperationException(
                "partition "
                        + getPartitionId()
                        + " is served by Railyard's transport, not Flink's");
    }

    /** Railyard hands pages to readers as they fill (hybrid) or at the end (blocking). */
    @Override
    public void flushAll() {}

    @Override
    public void flush(int subpartitionIndex) {}

    /** Nothing to wait for: Railyard's writer waits inside a write when it must. */
    @Override
    public CompletableFuture<?> getAvailableFuture() {
        return AVAILABLE;
    }

    @Override
    public void fail(@Nullable Throwable cause) {
        release(cause);
    }

    /**
     * Ends every subpartition with Flink's end-of-partition event, finishes Railyard's writer and,
     * for a blocking partition, makes it readable.
     */
    @Override
    public void finish() throws IOException {
        broadcastEvent(EndOfPartitionEvent.INSTANCE, false);
        io.railyard.shuffle.partition.ResultPartitionWriter current = writer();
        ResultPartition done = current.finish();
        buffersOut.inc(numSubpartitions);
        if (current.readablePartition().isEmpty()) {
            environment.hold(descriptor, done);
        }
        finished = true;
    }

    @Override
    public boolean isFinished() {
        return finished;
    }

    /**
     * Abandons an unfinished partition (its files go, its pages come back) and releases a finished
     * or readable one: its readers fail with Flink's {@code PartitionNotFoundException}.
     */
    @Override
    public void release(@Nullable Throwable cause) {
        if (released) {
            return;
        }
        released = true;
        io.railyard.shuffle.partition.ResultPartitionWriter current = writer;
        if (current != null) {
            current.close();
        }
        environment.releaseLocally(getPartitionId());
    }

    @Override
    public boolean isReleased() {
        return released;
    }

    /**
     * Returns an unfinished partition's resources (a failed or cancelled task); a finished one
     * stays until Flink releases it.
     */
    @Override
    public void close() {
        if (!finished) {
            release(null);
        }
    }

    @Override
    public String toString() {
        return "RailyardResultPartition{" + owner + ", " + descriptor + "}";
    }
}
