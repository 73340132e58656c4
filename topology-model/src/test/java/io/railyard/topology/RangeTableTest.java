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

    /**
     * The class notes' complexity: n <= 512 ranges none smaller than 1/c of the mean meet at most c
     * + 1 per bucket (O(1)); more such ranges at most c·n/512 + 2 (O(log(c·n/512))).
     */
    @Test
    void indexOf_comparableSizes_searchesAtMostTheStatedNumberOfRanges() {
        Random random = new Random(13);
        for (int round = 0; round < 300; round++) {
            int n = 1 + random.nextInt(random.nextBoolean() ? 512 : 4096);
            int c = 1 << random.nextInt(4);
            int smallest = 1 + random.nextInt(random.nextBoolean() ? 3 : 500);
            int[] sizes = new int[n];
            for (int i = 0; i < n; i++) {
                sizes[i] = smallest + random.nextInt((c - 1) * smallest + 1); // in [s, c·s]
            }
            RangeTable table = RangeTable.ofSizes(sizes);
            double bound = n <= 512 ? c + 1 : (double) c * n / 512 + 2;
            for (int probe = 0; probe < 200; probe++) {
                int value = random.nextInt(table.total());
                assertThat(table.rangesSearched(value))
                        .as("n %s, c %s, smallest %s, value %s", n, c, smallest, value)
                        .isLessThanOrEqualTo((int) bound);
            }
        }
    }

    @Test
    void indexOf_veryUnequalSizes_searchesAtMostAllRanges() {
        int[] sizes = new int[100];
        java.util.Arrays.fill(sizes, 1);
        sizes[99] = 1_000_000; // 99 one-task vertices share the first bucket
        RangeTable table = RangeTable.ofSizes(sizes);

        assertThat(table.rangesSearched(0)).isGreaterThan(50).isLessThanOrEqualTo(100);
        assertThat(table.rangesSearched(500_000)).isEqualTo(1);
        assertThat(table.indexOf(42)).isEqualTo(42);
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
