package io.railyard.shuffle.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordDecoder} on corrupt lengths (Reliability rows 1 and 20), the two findings of {@link
 * RecordDecoderFuzzTest}: a forged length is not a reservation, and no bit of a length is dropped;
 * and the view a sink may keep (the Flink plugin's gate lends those bytes without a copy).
 */
class RecordDecoderTest {
    private static final RecordDecoder.RecordSink NO_SINK =
            (channel, record) -> {
                throw new AssertionError("no record expected");
            };

    @Test
    void decode_forgedMaximalLengthWithFewBytes_allocatesAboutWhatArrived() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        RecordDecoder decoder = new RecordDecoder(1);
        // length 2^31 - 1 (five varint bytes), then three bytes of the record
        byte[] forged = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 1, 2, 3};
        decoder.decode(0, ByteBuffer.wrap(forged), NO_SINK); // warm-up: classes, the first array

        RecordDecoder fresh = new RecordDecoder(1);
        long before = threads.getCurrentThreadAllocatedBytes();
        fresh.decode(0, ByteBuffer.wrap(forged), NO_SINK);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(allocated).as("was 2 GiB: an OutOfMemoryError").isLessThan(1024);
        assertThat(fresh.atRecordBoundary(0)).isFalse();
    }

    @Test
    void decode_lengthWithBitsBeyondAnInt_rejectedNamingTheByte() {
        // 0x80 0x80 0x80 0x80 0x10: bit 32 set, which the decoder used to drop (length 0)
        byte[] overflowing = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x10, 9};
        assertThatThrownBy(
                        () -> new RecordDecoder(2).decode(1, ByteBuffer.wrap(overflowing), NO_SINK))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "channel 1: record length overflows an int (its fifth byte is 0x10, at"
                                + " most 0x8f allowed)");
    }

    @Test
    void decode_recordInsideTheBuffer_isThatBufferNarrowed_aSpanningOneIsNot() {
        // channel 0: [3] a b c [4] d e | f g — the second record spans two buffers
        ByteBuffer first =
                ByteBuffer.allocateDirect(7).put(new byte[] {3, 'a', 'b', 'c', 4, 'd', 'e'});
        ByteBuffer second = ByteBuffer.wrap(new byte[] {'f', 'g'});
        first.flip();
        List<String> got = new ArrayList<>();
        RecordDecoder decoder = new RecordDecoder(1);
        decoder.decode(
                0,
                first,
                (channel, record) -> {
                    assertThat(record).isSameAs(first);
                    got.add(record.position() + ".." + record.limit());
                });
        decoder.decode(
                0,
                second,
                (channel, record) -> {
                    assertThat(record).isNotSameAs(second);
                    byte[] bytes = new byte[record.remaining()];
                    record.get(bytes);
                    got.add(new String(bytes, StandardCharsets.US_ASCII));
                });
        assertThat(got).containsExactly("1..4", "defg");
    }

    /**
     * Many channels midway through a record at once, completed in a random order: each gets its own
     * record, and a channel between records holds no state (the decoder's table of channels midway
     * grows and shrinks with them).
     */
    @Test
    void decode_manyChannelsMidwayAtOnce_eachGetsItsRecord_andNoneIsLeftMidway() {
        int channels = 1_000;
        RecordDecoder decoder = new RecordDecoder(channels);
        java.util.Map<Integer, String> got = new java.util.HashMap<>();
        RecordDecoder.RecordSink sink =
                (channel, record) ->
                        assertThat(
                                        got.put(
                                                channel,
                                                java.nio.charset.StandardCharsets.UTF_8
                                                        .decode(record)
                                                        .toString()))
                                .isNull();
        java.util.List<Integer> order = new java.util.ArrayList<>();
        for (int c = 0; c < channels; c++) {
            // a length of 6, then the first half of "c=NNNN"-like text (6 bytes)
            String text = String.format(java.util.Locale.ROOT, "c%05d", c);
            byte[] first = new byte[4];
            first[0] = 6;
            System.arraycopy(
                    text.getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, first, 1, 3);
            decoder.decode(c, ByteBuffer.wrap(first), sink);
            order.add(c);
        }
        assertThat(decoder.channelsMidway()).isEqualTo(channels);
        java.util.Collections.shuffle(order, new java.util.Random(7));
        for (int c : order) {
            String text = String.format(java.util.Locale.ROOT, "c%05d", c);
            decoder.decode(
                    c,
                    ByteBuffer.wrap(
                            text.substring(3).getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                    sink);
            assertThat(decoder.atRecordBoundary(c)).isTrue();
        }
        assertThat(decoder.channelsMidway()).isZero();
        for (int c = 0; c < channels; c++) {
            assertThat(got.get(c)).isEqualTo(String.format(java.util.Locale.ROOT, "c%05d", c));
        }
    }
}
