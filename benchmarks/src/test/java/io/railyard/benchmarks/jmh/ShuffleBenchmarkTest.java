package io.railyard.benchmarks.jmh;

import org.junit.jupiter.api.Test;

/** The shuffle benchmark's CI twin: it starts and produces a score. */
class ShuffleBenchmarkTest {

    @Test
    void shuffleBenchmark_starts() throws Exception {
        JmhSmoke.assertStart(
                new String[] {"mebibytes", "1", "kind", "SORT"}, ShuffleBenchmark.class);
    }
}
