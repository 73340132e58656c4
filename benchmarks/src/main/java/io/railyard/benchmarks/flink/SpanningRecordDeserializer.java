package io.railyard.benchmarks.flink;

import static com.google.common.base.Preconditions.checkState;

import io.railyard.benchmarks.procedures.RecordTally;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Turns one channel's buffers back into records framed as Flink's {@code RecordWriter} frames them
 * (a 4-byte big-endian length, then the record's bytes), as Flink's {@code
 * SpillingAdaptiveSpanningRecordDeserializer} does for a channel of an input gate: a record, or its
 * length, may continue in the channel's next buffer. A record inside one buffer is counted in place
 * (no copy); a record spanning buffers is assembled in a heap array that grows to the largest such
 * record and is reused for the next.
 *
 * <p>Not thread-safe: one per channel, owned by the consumer. No allocation per record, except that
 * the array grows when a spanning record is longer than any before.
 */
final class SpanningRecordDeserializer {
    /** Bytes of a record's length. */
    static final int LENGTH_BYTES = 4;

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    /** The record being read, or -1 while its length is read. */
    private int recordLength = -1;

    /** A length split over buffers: its bytes so far, big-endian, and how many. */
    private int partialLength;

    private int lengthBytesRead;

    /** A record split over buffers: its bytes so far, and how many. */
    private byte[] spanning = new byte[0];

    private ByteBuffer spanningView = EMPTY;
    private int spanningFilled;

    /**
     * Reads {@code data[position, limit)} (consuming it) and counts every completed record in
     * {@code tally}. O(bytes).
     *
     * @throws IllegalStateException if a length is negative (the stream is corrupt)
     */
    void read(ByteBuffer data, RecordTally tally) {
        while (data.hasRemaining()) {
            if (recordLength < 0) {
                readLength(data);
                if (recordLength == 0) {
                    tally.add(EMPTY);
                    recordLength = -1;
                }
                continue;
            }
            if (spanningFilled == 0 && data.remaining() >= recordLength) {
                int end = data.limit();
                int start = data.position();
                data.limit(start + recordLength);
                tally.add(data);
                data.limit(end).position(start + recordLength);
                recordLength = -1;
                continue;
            }
            readSpanning(data, tally);
        }
    }

    /** Whether a record (or its length) began and has not ended: at the channel's end, a loss. */
    boolean hasPartialRecord() {
        return recordLength >= 0 || lengthBytesRead > 0;
    }

    private void readLength(ByteBuffer data) {
        if (lengthBytesRead == 0 && data.remaining() >= LENGTH_BYTES) {
            int length = data.getInt();
            recordLength =
                    data.order() == ByteOrder.BIG_ENDIAN ? length : Integer.reverseBytes(length);
        } else {
            partialLength = partialLength << 8 | (data.get() & 0xFF);
            if (++lengthBytesRead < LENGTH_BYTES) {
                return;
            }
            recordLength = partialLength;
            partialLength = 0;
            lengthBytesRead = 0;
        }
        checkState(recordLength >= 0, "corrupt stream: a record length of %s", recordLength);
    }

    private void readSpanning(ByteBuffer data, RecordTally tally) {
        if (spanning.length < recordLength) {
            spanning = new byte[recordLength];
            spanningView = ByteBuffer.wrap(spanning);
        }
        int n = Math.min(recordLength - spanningFilled, data.remaining());
        data.get(spanning, spanningFilled, n);
        spanningFilled += n;
        if (spanningFilled == recordLength) {
            spanningView.limit(recordLength).position(0);
            tally.add(spanningView);
            spanningFilled = 0;
            recordLength = -1;
        }
    }
}
