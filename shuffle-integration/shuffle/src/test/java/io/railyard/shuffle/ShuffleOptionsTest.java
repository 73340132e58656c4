package io.railyard.shuffle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Defaults, the builder round trip, and every bad value named with its key. */
class ShuffleOptionsTest {
    @Test
    void defaults_areTheDocumentedOnes() {
        ShuffleOptions options = ShuffleOptions.DEFAULT;
        assertThat(options.pageSizeBytes()).isEqualTo(32 << 10);
        assertThat(options.totalMemoryBytes()).isEqualTo(64L << 20);
        assertThat(options.totalPages()).isEqualTo(2048);
        assertThat(options.sortBufferPages()).isEqualTo(64);
        assertThat(options.gatePages()).isEqualTo(64);
        assertThat(options.compression()).isEqualTo(ShuffleOptions.Compression.LZ4);
        assertThat(options.hybridMemoryFraction()).isEqualTo(0.7);
        assertThat(options.hybridSpillFraction()).isEqualTo(0.4);
        assertThat(options.hybridResidentAttachedFraction()).isZero();
        assertThat(options.toBuilder().build()).isEqualTo(options);
    }

    @ParameterizedTest
    @ValueSource(doubles = {0, -0.1, 1.01, Double.NaN})
    void hybridFractions_outOfRange_nameKeyAndValue(double fraction) {
        assertThatThrownBy(() -> ShuffleOptions.builder().hybridMemoryFraction(fraction).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        ShuffleOptions.HYBRID_MEMORY_FRACTION_KEY + " must be in (0, 1]")
                .hasMessageContaining("was " + fraction);
        assertThatThrownBy(() -> ShuffleOptions.builder().hybridSpillFraction(fraction).build())
                .hasMessageContaining(ShuffleOptions.HYBRID_SPILL_FRACTION_KEY);
    }

    @Test
    void residentAttachedFraction_acceptsZeroAndOne_rejectsOutside() {
        assertThat(ShuffleOptions.builder().hybridResidentAttachedFraction(1).build()).isNotNull();
        assertThatThrownBy(
                        () -> ShuffleOptions.builder().hybridResidentAttachedFraction(-0.5).build())
                .hasMessageContaining(
                        ShuffleOptions.HYBRID_RESIDENT_ATTACHED_FRACTION_KEY
                                + " must be in [0, 1]");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 255, (16 << 20) + 1})
    void pageSize_outOfRange_namesKeyAndValue(int pageSize) {
        assertThatThrownBy(() -> ShuffleOptions.builder().pageSizeBytes(pageSize).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ShuffleOptions.PAGE_SIZE_KEY)
                .hasMessageContaining("was " + pageSize);
    }

    @Test
    void totalMemory_belowTwoPages_namesBothKeys() {
        assertThatThrownBy(() -> ShuffleOptions.builder().totalMemoryBytes(40_000).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ShuffleOptions.TOTAL_MEMORY_KEY)
                .hasMessageContaining(ShuffleOptions.PAGE_SIZE_KEY)
                .hasMessageContaining("was 40000 bytes");
    }

    @Test
    void sortBuffer_overOneGiB_rejected() {
        assertThatThrownBy(
                        () ->
                                ShuffleOptions.builder()
                                        .pageSizeBytes(16 << 20)
                                        .totalMemoryBytes(1L << 40)
                                        .sortBufferPages(65)
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ShuffleOptions.SORT_BUFFER_PAGES_KEY)
                .hasMessageContaining("1 GiB");
    }

    @Test
    void batchesAndGate_outOfRange_namedKeys() {
        assertThatThrownBy(() -> ShuffleOptions.builder().writeBatchPages(0).build())
                .hasMessageContaining(ShuffleOptions.WRITE_BATCH_PAGES_KEY);
        assertThatThrownBy(() -> ShuffleOptions.builder().readBatchPages(1025).build())
                .hasMessageContaining(ShuffleOptions.READ_BATCH_PAGES_KEY);
        assertThatThrownBy(() -> ShuffleOptions.builder().gatePages(0).build())
                .hasMessageContaining(ShuffleOptions.GATE_PAGES_KEY);
        assertThatThrownBy(() -> ShuffleOptions.builder().totalPages(1))
                .hasMessageContaining(ShuffleOptions.TOTAL_MEMORY_KEY);
    }

    @Test
    void bytesText_usesTheLargestExactUnit() {
        assertThat(ShuffleOptions.bytesText(64L << 20)).isEqualTo("64 MiB");
        assertThat(ShuffleOptions.bytesText(96544L << 10)).isEqualTo("96544 KiB");
        assertThat(ShuffleOptions.bytesText(1000)).isEqualTo("1000 B");
        assertThat(ShuffleOptions.bytesText(0)).isEqualTo("0 B");
    }
}
