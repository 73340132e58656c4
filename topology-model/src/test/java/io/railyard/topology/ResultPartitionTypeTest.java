package io.railyard.topology;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ResultPartitionTypeTest {

    @Test
    void properties_matchFlinksDefinitions() {
        assertThat(ResultPartitionType.PIPELINED.mustBePipelinedConsumed()).isTrue();
        assertThat(ResultPartitionType.PIPELINED_BOUNDED.mustBePipelinedConsumed()).isTrue();
        assertThat(ResultPartitionType.PIPELINED_BOUNDED.isBounded()).isTrue();
        assertThat(ResultPartitionType.PIPELINED.isReconsumable()).isFalse();
        assertThat(ResultPartitionType.PIPELINED.isReleasedByScheduler()).isFalse();

        assertThat(ResultPartitionType.BLOCKING.isBlocking()).isTrue();
        assertThat(ResultPartitionType.BLOCKING.canBePipelinedConsumed()).isFalse();
        assertThat(ResultPartitionType.BLOCKING.isReconsumable()).isTrue();
        assertThat(ResultPartitionType.BLOCKING.isReleasedByScheduler()).isTrue();

        assertThat(ResultPartitionType.HYBRID_FULL.isHybrid()).isTrue();
        assertThat(ResultPartitionType.HYBRID_FULL.canBePipelinedConsumed()).isTrue();
        assertThat(ResultPartitionType.HYBRID_FULL.mustBePipelinedConsumed()).isFalse();
        assertThat(ResultPartitionType.HYBRID_FULL.isReconsumable()).isTrue();
        assertThat(ResultPartitionType.HYBRID_SELECTIVE.isReconsumable()).isFalse();
        assertThat(ResultPartitionType.HYBRID_SELECTIVE.releasedBy())
                .isEqualTo(ResultPartitionType.ReleasedBy.SCHEDULER);
    }
}
