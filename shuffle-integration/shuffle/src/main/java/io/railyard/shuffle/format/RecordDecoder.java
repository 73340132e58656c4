package io.railyard.shuffle.format;

import static com.google.common.base.Preconditions.checkArgument;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Turns the buffers of a gate back into records: each channel's buffers form a stream of varint
 * lengths and record bytes, and a record (or its length) may continue into the channel's next
 * buffer. A record inside one buffer is handed over as a view of that buffer (no copy); a record
 * spanning buffers is assembled in a heap array of its channel that grows to the largest such
 * record, and handed over through a view of that array that is reused for the channel's next one.
 * The array grows with the bytes that arrive (doubling), never ahead of them to the length a record
 * declares: a corrupt or forged length costs at most twice the bytes received.
 *
 * <p>Memory: a channel has state only while a record of it spans buffers (its partial length and
 * bytes); a channel between two records has none, so a gate of 10,000 channels costs a decoder a
 * hash map of the few channels midway through a record, not 10,000 of anything.
 *
 * <p>Not thread-safe: owned by the consumer. No allocation per record, except that a channel's
 * state is made when one of its records first spans buffers (and kept for its next), and its array
 * (and view) grow when a spanning record is longer than any before.
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
    private final int numChannels;

    /** The channels midway through a record (or its length), by channel. */
    private final Midway midway = new Midway();

    /** A channel's state left from its last spanning record, to reuse for the next. */
    private @Nullable Partial spare;

    /** What a channel midway through a record has of it. */
    private static final class Partial {
        int length = READING_LENGTH;
        int lengthValue;
        int lengthShift;
        int filled;
        byte[] bytes = EMPTY;
        ByteBuffer view = ByteBuffer.wrap(EMPTY);
    }

    /** A decoder for a gate of {@code numChannels} channels. */
    public RecordDecoder(int numChannels) {
        checkArgument(numChannels >= 0, "numChannels must be >= 0, was %s", numChannels);
        this.numChannels = numChannels;
    }

    /**
     * Decodes {@code data[position, limit)} of {@code channel} (consuming it) and hands every
     * completed record to {@code sink}. O(bytes).
     *
     * @throws IllegalArgumentException if a record length is malformed (negative, over 5 bytes, or
     *     beyond an int), or there is no such channel
     */
    public void decode(int channel, ByteBuffer data, RecordSink sink) {
        if (channel < 0 || channel >= numChannels) { // not checkArgument: it would box the ints
            throw new IllegalArgumentException(
                    "channel must be in [0, " + numChannels + "), was " + channel);
        }
        Partial partial = midway.size == 0 ? null : midway.get(channel);
        while (data.hasRemaining()) {
            if (partial == null) {
                if (wholeRecord(channel, data, sink)) {
                    continue;
                }
                partial = startPartial(channel);
            }
            if (partial.length == READING_LENGTH) {
                readLength(channel, partial, data);
                continue;
            }
            int want = partial.length;
            if (partial.filled == 0 && data.remaining() >= want) {
                int end = data.limit();
                int start = data.position();
                data.limit(start + want);
                sink.accept(channel, data);
                data.limit(end).position(start + want);
                partial = endPartial(channel, partial);
                continue;
            }
            int n = Math.min(want - partial.filled, data.remaining());
            if (partial.bytes.length < partial.filled + n) {
                grow(partial, partial.filled + n, want);
            }
            data.get(partial.bytes, partial.filled, n);
            partial.filled += n;
            if (partial.filled == want) {
                sink.accept(channel, partial.view.clear().limit(want));
                partial = endPartial(channel, partial);
            }
        }
        if (partial != null && partial.length == 0) {
            sink.accept(channel, empty.clear());
            endPartial(channel, partial);
        }
    }

    /**
     * The fast path of a channel between records: a whole length and record in {@code data}, handed
     * over as a view of it; false, consuming nothing, if they are not all there.
     */
    private boolean wholeRecord(int channel, ByteBuffer data, RecordSink sink) {
        int start = data.position();
        int end = data.limit();
        int value = 0;
        int at = start;
        for (int shift = 0; ; shift += 7) {
            if (at >= end || shift == 28) {
                return false; // cut by the buffer's end, or a fifth byte: the careful path
            }
            int b = data.get(at++);
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
        }
        if (value > end - at) {
            return false;
        }
        data.limit(at + value).position(at);
        sink.accept(channel, data);
        data.limit(end).position(at + value);
        return true;
    }

    /** Whether {@code channel} ended exactly after a record (no partial record pending). */
    public boolean atRecordBoundary(int channel) {
        Partial partial = midway.get(channel);
        return partial == null || (partial.length == READING_LENGTH && partial.lengthShift == 0);
    }

    /** Channels midway through a record now. */
    public int channelsMidway() {
        return midway.size;
    }

    private Partial startPartial(int channel) {
        Partial partial = spare;
        if (partial == null) {
            partial = new Partial();
        }
        spare = null;
        midway.put(channel, partial);
        return partial;
    }

    /** A record of {@code channel} completed: it is between records again, its state kept aside. */
    private @Nullable Partial endPartial(int channel, Partial partial) {
        partial.length = READING_LENGTH;
        partial.filled = 0;
        midway.remove(channel);
        if (spare == null || spare.bytes.length < partial.bytes.length) {
            spare = partial;
        }
        return null;
    }

    /**
     * Grows {@code partial}'s array to hold {@code needed} bytes of a record of {@code want}:
     * doubling, but never past what has arrived by more than that, so a forged length costs at most
     * twice the bytes actually received, not the length it declares.
     */
    private static void grow(Partial partial, int needed, int want) {
        int length = (int) Math.min(want, Math.max(needed, 2L * partial.bytes.length));
        partial.bytes = Arrays.copyOf(partial.bytes, length);
        partial.view = ByteBuffer.wrap(partial.bytes);
    }

    private static void readLength(int channel, Partial partial, ByteBuffer data) {
        int b = data.get();
        // The fifth byte holds bits 28-34: 32-34 would be shifted out of the int unseen (bit 31,
        // the sign, is kept and rejected below as a negative length).
        if (partial.lengthShift == 28 && (b & 0x70) != 0) {
            throw new IllegalArgumentException(
                    "channel "
                            + channel
                            + ": record length overflows an int (its fifth byte is 0x"
                            + Integer.toHexString(b & 0xFF)
                            + ", at most 0x8f allowed)");
        }
        partial.lengthValue |= (b & 0x7F) << partial.lengthShift;
        if ((b & 0x80) == 0) {
            int value = partial.lengthValue;
            checkArgument(value >= 0, "channel %s: negative record length %s", channel, value);
            partial.length = value;
            partial.lengthValue = 0;
            partial.lengthShift = 0;
            return;
        }
        partial.lengthShift += 7;
        checkArgument(partial.lengthShift < 35, "channel %s: record length over 5 bytes", channel);
    }

    /**
     * The channels midway through a record: an open-addressing table from channel to state (linear
     * probing, deletion by shifting back), a few slots while few channels are midway. It is written
     * here rather than taken from a collections library: the decoder runs on every buffer, and a
     * library's first use loads classes whose cost its allocation guard would count.
     */
    private static final class Midway {
        private int[] channels = emptyKeys(8);
        private @Nullable Partial[] states = new Partial[8];
        int size;

        private static int[] emptyKeys(int n) {
            int[] keys = new int[n];
            Arrays.fill(keys, -1);
            return keys;
        }

        private int slot(int channel) {
            return ((channel * 0x9E3779B9) >>> 16) & (channels.length - 1);
        }

        @Nullable Partial get(int channel) {
            for (int i = slot(channel); ; i = (i + 1) & (channels.length - 1)) {
                if (channels[i] == channel) {
                    return states[i];
                }
                if (channels[i] < 0) {
                    return null;
                }
            }
        }

        void put(int channel, Partial state) {
            if ((size + 1) * 4 > channels.length * 3) {
                grow();
            }
            int i = slot(channel);
            while (channels[i] >= 0 && channels[i] != channel) {
                i = (i + 1) & (channels.length - 1);
            }
            if (channels[i] < 0) {
                size++;
            }
            channels[i] = channel;
            states[i] = state;
        }

        void remove(int channel) {
            int mask = channels.length - 1;
            int i = slot(channel);
            while (channels[i] != channel) {
                if (channels[i] < 0) {
                    return;
                }
                i = (i + 1) & mask;
            }
            size--;
            // Shift back the entries after it that probed past it, so no gap hides them: one may
            // move into the gap when the gap lies between its home slot and where it is.
            int gap = i;
            for (int next = (gap + 1) & mask; channels[next] >= 0; next = (next + 1) & mask) {
                int home = slot(channels[next]);
                if (((next - home) & mask) >= ((next - gap) & mask)) {
                    channels[gap] = channels[next];
                    states[gap] = states[next];
                    gap = next;
                }
            }
            channels[gap] = -1;
            states[gap] = null;
        }

        private void grow() {
            int[] oldChannels = channels;
            Partial[] oldStates = states;
            channels = emptyKeys(oldChannels.length * 2);
            states = new Partial[oldChannels.length * 2];
            size = 0;
            for (int i = 0; i < oldChannels.length; i++) {
                Partial state = oldStates[i];
                if (oldChannels[i] >= 0 && state != null) {
                    put(oldChannels[i], state);
                }
            }
        }
    }
}
