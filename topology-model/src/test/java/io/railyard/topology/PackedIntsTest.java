package io.railyard.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PackedIntsTest {

    /** Random sets, adds, fills and copies against a plain int[]; values of every width. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void randomOperations_matchAnIntArray(long seed) {
        Random random = new Random(seed);
        int size = 1 + random.nextInt(300);
        PackedInts packed = PackedInts.zeros(size);
        int[] oracle = new int[size];
        PackedInts copy = packed.copy();
        int[] copyOracle = oracle.clone();
        for (int step = 0; step < 3_000; step++) {
            int i = random.nextInt(size);
            int value = randomValue(random, step);
            switch (random.nextInt(5)) {
                case 0 -> {
                    packed.set(i, value);
                    oracle[i] = value;
                }
                case 1 -> {
                    int delta = random.nextInt(5) - 2;
                    if (delta == -1 && oracle[i] > 0) {
                        assertThat(packed.decrementAndGet(i)).isEqualTo(--oracle[i]);
                    } else if (oracle[i] + delta >= 0) {
                        assertThat(packed.add(i, delta)).isEqualTo(oracle[i] += delta);
                    }
                }
                case 2 -> {
                    int to = i + random.nextInt(size - i + 1);
                    packed.fill(i, to, value);
                    java.util.Arrays.fill(oracle, i, to, value);
                }
                case 3 -> {
                    copy = packed.copy();
                    copyOracle = oracle.clone();
                }
                default -> assertThat(packed.get(i)).isEqualTo(oracle[i]);
            }
        }
        for (int i = 0; i < size; i++) {
            assertThat(packed.get(i)).as("index %s", i).isEqualTo(oracle[i]);
            assertThat(copy.get(i)).as("copy, index %s", i).isEqualTo(copyOracle[i]);
        }
    }

    /** Small values mostly, so that every width is crossed in order, and now and then a big one. */
    private static int randomValue(Random random, int step) {
        int bits = Math.min(31, 1 + step / 100);
        return random.nextInt(8) == 0
                ? random.nextInt(Integer.MAX_VALUE)
                : random.nextInt(1 << bits);
    }

    @Test
    void width_growsToTheFewestPowerOfTwoBitsThatHoldTheLargestValue() {
        PackedInts packed = PackedInts.zeros(100);
        assertThat(packed.bitsPerValue()).isEqualTo(1);
        packed.set(99, 1);
        assertThat(packed.bitsPerValue()).isEqualTo(1);
        packed.set(3, 2);
        assertThat(packed.bitsPerValue()).isEqualTo(2);
        packed.set(4, 15);
        assertThat(packed.bitsPerValue()).isEqualTo(4);
        packed.set(5, 16);
        assertThat(packed.bitsPerValue()).isEqualTo(8);
        packed.set(6, 65_536);
        assertThat(packed.bitsPerValue()).isEqualTo(32);
        packed.set(7, Integer.MAX_VALUE);
        assertThat(packed.get(99)).isEqualTo(1);
        assertThat(packed.get(3)).isEqualTo(2);
        assertThat(packed.get(4)).isEqualTo(15);
        assertThat(packed.get(5)).isEqualTo(16);
        assertThat(packed.get(6)).isEqualTo(65_536);
        assertThat(packed.get(7)).isEqualTo(Integer.MAX_VALUE);
        assertThat(PackedInts.withMaxValue(10, 300).bitsPerValue()).isEqualTo(16);
        assertThat(PackedInts.withMaxValue(10, 0).bitsPerValue()).isEqualTo(1);
    }

    @Test
    void neighbours_inOneWord_areIndependent() {
        PackedInts packed = PackedInts.withMaxValue(64, 3);
        for (int i = 0; i < 64; i++) {
            packed.set(i, i % 4);
        }
        packed.set(31, 0);
        packed.add(32, 3);
        for (int i = 0; i < 64; i++) {
            int expected = i == 31 ? 0 : i == 32 ? 3 : i % 4;
            assertThat(packed.get(i)).as("index %s", i).isEqualTo(expected);
        }
    }

    @Test
    void badInput_namesTheArgumentAndTheValue() {
        PackedInts packed = PackedInts.zeros(4);
        assertThatThrownBy(() -> packed.get(4)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> packed.get(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> packed.set(1, -3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("value must be >= 0, was -3 (index 1)");
        assertThatThrownBy(() -> packed.add(2, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("value at 2 would become -1: must stay in [0, 2147483647]");
        packed.set(3, Integer.MAX_VALUE);
        assertThatThrownBy(() -> packed.add(3, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("would become 2147483648");
        assertThatThrownBy(() -> packed.decrementAndGet(2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("value at 2 is 0: cannot decrement");
        assertThatThrownBy(() -> packed.fill(2, 5, 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> PackedInts.zeros(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("size must be >= 0, was -1");
        assertThatThrownBy(() -> PackedInts.withMaxValue(3, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxValue must be >= 0, was -1");
        assertThat(packed.get(2)).isZero();
    }

    @Test
    void emptyArray_hasNoValues() {
        PackedInts packed = PackedInts.zeros(0);
        assertThat(packed.size()).isZero();
        assertThatThrownBy(() -> packed.get(0)).isInstanceOf(IndexOutOfBoundsException.class);
        packed.fill(0, 0, 5);
        assertThat(packed.copy().size()).isZero();
    }
}
