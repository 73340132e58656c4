package io.railyard.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class RangeTableTest {

    @Test
    void indexOf_withEmptyRanges_findsTheRangeHoldingTheValue() {
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            int[] sizes = new int[1 + random.nextInt(20)];
            for (int i = 0; i < sizes.length; i++) {
                sizes[i] = random.nextInt(3) == 0 ? 0 : random.nextInt(5);
            }
            RangeTable table = RangeTable.ofSizes(sizes);
            int value = 0;
            for (int i = 0; i < sizes.length; i++) {
                for (int k = 0; k < sizes[i]; k++, value++) {
                    assertThat(table.indexOf(value)).isEqualTo(i);
                    assertThat(PackedRange.contains(table.range(i), value)).isTrue();
                }
            }
            assertThat(table.total()).isEqualTo(value);
        }
    }

    @Test
    void indexOf_skewedAndLargeSizes_matchesALinearScan() {
        Random random = new Random(11);
        for (int round = 0; round < 100; round++) {
            int[] sizes = new int[1 + random.nextInt(8)];
            for (int i = 0; i < sizes.length; i++) {
                int kind = random.nextInt(4);
                sizes[i] = kind == 0 ? 0 : kind == 1 ? 1 + random.nextInt(3) : random.nextInt(5000);
            }
            RangeTable table = RangeTable.ofSizes(sizes);
            for (int probe = 0; probe < 300 && table.total() > 0; probe++) {
                int value = random.nextInt(table.total());
                int expected = 0;
                while (!(table.start(expected) <= value && value < table.end(expected))) {
                    expected++;
                }
                assertThat(table.indexOf(value)).isEqualTo(expected);
            }
            if (table.total() > 0) {
                assertThat(table.indexOf(table.total() - 1)).isEqualTo(lastNonEmpty(sizes));
            }
        }
    }

    private static int lastNonEmpty(int[] sizes) {
        int i = sizes.length - 1;
        while (sizes[i] == 0) {
            i--;
        }
        return i;
    }

    @Test
    void ofSizes_negativeOrOverflowingSizes_areRejected() {
        assertThatThrownBy(() -> RangeTable.ofSizes(new int[] {1, -1}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("size of range 1 must be >= 0, was -1");
        assertThatThrownBy(() -> RangeTable.ofSizes(new int[] {Integer.MAX_VALUE, 1}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("above the int id space");
    }

    @Test
    void packedRange_roundTripsLargeBounds() {
        long range = PackedRange.of(Integer.MAX_VALUE - 5, Integer.MAX_VALUE);
        assertThat(PackedRange.start(range)).isEqualTo(Integer.MAX_VALUE - 5);
        assertThat(PackedRange.end(range)).isEqualTo(Integer.MAX_VALUE);
        assertThat(PackedRange.size(range)).isEqualTo(5);
        assertThat(PackedRange.toString(range)).isEqualTo("[2147483642, 2147483647)");
        assertThatThrownBy(() -> PackedRange.of(3, 2)).isInstanceOf(IllegalArgumentException.class);
    }
}
