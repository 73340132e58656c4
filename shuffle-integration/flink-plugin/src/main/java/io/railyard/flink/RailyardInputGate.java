package io.railyard.flink;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.InputGate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.core.memory.MemorySegmentProvider;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.checkpoint.channel.ChannelStateWriter;
import org.apache.flink.runtime.checkpoint.channel.InputChannelInfo;
import org.apache.flink.runtime.event.AbstractEvent;
import org.apache.flink.runtime.event.TaskEvent;
import org.apache.flink.runtime.io.network.TaskEventDispatcher;
import org.apache.flink.runtime.io.network.api.EndOfData;
import org.apache.flink.runtime.io.network.api.EndOfPartitionEvent;
import org.apache.flink.runtime.io.network.api.StopMode;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.buffer.BufferRecycler;
import org.apache.flink.runtime.io.network.buffer.NetworkBuffer;
import org.apache.flink.runtime.io.network.partition.PartitionNotFoundException;
import org.apache.flink.runtime.io.network.partition.ResultPartitionManager;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.runtime.io.network.partition.consumer.BufferOrEvent;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.apache.flink.runtime.io.network.partition.consumer.InputChannel;
import org.apache.flink.runtime.io.network.partition.consumer.LocalInputChannel;
import org.apache.flink.runtime.io.network.partition.consumer.SingleInputGate;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.throughput.ThroughputCalculator;
import org.apache.flink.util.clock.SystemClock;
import org.jspecify.annotations.Nullable;

/**
 * A Flink input gate over Railyard partitions: channel {@code i} reads one subpartition of the i-th
 * partition of the gate's deployment descriptor, through a Railyard {@link InputGate} opened when
 * Flink requests the partitions. Each Railyard record is a chunk of whole Flink records ({@link
 * FlinkRecords}): a chunk inside one Railyard buffer is handed to the task as a Flink buffer over
 * those bytes, without a copy; small chunks and chunks split across Railyard buffers are packed
 * into Flink buffers of one page, in order per channel. Each event record becomes the event it
 * carries, so Flink's record deserializers, end-of-data and end-of-partition handling work as on
 * Flink's own gates.
 *
 * <p>Failures: a Railyard partition lost, released, corrupt or whose TaskManager cannot be reached
 * surfaces as Flink's {@link PartitionNotFoundException} for that channel's partition, which
 * Flink's failover answers by rerunning the producer.
 *
 * <p>Memory: the Railyard gate's pledged pages, plus off-heap Flink buffers for packed chunks, one
 * page each, reused: a buffer comes back when the task recycles it, and the gate reads Railyard's
 * next buffer only when the task took every Flink buffer of the last one (a handful in all). A
 * Railyard buffer lent as slices goes back to Railyard's gate when the task recycled the last of
 * them, or when the gate closes (also from the TaskManager's shutdown, {@link #abandon}), whichever
 * comes first.
 *
 * <p>Threading: the task's thread polls, requests and closes, as for Flink's gates; buffers may be
 * recycled from any thread. O(bytes) per poll, plus O(1) per record.
 */
final class RailyardInputGate extends IndexedInputGate {
    /**
     * A chunk at least this large is lent to the task as a slice of Railyard's buffer; a smaller
     * one is copied, since a Flink buffer costs more to hand over than to copy so few bytes.
     */
    static final int SLICE_BYTES = 1024;

    private final String owner;
    private final int gateIndex;
    private final IntermediateDataSetID dataset;
    private final ResultPartitionType consumedType;
    private final List<RailyardShuffleDescriptor> partitions;
    private final int[] firstSubpartition;
    private final int[] lastSubpartition;
    private final int[] flinkChannel;
    private final int[] streamSubpartition;
    private final int[] endOfPartitions;
    private final int[] endOfDatas;
    private final int pageSize;
    private final Opener opener;
    private final List<InputChannelInfo> channelInfos;
    private final boolean[] ended;
    private final RecordDecoder decoder;
    private final ArrayDeque<BufferOrEvent> ready = new ArrayDeque<>();
    private final ConcurrentLinkedQueue<MemorySegment> free = new ConcurrentLinkedQueue<>();
    private final @Nullable InputChannel[] fakeChannels;

    private final Consumer<RailyardInputGate> onClose;

