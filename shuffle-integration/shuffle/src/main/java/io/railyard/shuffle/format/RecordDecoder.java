package io.railyard.shuffle.format;

import static com.google.common.base.Preconditions.checkArgument;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Turns the buffers of a gate back into records: each channel's buffers form a stream of varint
 * lengths and record bytes, and a record (or its length) may continue into the channel's next
 * buffer. A record inside one buffer is handed over as a view of that buffer (no copy); a record
 * spanning buffers is assembled in a per-channel heap array that grows to the largest such record,
 * and handed over through a view of that array that is reused for the channel's next one. The array
 * grows with the bytes that arrive (doubling), never ahead of them to the length a record declares:
 * a corrupt or forged length costs at most twice the bytes received.
 *
 * <p>Not thread-safe: owned by the consumer. No allocation per record, except that a channel's
 * array (and its view) grow when a spanning record is longer than any before.
 */
public final class RecordDecoder {
    /**
     * Receives records; the buffer is valid only during the call. A record inside one buffer is
     * handed over as that very buffer (the {@code data} given to {@link #decode}), its position and
     * limit narrowed to the record, so a sink may tell it from an assembled one ({@code record ==
     * data}) and keep a reference to those bytes for as long as it holds the buffer.
     */
    @FunctionalInterface
    public interface RecordSink {
        /** One record of {@code channel}: {@code record[position, limit)}. */
        void accept(int channel, ByteBuffer record);
    }

    private static final byte[] EMPTY = new byte[0];
    private static final int READING_LENGTH = -1;

    private final ByteBuffer empty = ByteBuffer.wrap(EMPTY);

    private final int[] length;
    private final int[] lengthValue;
    private final int[] lengthShift;
    private final int[] filled;
    private final byte[][] partial;
    private final ByteBuffer[] partialView;

    /** A decoder for a gate of {@code numChannels} channels. */
    public RecordDecoder(int numChannels) {
        checkArgument(numChannels >= 0, "numChannels must be >= 0, was %s", numChannels);
        this.length = new int[numChannels];
        this.lengthValue = new int[numChannels];
        this.lengthShift = new int[numChannels];
        this.filled = new int[numChannels];
        this.partial = new byte[numChannels][];
        this.partialView = new ByteBuffer[numChannels];
        Arrays.fill(length, READING_LENGTH);
        Arrays.fill(partial, EMPTY);
        Arrays.fill(partialView, empty);
    }

    /**
     * Decodes {@code data[position, limit)} of {@code channel} (consuming it) and hands every
     * completed record to {@code sink}. O(bytes).
     *
     * @throws IllegalArgumentException if a record length is malformed (negative, over 5 bytes, or
     *     beyond an int)
     */
    public void decode(int channel, ByteBuffer data, RecordSink sink) {
        while (data.hasRemaining()) {
            if (length[channel] == READING_LENGTH) {
                readLength(channel, data);
                continue;
            }
            int want = length[channel];
            if (filled[channel] == 0 && data.remaining() >= want) {
                int end = data.limit();
                int start = data.position();
                data.limit(start + want);
                sink.accept(channel, data);
                data.limit(end).position(start + want);
                length[channel] = READING_LENGTH;
                continue;
            }
            byte[] target = partial[channel];
            int n = Math.min(want - filled[channel], data.remaining());
            if (target.length < filled[channel] + n) {
                target = grow(channel, filled[channel] + n, want);
            }
            data.get(target, filled[channel], n);
            filled[channel] += n;
            if (filled[channel] == want) {
                sink.accept(channel, partialView[channel].clear().limit(want));
                filled[channel] = 0;
                length[channel] = READING_LENGTH;
            }
        }
        if (length[channel] == 0) {
            sink.accept(channel, empty.clear());
            length[channel] = READING_LENGTH;
        }
    }

    /** Whether {@code channel} ended exactly after a record (no partial record pending). */
    public boolean atRecordBoundary(int channel) {
        return length[channel] == READING_LENGTH && lengthShift[channel] == 0;
    }

    /**
     * Grows {@code channel}'s array to hold {@code needed} bytes of a record of {@code want}:
     * doubling, but never past what has arrived by more than that, so a forged length costs at most
     * twice the bytes actually received, not the length it declares.
     */
    private byte[] grow(int channel, int needed, int want) {
        int length = (int) Math.min(want, Math.max(needed, 2L * partial[channel].length));
        byte[] grown = Arrays.copyOf(partial[channel], length);
        partial[channel] = grown;
        partialView[channel] = ByteBuffer.wrap(grown);
        return grown;
    }

    private void readLength(int channel, ByteBuffer data) {
        int b = data.get();
        // The fifth byte holds bits 28-34: 32-34 would be shifted out of the int unseen (bit 31,
        // the sign, is kept and rejected below as a negative length).
        if (lengthShift[channel] == 28 && (b & 0x70) != 0) {
            throw new IllegalArgumentException(
                    "channel "
                            + channel
                            + ": record length overflows an int (its fifth byte is 0x"
                            + Integer.toHexString(b & 0xFF)
                            + ", at most 0x8f allowed)");
        }
        lengthValue[channel] |= (b & 0x7F) << lengthShift[channel];
        if ((b & 0x80) == 0) {
            int value = lengthValue[channel];
            checkArgument(value >= 0, "channel %s: negative record length %s", channel, value);
            length[channel] = value;
            lengthValue[channel] = 0;
            lengthShift[channel] = 0;
            return;
        }
        lengthShift[channel] += 7;
        checkArgument(lengthShift[channel] < 35, "channel %s: record length over 5 bytes", channel);
    }
}
