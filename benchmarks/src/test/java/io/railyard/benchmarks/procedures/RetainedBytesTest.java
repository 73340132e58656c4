package io.railyard.benchmarks.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/** Only what the root alone reaches is counted, however often the shared objects are reached. */
class RetainedBytesTest {

    @Test
    void countsTheRootsOwnObjects_notTheSharedOnes() {
        long[] shared = new long[100_000];
        long[] own = new long[1_000];
        Object[] inner = {shared, own};
        Object[] root = {inner, shared};
        long expected =
                GraphLayout.parseInstance(own).totalSize()
                        + 2 * GraphLayout.parseInstance((Object) new Object[2]).totalSize();

        assertThat(RetainedBytes.of((Object) root, shared)).isEqualTo(expected);
        System.gc(); // moves objects; the count does not depend on where they are
        assertThat(RetainedBytes.of((Object) root, shared)).isEqualTo(expected);
    }

    @Test
    void withNothingShared_isTheWholeGraph() {
        Object[] root = {new long[10], "x"};
        assertThat(RetainedBytes.of((Object) root))
                .isEqualTo(GraphLayout.parseInstance((Object) root).totalSize());
    }
}
