package io.railyard.shuffle.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.AllocationMeter;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordDecoder}'s promise: no allocation per record, spanning and empty records included,
 * once a channel's array has grown to the longest spanning record. Measured in bytes, not time.
 */
class RecordDecoderAllocationTest {
    @Test
    void decode_spanningAndEmptyRecords_allocatesNothingPerRecord() throws Exception {
        // Channel 1: a 10-byte record cut after 4 bytes, then an empty record at a buffer's end.
        ByteBuffer first = ByteBuffer.wrap(new byte[] {10, 1, 2, 3, 4});
        ByteBuffer second = ByteBuffer.wrap(new byte[] {5, 6, 7, 8, 9, 10, 0});
        RecordDecoder decoder = new RecordDecoder(2);
        int[] bytesSeen = new int[2];
        RecordDecoder.RecordSink sink =
                (channel, record) -> {
                    bytesSeen[0]++;
                    bytesSeen[1] += record.remaining();
                };
        long allocated =
                AllocationMeter.measure(
                        10_000,
                        10_000,
                        i -> {
                            decoder.decode(1, first.clear(), sink);
                            decoder.decode(1, second.clear(), sink);
                        });
        AllocationMeter.assertBelowOneBytePerCall("RecordDecoder.decode", allocated, 10_000);
        assertThat(bytesSeen[0]).as("records").isEqualTo(2 * 20_000);
        assertThat(bytesSeen[1]).as("bytes").isEqualTo(10 * 20_000);
        assertThat(decoder.atRecordBoundary(1)).isTrue();
    }
}
