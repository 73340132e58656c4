package io.railyard.shuffle.partition;

import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.LaneStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The sort buffer that the sort-based and the hybrid writers share: records appended in arrival
 * order into a fixed set of pages, linked per subpartition, and drained as one <em>region</em>:
 * subpartition after subpartition, each a section of frames in its lane, through a {@link
 * LaneStream}. Memory is the given pages whatever the number of subpartitions; the heap holds three
 * ints per subpartition from the first unicast record on.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>A record in the buffer is {@code length (4) | next record of its subpartition (4) | bytes};
 *       headers never straddle pages, bytes may. A record that could not fit even an empty buffer
 *       is drained as a region of its own, streamed straight into frames ({@link #drainAlone}).
 *   <li>Broadcast records are buffered once and drained as one section that every subpartition
 *       reads (lane {@link FrameCodec#BROADCAST_LANE}). A switch between broadcast and unicast
 *       records needs a drain first ({@link #tryAppend} refuses), which keeps the order of both
 *       kinds within every subpartition.
 *   <li>Frame numbers continue across regions per lane, so a reader checks continuity over the
 *       whole stream.
 * </ul>
 *
 * <p>Not thread-safe: owned by the producing task's thread. Appending is O(record length) and
 * allocates nothing; draining is O(subpartitions + buffered bytes).
 */
final class SortBuffer {
    /** What hears of each section as a region is drained. */
    interface SectionSink {
        /**
         * The section of {@code lane} (a subpartition, or {@link FrameCodec#BROADCAST_LANE} for the
         * one section every subpartition reads) ended; its sealed frames total {@code bytes}.
         */
        void section(int lane, long bytes) throws IOException;
    }

    /** What a writer does when a record does not fit: {@link #append}'s two ways out. */
    interface Overflow {
        /** Drains what the buffer holds as a region (it is not empty). */
        void spill() throws IOException;

        /** Writes {@code record} alone as a region ({@link #drainAlone}); the buffer is empty. */
        void writeAlone(ByteBuffer record, int lane) throws IOException;
    }

    // A buffered record's header (see the design notes): length, then the next record's position.
    private static final int RECORD_LENGTH_OFFSET = 0;
    private static final int RECORD_NEXT_OFFSET = 4;
    private static final int RECORD_HEADER = 8;
    private static final int NONE = -1;
    private static final int EMPTY = 0;
    private static final int UNICAST = 1;
    private static final int BROADCAST = 2;
    private static final int[] NO_LANES = new int[0];

    private final ByteBuffer[] arena;
    private final int pageSize;
    private final int capacity;
    private final int numSubpartitions;
    // Per subpartition: its first and last buffered record, and its lane's next frame number —
    // made at the first unicast record, so a producer that writes nothing costs no array of n.
    private int[] first = NO_LANES;
    private int[] last = NO_LANES;
    private int[] sequence = NO_LANES;
    private int broadcastFirst = NONE;
    private int broadcastLast = NONE;
    private int broadcastSequence;
    private int mode = EMPTY;
    private int position;

    /** A buffer over {@code arena} (pages of {@code pageSize} bytes) for {@code n} lanes. */
    SortBuffer(ByteBuffer[] arena, int pageSize, int numSubpartitions) {
        this.arena = arena;
        this.pageSize = pageSize;
        this.capacity = arena.length * pageSize;
        this.numSubpartitions = numSubpartitions;
    }

    /** The per-subpartition arrays, made at the first unicast record (or region). */
    private void lanes() {
        if (first == NO_LANES) {
            first = new int[numSubpartitions];
            last = new int[numSubpartitions];
            sequence = new int[numSubpartitions];
            Arrays.fill(first, NONE);
            Arrays.fill(last, NONE);
        }
    }

    /** Whether nothing is buffered. */
    boolean isEmpty() {
        return mode == EMPTY;
    }

    /** Whether the buffered records are broadcast ones (one section every subpartition reads). */
    boolean isBroadcast() {
        return mode == BROADCAST;
    }

    /**
     * The subpartitions with at least one buffered record, ascending, if the buffer holds unicast
     * records and at most {@code limit} subpartitions have any; null otherwise (empty, broadcast,
     * or more). O(n).
     */
    int @Nullable [] lanesWithData(int limit) {
        if (mode != UNICAST) {
            return null;
        }
        int[] lanes = new int[Math.min(limit, numSubpartitions)];
        int count = 0;
        for (int s = 0; s < numSubpartitions; s++) {
            if (first[s] != NONE) {
                if (count == lanes.length) {
                    return null;
                }
                lanes[count++] = s;
            }
        }
        return Arrays.copyOf(lanes, count);
    }

    /** Bytes per page of the arena. */
    int pageSize() {
        return pageSize;
    }

    /** Buffered bytes, record headers and page-end padding included. */
    int bufferedBytes() {
        return position;
    }

    /**
     * Appends {@code record} to {@code lane}; when it does not fit, has {@code overflow} spill what
     * is buffered first, and write the record alone if even an empty buffer cannot hold it.
     * O(record length) plus what the overflow does.
     */
    void append(ByteBuffer record, int lane, Overflow overflow) throws IOException {
        if (tryAppend(record, lane)) {
            return;
        }
        if (!isEmpty()) {
            overflow.spill();
        }
        if (!fitsEmpty(record.remaining())) {
            overflow.writeAlone(record, lane);
        } else if (!tryAppend(record, lane)) {
            throw new IllegalStateException("a record that fits an empty sort buffer was refused");
        }
    }

    /** Whether a record of {@code length} bytes could fit an empty buffer. */
    boolean fitsEmpty(int length) {
        return (long) RECORD_HEADER + length + pageSize <= capacity;
    }

    /**
     * Appends {@code record} to {@code lane} (a subpartition, or {@link FrameCodec#BROADCAST_LANE}
     * for every subpartition), consuming it; false (nothing appended) if the buffer must be drained
     * first: it is full, or it holds the other kind of record. A record that does not {@link
     * #fitsEmpty fit} an empty buffer is never appended.
     */
    boolean tryAppend(ByteBuffer record, int lane) {
        boolean broadcast = lane == FrameCodec.BROADCAST_LANE;
        if (mode == (broadcast ? UNICAST : BROADCAST) || !fitsEmpty(record.remaining())) {
            return false;
        }
        int at = aligned(position);
        long need = (long) RECORD_HEADER + record.remaining();
        if (at + need > capacity) {
            return false;
        }
        ByteBuffer page = arena[at / pageSize];
        page.putInt(at % pageSize + RECORD_LENGTH_OFFSET, record.remaining());
        page.putInt(at % pageSize + RECORD_NEXT_OFFSET, NONE);
        position = at + (int) need;
        if (broadcast) {
            if (broadcastLast == NONE) {
                broadcastFirst = at;
            } else {
                setNext(broadcastLast, at);
            }
            broadcastLast = at;
            mode = BROADCAST;
        } else {
            lanes();
            if (last[lane] == NONE) {
                first[lane] = at;
            } else {
                setNext(last[lane], at);
            }
            last[lane] = at;
            mode = UNICAST;
        }
        copyIn(record, at + RECORD_HEADER);
        return true;
    }

    /**
     * Writes the buffered records as one region into {@code lane}: the broadcast section, or one
     * section per subpartition in order (empty ones included), each reported to {@code sink}; then
     * empties the buffer. The caller hands the region's last frames to the lane's output ({@link
     * LaneStream#drain}). A no-op when empty.
     */
    void drain(LaneStream lane, SectionSink sink) throws IOException {
        if (mode == EMPTY) {
            return;
        }
        writeRegion(lane, sink, null, 0);
    }

    /**
     * Writes {@code record} alone as one region in {@code recordLane} (for a record too large for
     * the buffer, which must be empty): a broadcast section, or a section per subpartition that is
     * empty except {@code recordLane}'s.
     */
    void drainAlone(ByteBuffer record, int recordLane, LaneStream lane, SectionSink sink)
            throws IOException {
        assert mode == EMPTY;
        mode = recordLane == FrameCodec.BROADCAST_LANE ? BROADCAST : UNICAST;
        writeRegion(lane, sink, record, recordLane);
    }

    private void writeRegion(
            LaneStream lane, SectionSink sink, @Nullable ByteBuffer alone, int aloneLane)
            throws IOException {
        if (mode == BROADCAST) {
            lane.start(FrameCodec.BROADCAST_LANE, broadcastSequence);
            writeChain(lane, broadcastFirst, alone);
            broadcastSequence = lane.finishLane();
            sink.section(FrameCodec.BROADCAST_LANE, lane.laneBytes());
        } else {
            lanes();
            for (int s = 0; s < numSubpartitions; s++) {
                lane.start(s, sequence[s]);
                writeChain(lane, first[s], aloneLane == s ? alone : null);
                sequence[s] = lane.finishLane();
                sink.section(s, lane.laneBytes());
            }
        }
        position = 0;
        Arrays.fill(first, NONE);
        Arrays.fill(last, NONE);
        broadcastFirst = NONE;
        broadcastLast = NONE;
        mode = EMPTY;
    }

    private void writeChain(LaneStream lane, int head, @Nullable ByteBuffer alone)
            throws IOException {
        if (alone != null) {
            lane.putLength(alone.remaining());
            lane.putBytes(alone);
            return;
        }
        for (int record = head; record != NONE; ) {
            ByteBuffer headerPage = arena[record / pageSize];
            int length = headerPage.getInt(record % pageSize + RECORD_LENGTH_OFFSET);
            int next = headerPage.getInt(record % pageSize + RECORD_NEXT_OFFSET);
            lane.putLength(length);
            int at = record + RECORD_HEADER;
            int remaining = length;
            while (remaining > 0) {
                ByteBuffer page = arena[at / pageSize];
                int offset = at % pageSize;
                int count = Math.min(pageSize - offset, remaining);
                page.limit(offset + count).position(offset);
                lane.putBytes(page);
                page.clear();
                at += count;
                remaining -= count;
            }
            record = next;
        }
    }

    private int aligned(int at) {
        int room = pageSize - at % pageSize;
        return room < RECORD_HEADER ? at + room : at;
    }

    private void setNext(int record, int next) {
        arena[record / pageSize].putInt(record % pageSize + RECORD_NEXT_OFFSET, next);
    }

    private void copyIn(ByteBuffer record, int at) {
        int to = at;
        int end = record.limit();
        while (record.position() < end) {
            ByteBuffer page = arena[to / pageSize];
            int offset = to % pageSize;
            int n = Math.min(pageSize - offset, end - record.position());
            page.put(offset, record, record.position(), n);
            record.position(record.position() + n);
            to += n;
        }
    }
}
