package io.railyard.shuffle.partition;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.FrameContext;
import io.railyard.shuffle.format.FrameHeader;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A gate's reads of resident regions where they lie, on the consumer's thread: one section at a
 * time, each frame checked (lengths, lane, order within the section, checksum) and handed over as a
 * view of the region's page — a compressed one decompressed into a page of the gate. The region
 * stays pinned until the last buffer of the section came back; then the subpartition has passed it,
 * and its pages may go.
 *
 * <p>Not thread-safe: confined to the gate's consumer, but for the buffers, which may be recycled
 * from any thread (a section counts them atomically). Per frame it allocates the buffer handed over
 * and its view; per section a small record.
 */
final class MemoryReads {
    /** Makes the codec of a gate's memory reads, at the first one (few gates ever read memory). */
    @FunctionalInterface
    interface Frames {
        FrameCodec codec();

        /** The frames of partitions written with {@code options}. */
        static Frames of(ShuffleOptions options) {
            return () -> new FrameCodec(options);
        }
    }

    private final LocalInputGate gate;
    private final int subpartition;
    private final Frames frames;
    private final LaneOrder order;
    private final FrameHeader header = new FrameHeader();
    private final FrameContext context = new FrameContext();
    private @Nullable FrameCodec codec;
    private @Nullable Section section;

    MemoryReads(LocalInputGate gate, int subpartition, Frames frames) {
        this.gate = gate;
        this.subpartition = subpartition;
        this.frames = frames;
        this.order = LaneOrder.fromAny(subpartition);
    }

    /** Whether a section is being read (it has frames left, or waits for room for one). */
    boolean reading() {
        return section != null;
    }

    /**
     * Starts reading channel {@code index}'s section of {@code region} in memory: false, starting
     * nothing, if the region is not resident (the gate reads it from disk).
     *
     * @throws PartitionLostException if the partition is lost, or (read once) the subpartition read
     *     the region before
     */
    boolean start(int index, HybridRegion region) throws PartitionLostException {
        HybridPartition partition = region.partition();
        Page[] pages = partition.pinForReading(region, subpartition, gate.feed());
        if (pages == null) {
            return false;
        }
        int s = region.section(subpartition);
        int from = region.sectionStart(s);
        section = new Section(index, region, pages, from, from + region.sectionLength(s));
        order.restartAnywhere();
        return true;
    }

    /**
     * The section's next frame as a buffer; null at its end ({@link #reading()} is false then), or
     * when a compressed frame finds no room in the gate's pages (still reading: the gate is woken
     * by the next recycle).
     *
     * @throws PartitionLostException if a frame fails a check ({@code
     *     CorruptPartitionFileException})
     */
    InputGate.@Nullable Buffer next() throws PartitionLostException {
        Section read = section;
        if (read == null) {
            return null;
        }
        if (read.at >= read.end) {
            section = null;
            read.release(true);
            return null;
        }
        int[] starts = read.region.pageStart();
        while (read.at >= starts[read.page + 1]) {
            read.page++;
        }
        ByteBuffer page = read.view();
        int inPage = read.at - starts[read.page];
        HybridPartition partition = read.region.partition();
        context.at(partition.id(), partition.dataFile(), read.at).inMemory(read.region.index());
        FrameCodec frameCodec = codec();
        FrameHeader frame = header.wrap(page, inPage);
        int length = frameCodec.frameLength(frame, context);
        if (length > read.end - read.at
                || inPage + length > starts[read.page + 1] - starts[read.page]) {
            throw context.corrupt("frame of " + length + " bytes runs past its section or page");
        }
        order.check(frame, context);
        ByteBuffer stored = page.slice(inPage + FrameHeader.BYTES, length - FrameHeader.BYTES);
        InputGate.Buffer buffer;
        if (FrameCodec.isCompressed(frame)) {
            LocalBuffer into = gate.tryTake(read.index, frame.uncompressedLength());
            if (into == null) {
                gate.wantRoom();
                return null;
            }
            try {
                frameCodec.open(frame, stored, into.data(), context);
            } catch (PartitionLostException e) {
                into.discard();
                throw e;
            }
            buffer = into;
        } else {
            frameCodec.verify(frame, stored, context);
            read.out.incrementAndGet();
            buffer = new InPlaceBuffer(read, stored);
        }
        order.count(frame);
        read.at += length;
        read.bytes += length;
        return buffer;
    }

    /** The gate closed while reading a section: it lets go of it (read once: its data goes). */
    void abandon() {
        Section read = section;
        if (read != null) {
            section = null;
            read.release(false);
        }
    }

    private FrameCodec codec() {
        FrameCodec made = codec;
        if (made == null) {
            made = frames.codec();
            codec = made;
        }
        return made;
    }

    /**
     * One section being read: its region's pinned pages, the stream bytes {@code [at, end)} still
     * to read, and the buffers out of it (plus one for the reader while it reads), atomically: the
     * last to come back ends the read with the partition.
     */
    private final class Section {
        final int index;
        final HybridRegion region;
        final Page[] pages;
        final int end;
        final AtomicInteger out = new AtomicInteger(1);
        int at;
        int page;
        int bytes;
        private @Nullable ByteBuffer view;
        private int viewed = -1;
        private volatile boolean completed;

        Section(int index, HybridRegion region, Page[] pages, int from, int end) {
            this.index = index;
            this.region = region;
            this.pages = pages;
            this.at = from;
            this.end = end;
            this.page = region.pageOf(from);
        }

        /** A view of the current page of its own (other consumers may read the same page). */
        ByteBuffer view() {
            ByteBuffer current = view;
            if (current == null || viewed != page) {
                current = pages[page].buffer().duplicate();
                view = current;
                viewed = page;
            }
            return current.clear();
        }

        /** One reference to the section is done; the last ends the read. */
        void release(boolean readToTheEnd) {
            if (readToTheEnd) {
                completed = true;
            }
            if (out.decrementAndGet() == 0) {
                region.partition().readInMemory(region, subpartition, bytes, completed);
            }
        }
    }

    /** A frame's payload, where it lies in a resident region's page. */
    private static final class InPlaceBuffer implements InputGate.Buffer {
        private final Section section;
        private final ByteBuffer data;
        private final AtomicInteger recycled = new AtomicInteger();

        InPlaceBuffer(Section section, ByteBuffer data) {
            this.section = section;
            this.data = data;
        }

        @Override
        public int channel() {
            return section.index;
        }

        @Override
        public ByteBuffer data() {
            return data;
        }

        @Override
        public void recycle() {
            if (recycled.getAndIncrement() != 0) {
                throw new IllegalStateException(
                        "buffer of channel " + section.index + " recycled twice");
            }
            section.release(false);
        }
    }
}
