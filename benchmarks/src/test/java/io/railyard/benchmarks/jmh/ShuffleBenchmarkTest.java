package io.railyard.benchmarks.jmh;

import org.junit.jupiter.api.Test;

/** The shuffle benchmark's CI twins: they start and produce a score. */
class ShuffleBenchmarkTest {

    @Test
    void shuffleBenchmark_starts() throws Exception {
        JmhSmoke.assertStart(
                new String[] {"mebibytes", "1", "kind", "SORT"}, ShuffleBenchmark.class);
    }

    /** At the smoke's P = 1,000 a hybrid kind fits 64 MiB only with consumers in waves. */
    @Test
    void shuffleBenchmark_hybridInWaves_starts() throws Exception {
        JmhSmoke.assertStart(
                new String[] {"mebibytes", "1", "kind", "HYBRID_SELECTIVE", "consumers", "WAVES"},
                ShuffleBenchmark.class);
    }
}
