package io.railyard.regions.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link RankQueue} against a {@link TreeSet} under random interleavings of adds and polls. */
class RankQueueTest {

    static LongStream seeds() {
        return LongStream.range(0, 100);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void pollsLowestQueuedFirst_likeASortedSet(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int n = 1 + random.nextInt(300);
        RankQueue queue = new RankQueue(n);
        TreeSet<Integer> oracle = new TreeSet<>();
        for (int step = 0; step < 2_000; step++) {
            if (random.nextInt(3) > 0) {
                int region = random.nextInt(n);
                queue.add(region);
                oracle.add(region);
            } else {
                Integer expected = oracle.pollFirst();
                assertThat(queue.poll()).isEqualTo(expected == null ? -1 : expected);
            }
        }
        for (Integer expected = oracle.pollFirst();
                expected != null;
                expected = oracle.pollFirst()) {
            assertThat(queue.poll()).isEqualTo(expected);
        }
        assertThat(queue.poll()).isEqualTo(-1);
    }
}
