package io.railyard.shuffle.format;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Coverage-guided fuzzing (Jazzer) of {@link RecordDecoder} — Reliability rows 1 and 20: the
 * channels' buffers, cut anywhere, either decode to exactly the records a naive reader of each
 * channel's whole stream finds (varint length, then the bytes), or fail with {@link
 * IllegalArgumentException} where that reader finds a malformed length (negative, over 5 bytes, or
 * beyond an int); nothing else. And no length makes the decoder allocate much more than the bytes
 * it has been given: a forged length is data, not a reservation.
 *
 * <p>Input: a byte for the number of channels (1 + b mod 3), then buffers, each a byte for its
 * channel (mod the number of channels), a byte for its length and that many bytes. Seeds in {@code
 * RecordDecoderFuzzTestInputs/}: streams of small, empty and spanning records over one to three
 * channels.
 */
class RecordDecoderFuzzTest {
    /**
     * Slack for what decoding allocates whatever its input (the first call's class loading). Beyond
     * it, the decoder may allocate 4 bytes per byte given: its arrays double as bytes arrive.
     */
    private static final long FIXED_ALLOCATION_BYTES = 64 << 10;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @FuzzTest(maxDuration = "10s")
    void decode_anyBuffers_theNaiveReadersRecordsOrIllegalArgument(FuzzedDataProvider data) {
        ByteBuffer input = ByteBuffer.wrap(data.consumeRemainingAsBytes());
        if (!input.hasRemaining()) {
            return;
        }
        int numChannels = 1 + (input.get() & 0xFF) % 3;
        List<ByteArrayOutputStream> streams = new ArrayList<>();
        List<List<byte[]>> decoded = new ArrayList<>();
        for (int c = 0; c < numChannels; c++) {
            streams.add(new ByteArrayOutputStream());
            decoded.add(new ArrayList<>());
        }
        RecordDecoder decoder = new RecordDecoder(numChannels);
        long[] sinkAllocated = {0};
        RecordDecoder.RecordSink sink =
                (channel, record) -> {
                    long start = THREADS.getCurrentThreadAllocatedBytes();
                    byte[] bytes = new byte[record.remaining()];
                    record.get(bytes);
                    decoded.get(channel).add(bytes);
                    sinkAllocated[0] += THREADS.getCurrentThreadAllocatedBytes() - start;
                };
        long given = 0;
        long decoderAllocated = 0;
        while (input.remaining() >= 2) {
            int channel = (input.get() & 0xFF) % numChannels;
            byte[] buffer = new byte[Math.min(input.get() & 0xFF, input.remaining())];
            input.get(buffer);
            streams.get(channel).write(buffer, 0, buffer.length);
            given += buffer.length;
            ByteBuffer wrapped = ByteBuffer.wrap(buffer);
            sinkAllocated[0] = 0;
            long before = THREADS.getCurrentThreadAllocatedBytes();
            try {
                decoder.decode(channel, wrapped, sink);
            } catch (IllegalArgumentException e) {
                assertThat(NaiveReader.read(streams.get(channel).toByteArray()).malformed())
                        .as("channel %s rejected: %s", channel, e.getMessage())
                        .isTrue();
                assertThat(e.getMessage()).startsWith("channel " + channel + ": ");
                return;
            }
            decoderAllocated +=
                    THREADS.getCurrentThreadAllocatedBytes() - before - sinkAllocated[0];
            assertThat(decoderAllocated)
                    .as("bytes the decoder allocated for %s bytes given", given)
                    .isLessThanOrEqualTo(FIXED_ALLOCATION_BYTES + 4 * given);
        }
        for (int c = 0; c < numChannels; c++) {
            NaiveReader expected = NaiveReader.read(streams.get(c).toByteArray());
            assertThat(expected.malformed())
                    .as("channel %s accepted a malformed length", c)
                    .isFalse();
            assertThat(decoded.get(c))
                    .as("channel %s", c)
                    .containsExactlyElementsOf(expected.records);
            assertThat(decoder.atRecordBoundary(c)).isEqualTo(expected.atBoundary);
        }
    }

    /** The oracle: one channel's whole stream read in one go, with long arithmetic. */
    private static final class NaiveReader {
        final List<byte[]> records = new ArrayList<>();
        boolean atBoundary = true;
        private boolean malformed;

        boolean malformed() {
            return malformed;
        }

        static NaiveReader read(byte[] stream) {
            NaiveReader reader = new NaiveReader();
            int at = 0;
            while (at < stream.length) {
                long length = 0;
                int shift = 0;
                int b;
                do {
                    if (shift == 35) {
                        reader.malformed = true; // over 5 bytes
                        return reader;
                    }
                    if (at == stream.length) {
                        reader.atBoundary = false; // inside a length
                        return reader;
                    }
                    b = stream[at++] & 0xFF;
                    length |= (long) (b & 0x7F) << shift;
                    shift += 7;
                } while ((b & 0x80) != 0);
                if (length > Integer.MAX_VALUE) {
                    reader.malformed = true;
                    return reader;
                }
                if (stream.length - at < length) {
                    reader.atBoundary = false; // inside a record
                    return reader;
                }
                reader.records.add(Arrays.copyOfRange(stream, at, at + (int) length));
                at += (int) length;
            }
            return reader;
        }
    }
}
