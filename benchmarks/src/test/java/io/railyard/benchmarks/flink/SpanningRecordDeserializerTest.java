package io.railyard.benchmarks.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.benchmarks.procedures.RecordTally;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The consumer's parser of Flink-framed records: every record back, whatever the buffer boundaries
 * (inside a length, inside a record, between records) and the buffers' byte order.
 */
class SpanningRecordDeserializerTest {
    private static final int[] LENGTHS = {0, 1, 3, 4, 5, 17, 100, 0, 300, 2};

    /** The framed stream of {@link #LENGTHS} random records, and their tally. */
    private static ByteBuffer stream(RecordTally written) {
        SplittableRandom random = new SplittableRandom(5);
        ByteBuffer out = ByteBuffer.allocate(1024);
        for (int length : LENGTHS) {
            byte[] record = new byte[length];
            random.nextBytes(record);
            written.add(ByteBuffer.wrap(record));
            out.putInt(length).put(record);
        }
        return out.flip();
    }

    @Test
    void read_everySplitIntoThreeBuffers_givesEveryRecordBack() {
        RecordTally written = new RecordTally();
        ByteBuffer stream = stream(written);
        int n = stream.remaining();
        for (int first = 0; first <= n; first++) {
            for (int second = first; second <= n; second += 7) {
                SpanningRecordDeserializer deserializer = new SpanningRecordDeserializer();
                RecordTally read = new RecordTally();
                for (int[] part : new int[][] {{0, first}, {first, second}, {second, n}}) {
                    ByteBuffer buffer = stream.duplicate().limit(part[1]).position(part[0]).slice();
                    buffer.order(first % 2 == 0 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
                    deserializer.read(buffer, read);
                    assertThat(buffer.hasRemaining()).isFalse();
                }
                assertThat(read.delivered())
                        .as("split at %s, %s", first, second)
                        .isEqualTo(written.delivered());
                assertThat(deserializer.hasPartialRecord()).isFalse();
            }
        }
    }

    @Test
    void read_streamCutInsideARecordOrALength_hasAPartialRecord() {
        ByteBuffer stream = stream(new RecordTally());
        for (int cut : new int[] {2, 4 + 1 + 4 + 2}) {
            SpanningRecordDeserializer deserializer = new SpanningRecordDeserializer();
            deserializer.read(stream.duplicate().limit(cut), new RecordTally());
            assertThat(deserializer.hasPartialRecord()).as("cut at %s", cut).isTrue();
        }
    }

    @Test
    void read_negativeLength_isACorruptStream() {
        ByteBuffer corrupt = ByteBuffer.allocate(8).putInt(-3).putInt(0).flip();

        assertThatThrownBy(() -> new SpanningRecordDeserializer().read(corrupt, new RecordTally()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("corrupt stream: a record length of -3");
    }
}
