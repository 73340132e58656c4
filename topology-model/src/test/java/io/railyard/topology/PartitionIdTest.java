package io.railyard.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class PartitionIdTest {
    @Test
    void namesPartitionAndAttempt() {
        PartitionId id = new PartitionId(17, 2);

        assertThat(id.toString()).isEqualTo("p17.a2");
        assertThat(id).isEqualTo(new PartitionId(17, 2)).isNotEqualTo(new PartitionId(17, 3));
    }

    @Test
    void isAValidShufflePartitionName() {
        // ShuffleWorker's name rule, restated: the shuffle layer is not a dependency here.
        assertThat(new PartitionId(Integer.MAX_VALUE, Integer.MAX_VALUE).toString())
                .matches("[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}");
    }

    @Test
    void rejectsNegatives_namingWhich() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new PartitionId(-1, 0))
                .withMessage("partition must be >= 0, got -1");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new PartitionId(0, -3))
                .withMessage("attempt must be >= 0, got -3");
    }
}
