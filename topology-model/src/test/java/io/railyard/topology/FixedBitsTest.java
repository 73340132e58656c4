package io.railyard.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.BitSet;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FixedBitsTest {

    /** Random single and range operations against java.util.BitSet, sizes around word edges. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void randomOperations_matchBitSet(long seed) {
        Random random = new Random(seed);
        int size = new int[] {1, 63, 64, 65, 128, 1 + random.nextInt(700)}[(int) (seed % 6)];
        FixedBits bits = new FixedBits(size);
        BitSet oracle = new BitSet(size);
        for (int step = 0; step < 4_000; step++) {
            int from = random.nextInt(size);
            int to = from + random.nextInt(size - from + 1);
            switch (random.nextInt(7)) {
                case 0 -> {
                    assertThat(bits.getAndSet(from)).isEqualTo(oracle.get(from));
                    oracle.set(from);
                }
                case 1 -> {
                    bits.clear(from);
                    oracle.clear(from);
                }
                case 2 -> {
                    bits.set(from, to);
                    oracle.set(from, to);
                }
                case 3 -> {
                    bits.clear(from, to);
                    oracle.clear(from, to);
                }
                case 4 -> assertThat(bits.nextSetBit(from)).isEqualTo(oracle.nextSetBit(from));
                case 5 -> {
                    assertThat(bits.get(from)).isEqualTo(oracle.get(from));
                    assertThat(bits.nextClearBit(from))
                            .isEqualTo(Math.min(size, oracle.nextClearBit(from)));
                }
                default -> assertThat(bits.cardinality()).isEqualTo(oracle.cardinality());
            }
        }
        for (int i = 0; i < size; i++) {
            assertThat(bits.get(i)).as("bit %s", i).isEqualTo(oracle.get(i));
        }
        assertThat(bits.nextSetBit(size)).isEqualTo(-1);
        assertThat(bits.nextClearBit(size)).isEqualTo(size);
        bits.set(0, size);
        assertThat(bits.nextClearBit(0)).isEqualTo(size);
        bits.clear();
        assertThat(bits.cardinality()).isZero();
        assertThat(bits.nextSetBit(0)).isEqualTo(-1);
    }

    @Test
    void badIndices_areRefused() {
        FixedBits bits = new FixedBits(10);
        assertThatThrownBy(() -> bits.get(10)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> bits.set(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> bits.clear(3, 11)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> bits.nextSetBit(-1))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("from must be >= 0, was -1");
        assertThatThrownBy(() -> new FixedBits(-2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("size must be >= 0, was -2");
        assertThat(new FixedBits(0).nextSetBit(0)).isEqualTo(-1);
    }
}