    private volatile @Nullable InputGate gate;
    private @Nullable MemorySegment packing;
    private int packed;
    private int endedChannels;
    private int endOfData;
    private boolean drain = true;
    private boolean checkpointingDuringRecovery;

    /** Guards {@link #closed} and {@link #lent}: the task recycles from any thread. */
    private final Object leases = new Object();

    @GuardedBy("leases")
    private boolean closed;

    /** Railyard buffers lent as slices and not given back yet (one at a time, two at most). */
    @GuardedBy("leases")
    private final Set<Lease> lent = new HashSet<>();

    RailyardInputGate(
            String owner,
            int gateIndex,
            IntermediateDataSetID dataset,
            ResultPartitionType consumedType,
            List<RailyardShuffleDescriptor> partitions,
            int[] firstSubpartition,
            int[] lastSubpartition,
            int pageSize,
            Opener opener,
            Consumer<RailyardInputGate> onClose) {
        this.owner = owner;
        this.gateIndex = gateIndex;
        this.dataset = dataset;
        this.consumedType = consumedType;
        this.partitions = List.copyOf(partitions);
        this.firstSubpartition = firstSubpartition.clone();
        this.lastSubpartition = lastSubpartition.clone();
        this.pageSize = pageSize;
        this.opener = opener;
        this.onClose = onClose;
        int n = partitions.size();
        int streams = 0;
        for (int i = 0; i < n; i++) {
            streams += lastSubpartition[i] - firstSubpartition[i] + 1;
        }
        this.flinkChannel = new int[streams];
        this.streamSubpartition = new int[streams];
        int c = 0;
        for (int i = 0; i < n; i++) {
            for (int s = firstSubpartition[i]; s <= lastSubpartition[i]; s++, c++) {
                flinkChannel[c] = i;
                streamSubpartition[c] = s;
            }
        }
        this.endOfPartitions = new int[n];
        this.endOfDatas = new int[n];
        List<InputChannelInfo> infos = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            infos.add(new InputChannelInfo(gateIndex, i));
        }
        this.channelInfos = List.copyOf(infos);
        this.ended = new boolean[n];
        this.decoder = new RecordDecoder(streams);
        this.fakeChannels = new InputChannel[n];
    }

    /** The gate's name, as its Railyard gate is named in the pool. */
    String name() {
        return owner + " gate " + gateIndex;
    }

    /**
     * The Railyard channels to open: channel c reads subpartition {@code subpartitions()[c]} of
     * {@code streams()[c]}; a Flink channel that reads subpartitions [a, b] of its partition is b -
     * a + 1 Railyard channels, in order.
     */
    List<RailyardShuffleDescriptor> streams() {
        List<RailyardShuffleDescriptor> streams = new ArrayList<>(flinkChannel.length);
        for (int channel : flinkChannel) {
            streams.add(partitions.get(channel));
        }
        return streams;
    }

    /** The subpartition each Railyard channel reads. */
    int[] subpartitions() {
        return streamSubpartition.clone();
    }

    @Override
    public void setup() {}

    /** Opens a gate's Railyard gate. */
    @FunctionalInterface
    interface Opener {
        InputGate open(RailyardInputGate gate) throws IOException;
    }

    /**
     * Opens the Railyard gate (it starts reading at once; it may wait for memory first).
     * Idempotent.
     */
    @Override
    public void requestPartitions() throws IOException {
        if (gate == null) {
            InputGate opened;
            try {
                opened = opener.open(this);
            } catch (PartitionLostException e) {
                throw notFound(e);
            }
            synchronized (leases) {
                if (closed) {
                    opened.close();
                    throw new IOException(name() + " was closed while it opened");
                }
                gate = opened;
            }
        }
    }

    private InputGate gate() throws IOException {
        requestPartitions();
        InputGate opened = gate;
        if (opened == null) {
            throw new IllegalStateException(name() + " could not open");
        }
        return opened;
    }

    @Override
    public Optional<BufferOrEvent> pollNext() throws IOException {
        while (ready.isEmpty() && endedChannels < ended.length) {
            InputGate.Buffer buffer;
            try {
                buffer = gate().poll();
            } catch (PartitionLostException e) {
                throw notFound(e);
            }
            if (buffer == null) {
                return Optional.empty();
            }
            Lease lease = new Lease(buffer);
            try {
                unpack(buffer.channel(), lease);
            } finally {
                lease.release();
            }
        }
        BufferOrEvent next = ready.poll();
        if (next == null) {
            return Optional.empty();
        }
        next.setMoreAvailable(!ready.isEmpty());
        return Optional.of(next);
    }

    @Override
    public Optional<BufferOrEvent> getNext() throws IOException, InterruptedException {
        while (true) {
            Optional<BufferOrEvent> next = pollNext();
            if (next.isPresent() || isFinished()) {
                return next;
            }
            try {
                getAvailableFuture().get();
            } catch (ExecutionException e) {
                throw new IOException(name() + " failed", e.getCause());
            }
        }
    }

    /**
     * Turns one Railyard buffer of Railyard channel {@code stream} into Flink buffers and events: a
     * chunk of records inside the buffer and of at least {@value #SLICE_BYTES} bytes becomes a
     * Flink buffer over those very bytes (the lease's slice); smaller ones, and a chunk assembled
     * from several Railyard buffers, are packed into page-size Flink buffers (copied).
     */
    private void unpack(int stream, Lease lease) throws IOException {
        int channel = flinkChannel[stream];
        ByteBuffer data = lease.data();
        try {
            decoder.decode(
                    stream,
                    data,
                    (s, record) -> {
                        int c = flinkChannel[s];
                        if (FlinkRecords.isEvent(record)) {
                            flushPacked(c);
                            try {
                                onEvent(c, FlinkRecords.readEvent(record, classLoader()));
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        } else if (isViewOf(record, data)
                                && record.remaining() >= SLICE_BYTES
                                && lease.canSlice()) {
                            flushPacked(c);
                            ready.add(
                                    new BufferOrEvent(
                                            lease.slice(record), channelInfos.get(c), true, false));
                        } else {
                            pack(c, record);
                        }
                    });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } catch (IllegalArgumentException e) {
            throw notFound(channel, new IOException("corrupt records in " + name(), e));
        }
        flushPacked(channel);
    }

    /**
     * Whether the decoder handed {@code record} as a view of {@code data}: a record inside the
     * buffer is that very buffer, narrowed ({@link RecordDecoder.RecordSink}).
     */
    @SuppressWarnings("ReferenceEquality") // identity is the decoder's contract
    private static boolean isViewOf(ByteBuffer record, ByteBuffer data) {
        return record == data;
    }

    private ClassLoader classLoader() {
        return RailyardInputGate.class.getClassLoader();
    }

    private void pack(int channel, ByteBuffer record) {
        while (record.hasRemaining()) {
            MemorySegment segment = packing;
            if (segment == null) {
                MemorySegment reused = free.poll();
                segment =
                        reused != null
                                ? reused
                                : MemorySegmentFactory.allocateUnpooledOffHeapMemory(pageSize);
                packing = segment;
                packed = 0;
            }
            int n = Math.min(record.remaining(), pageSize - packed);
            segment.put(packed, record, n);
            packed += n;
            if (packed == pageSize) {
                flushPacked(channel);
            }
        }
    }

    private void flushPacked(int channel) {
        MemorySegment segment = packing;
        if (segment == null) {
            return;
        }
        packing = null;
        NetworkBuffer buffer =
                new NetworkBuffer(segment, free::add, Buffer.DataType.DATA_BUFFER, packed);
        ready.add(new BufferOrEvent(buffer, channelInfos.get(channel), true, false));
    }

    /**
     * Hands an event to the task. A channel reading several subpartitions hands on their last
     * end-of-data and end-of-partition events only, as Flink's own channels do.
     */
    private void onEvent(int channel, AbstractEvent event) {
        int subpartitions = lastSubpartition[channel] - firstSubpartition[channel] + 1;
        if (event instanceof EndOfPartitionEvent) {
            if (++endOfPartitions[channel] < subpartitions) {
                return;
            }
            if (!ended[channel]) {
                ended[channel] = true;
                endedChannels++;
            }
        } else if (event instanceof EndOfData endOfDataEvent) {
            drain &= endOfDataEvent.getStopMode() == StopMode.DRAIN;
            if (++endOfDatas[channel] < subpartitions) {
                return;
            }
            endOfData++;
        }
        ready.add(new BufferOrEvent(event, false, channelInfos.get(channel), true, 0, false));
    }

    private PartitionNotFoundException notFound(PartitionLostException e) {
        for (int i = 0; i < partitions.size(); i++) {
            if (partitions.get(i).railyardId().equals(e.partitionId())) {
                return notFound(i, e);
            }
        }
        return notFound(0, e);
    }

    private PartitionNotFoundException notFound(int channel, IOException cause) {
        PartitionNotFoundException notFound =
                new PartitionNotFoundException(partitions.get(channel).getResultPartitionID());
        notFound.initCause(cause);
        return notFound;
    }

    /** Available when a buffer or event is ready, the gate ended, or Railyard's gate has data. */
    @Override
    public CompletableFuture<?> getAvailableFuture() {
        if (!ready.isEmpty() || endedChannels == ended.length) {
            return AVAILABLE;
        }
        InputGate opened = gate;
        // Not requested yet: available, so that the task polls, which opens it.
        return opened == null ? AVAILABLE : opened.availability();
    }

    @Override
    public boolean isFinished() {
        return endedChannels == ended.length && ready.isEmpty();
    }

    @Override
    public EndOfDataStatus hasReceivedEndOfData() {
        if (endOfData < ended.length) {
            return EndOfDataStatus.NOT_END_OF_DATA;
        }
        return drain ? EndOfDataStatus.DRAINED : EndOfDataStatus.STOPPED;
    }

    @Override
    public int getNumberOfInputChannels() {
        return partitions.size();
    }

    @Override
    public List<InputChannelInfo> getChannelInfos() {
        return channelInfos;
    }

    @Override
    public int getGateIndex() {
        return gateIndex;
    }

    @Override
    public List<InputChannelInfo> getUnfinishedChannels() {
        List<InputChannelInfo> unfinished = new ArrayList<>();
        for (int i = 0; i < ended.length; i++) {
            if (!ended[i]) {
                unfinished.add(channelInfos.get(i));
            }
        }
        return unfinished;
    }

    @Override
    public ResultPartitionType getConsumedPartitionType() {
        return consumedType;
    }

    @Override
    public void triggerDebloating() {}

    @Override
    public void setCheckpointingDuringRecoveryEnabled(boolean enabled) {
        this.checkpointingDuringRecovery = enabled;
    }

    @Override
    public boolean isCheckpointingDuringRecoveryEnabled() {
        return checkpointingDuringRecovery;
    }

    /**
     * A stand-in channel for Flink code that asks a gate for its channels (metrics, channel infos):
     * it names the channel's partition and is never read.
     */
    @Override
    public InputChannel getChannel(int channelIndex) {
        InputChannel channel = fakeChannels[channelIndex];
        if (channel == null) {
            channel = standIn(channelIndex);
            fakeChannels[channelIndex] = channel;
        }
        return channel;
    }

    private InputChannel standIn(int channelIndex) {
        SingleInputGate standInGate =
                new SingleInputGate(
                        owner,
                        gateIndex,
                        dataset,
                        consumedType,
                        1,
                        (resultId, partitionId, callback) -> {},
                        () -> {
                            throw new IOException("a stand-in gate has no buffer pool");
                        },
                        null,
                        new NoSegments(),
                        pageSize,
                        new ThroughputCalculator(SystemClock.getInstance()),
                        null);
        return new LocalInputChannel(
                standInGate,
                channelIndex,
                partitions.get(channelIndex).getResultPartitionID(),
                // One subpartition even for a channel that reads several: Railyard's writers are
                // not Flink ResultPartitions, so Flink writes plain watermarks into every
                // subpartition, and a task's watermark valve reads them as the channel's. Exact in
                // batch execution, where the only watermark is the final one.
                new ResultSubpartitionIndexSet(firstSubpartition[channelIndex]),
                new ResultPartitionManager(),
                new TaskEventDispatcher(),
                0,
                0,
                new SimpleCounter(),
                new SimpleCounter(),
                ChannelStateWriter.NO_OP,
                new ArrayDeque<>());
    }

    /** Task events (iterations) are not served by Railyard's shuffle. */
    @Override
    public void sendTaskEvent(TaskEvent event) {
        throw new UnsupportedOperationException(
                name() + ": task events are not served by Railyard's shuffle");
    }

    @Override
    public void resumeGateConsumption() {}

    @Override
    public void resumeConsumption(InputChannelInfo channelInfo) {}

    @Override
    public void acknowledgeAllRecordsProcessed(InputChannelInfo channelInfo) {}

    @Override
    public CompletableFuture<Void> getStateConsumedFuture() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> getBufferFilteringCompleteFuture() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void finishReadRecoveredState() {}

    /**
     * Closes the Railyard gate (its pages come back, lent ones too: the task reads no more) and
     * drops what was not polled.
     */
    @Override
    public void close() {
        abandon();
        BufferOrEvent next;
        while ((next = ready.poll()) != null) {
            if (next.isBuffer()) {
                next.getBuffer().recycleBuffer();
            }
        }
        packing = null;
        onClose.accept(this);
    }

    /**
     * Closes the Railyard gate from any thread (the TaskManager shutting down under a task that has
     * not closed its gates yet): its buffers, lent ones too, go back to the pool, and the task's
     * later recycles give nothing back. Idempotent; the task's next poll fails.
     */
    void abandon() {
        InputGate opened;
        List<Lease> out;
        synchronized (leases) {
            closed = true;
            opened = gate;
            out = List.copyOf(lent);
        }
        for (Lease lease : out) {
            lease.giveBack();
        }
        if (opened != null) {
            opened.close();
        }
    }

    @Override
    public String toString() {
        return "RailyardInputGate{" + name() + ", " + partitions.size() + " channels}";
    }

    /**
     * A Railyard buffer lent to the task: each chunk it slices is a Flink buffer over the Railyard
     * buffer's own bytes, and the buffer goes back to Railyard's gate exactly once: when the task
     * has recycled every slice and the gate has {@link #release released} its own hold (Flink's
     * reference count of the whole), or when the gate closes, whichever is first. After that the
     * task's recycles give nothing back (its gate is closed: it reads no more).
     */
    private final class Lease implements BufferRecycler {
        private final InputGate.Buffer railyard;
        private final ByteBuffer data;
        private @Nullable NetworkBuffer whole;

        @GuardedBy("leases")
        private boolean returned;

        Lease(InputGate.Buffer railyard) {
            this.railyard = railyard;
            this.data = railyard.data();
        }

        ByteBuffer data() {
            return data;
        }

        /**
         * Whether the buffer is off-heap, as Railyard's pages are. Heap bytes are copied instead:
         * every segment the task reads stays off-heap, so the JIT compiles Flink's deserializer for
         * one kind of memory (mixing heap and off-heap segments doubled its share of a task's time,
         * profiled).
         */
        boolean canSlice() {
            return data.isDirect();
        }

        /** A Flink buffer over {@code record[position, limit)}, a view of {@link #data()}. */
        Buffer slice(ByteBuffer record) {
            NetworkBuffer shared = whole;
            if (shared == null) {
                MemorySegment memory = MemorySegmentFactory.wrapOffHeapMemory(data);
                shared =
                        new NetworkBuffer(memory, this, Buffer.DataType.DATA_BUFFER, memory.size());
                whole = shared;
                synchronized (leases) {
                    lent.add(this);
                }
            }
            shared.retainBuffer();
            return shared.readOnlySlice(record.position(), record.remaining());
        }

        /**
         * Drops the gate's hold: the buffer goes back now if no slice is out. One that lent nothing
         * was never seen by another thread and goes back without the lock.
         */
        void release() {
            NetworkBuffer shared = whole;
            if (shared == null) {
                railyard.recycle();
            } else {
                shared.recycleBuffer();
            }
        }

        /** The last slice came back. */
        @Override
        public void recycle(MemorySegment memorySegment) {
            giveBack();
        }

        /** Returns the Railyard buffer, the first time only. */
        void giveBack() {
            synchronized (leases) {
                if (returned) {
                    return;
                }
                returned = true;
                lent.remove(this);
            }
            railyard.recycle();
        }
    }

    /** A stand-in gate's segment provider: it never hands out memory. */
    private static final class NoSegments implements MemorySegmentProvider {
        @Override
        public Collection<MemorySegment> requestUnpooledMemorySegments(int numberOfSegments)
                throws IOException {
            throw new IOException("a stand-in gate has no memory");
        }

        @Override
        public void recycleUnpooledMemorySegments(Collection<MemorySegment> segments) {}
    }
}
