package io.railyard.benchmarks.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The record check of the shuffle measurement: the hash sees bytes and length only, the tally is
 * order-independent, and a producer's {@link Delivered} (counted per slice) equals a tally of every
 * record it emitted, the oracle here.
 */
class RecordTallyTest {

    private static byte[] random(int length, long seed) {
        byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void hash_sameBytesInHeapDirectOffsetAndBigEndianBuffers_areEqual() {
        for (int length = 0; length <= 70; length++) {
            byte[] bytes = random(length, length);
            ByteBuffer heap = ByteBuffer.wrap(bytes);
            ByteBuffer direct = ByteBuffer.allocateDirect(length + 3).order(ByteOrder.BIG_ENDIAN);
            direct.position(3);
            direct.put(bytes).flip().position(3);
            ByteBuffer offset = ByteBuffer.allocate(length + 5).order(ByteOrder.LITTLE_ENDIAN);
            offset.position(1);
            offset.put(bytes).flip().position(1);
            offset.limit(1 + length);

            long hash = RecordTally.hash(heap);

            assertThat(RecordTally.hash(direct)).as("length %s", length).isEqualTo(hash);
            assertThat(RecordTally.hash(offset.slice())).isEqualTo(hash);
            assertThat(direct.position()).isEqualTo(3);
            assertThat(direct.limit()).isEqualTo(length + 3);
        }
    }

    @Test
    void hash_everyFlippedBitAndEveryLength_givesADifferentHash() {
        byte[] bytes = random(37, 1);
        Set<Long> hashes = new HashSet<>();
        hashes.add(RecordTally.hash(ByteBuffer.wrap(bytes)));
        for (int bit = 0; bit < bytes.length * 8; bit++) {
            bytes[bit / 8] ^= (byte) (1 << (bit % 8));
            hashes.add(RecordTally.hash(ByteBuffer.wrap(bytes)));
            bytes[bit / 8] ^= (byte) (1 << (bit % 8));
        }
        for (int length = 0; length < bytes.length; length++) {
            hashes.add(RecordTally.hash(ByteBuffer.wrap(bytes, 0, length)));
        }
        assertThat(hashes).hasSize(1 + bytes.length * 8 + bytes.length);
    }

    @Test
    void tally_anyOrder_sameDelivered_andAMissingRecordDiffers() {
        ByteBuffer[] records = new ByteBuffer[50];
        for (int i = 0; i < records.length; i++) {
            records[i] = ByteBuffer.wrap(random(i % 17 + 1, i));
        }
        RecordTally forward = new RecordTally();
        RecordTally backward = new RecordTally();
        RecordTally missing = new RecordTally();
        for (int i = 0; i < records.length; i++) {
            forward.add(records[i]);
            backward.add(records[records.length - 1 - i]);
            if (i != 20) {
                missing.add(records[i]);
            }
        }

        assertThat(backward.delivered()).isEqualTo(forward.delivered());
        assertThat(forward.delivered().records()).isEqualTo(50);
        assertThatThrownBy(
                        () ->
                                Delivered.checkAllRead(
                                        "test", missing.delivered(), forward.delivered()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("test: consumers read 49 records of ")
                .hasMessageContaining("producers wrote 50 records of ");
    }

    @ParameterizedTest
    @CsvSource({"100, 30000, 7", "100, 29999, 7", "256, 1, 3", "1, 1000, 1", "64, 64000, 1000"})
    void write_returnsWhatATallyOfEveryEmittedRecordGives(
            int recordBytes, long share, int subpartitions) throws Exception {
        RecordTally oracle = new RecordTally();
        int[] perSubpartition = new int[subpartitions];

        Delivered written =
                ShuffleRecords.write(
                        (record, subpartition) -> {
                            oracle.add(record);
                            perSubpartition[subpartition]++;
                        },
                        ShuffleRecords.producerName(3),
                        subpartitions,
                        share,
                        recordBytes,
                        ShuffleRecords.source(recordBytes),
                        0);

        assertThat(written).isEqualTo(oracle.delivered());
        assertThat(written.bytes()).isEqualTo(share);
        assertThat(written.records()).isEqualTo((share + recordBytes - 1) / recordBytes);
        // round-robin: the subpartitions' counts differ by at most one
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int count : perSubpartition) {
            min = Math.min(min, count);
            max = Math.max(max, count);
        }
        assertThat(max - min).isLessThanOrEqualTo(1);
    }
}
