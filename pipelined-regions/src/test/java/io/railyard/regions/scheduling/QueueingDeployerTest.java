package io.railyard.regions.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import it.unimi.dsi.fastutil.ints.IntList;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The queue of an event's scheduled regions, kept as runs and read as a list. */
class QueueingDeployerTest {
    private final QueueingDeployer deployer = new QueueingDeployer();

    @Test
    void readsTheRegionsInTheOrderTheyWereScheduled_runsAndSinglesMixed() {
        int[] scheduled = {4, 5, 6, 2, 9, 10, 3, 4};
        for (int region : scheduled) {
            deployer.deploy(region);
        }

        IntList regions = deployer.regions();

        assertThat(regions.toIntArray()).containsExactly(4, 5, 6, 2, 9, 10, 3, 4);
        assertThat(regions.getInt(6)).as("a read that goes back").isEqualTo(3);
        assertThat(regions.getInt(1)).isEqualTo(5);
        assertThatThrownBy(() -> regions.getInt(8)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void matchesAPlainList_onRandomSequences() {
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            List<Integer> expected = new ArrayList<>();
            int region = random.nextInt(10);
            for (int i = random.nextInt(40); i > 0; i--) {
                region = random.nextInt(4) == 0 ? random.nextInt(50) : region + 1;
                expected.add(region);
                deployer.deploy(region);
            }

            assertThat(deployer.regions().toIntArray())
                    .containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());
            assertThat(deployer.isEmpty()).isEqualTo(expected.isEmpty());
            deployer.clear();
            assertThat(deployer.regions().toIntArray()).isEmpty();
        }
    }
}
