package io.railyard.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.ImmutableMap;
import io.railyard.worker.Tally;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobResultTest {
    @Test
    void outcome_printsTheWordTheRunCommandPrints_failedWithItsCause() {
        assertThat(new JobResult.Finished()).isEqualTo(JobResult.FINISHED).hasToString("FINISHED");
        assertThat(new JobResult.Failed(new IOException("disk gone")))
                .hasToString("FAILED: java.io.IOException: disk gone");
        assertThatThrownBy(() -> new JobResult.Failed(null)).hasMessage("cause");
    }

    @Test
    void leaks_cleanOnlyWhenNothingIsLeft() {
        assertThat(new JobResult.Leaks(0, 0, 0, 0).isClean()).isTrue();
        assertThat(new JobResult.Leaks(1, 0, 0, 0).isClean()).isFalse();
        assertThat(new JobResult.Leaks(0, 1, 0, 0).isClean()).isFalse();
        assertThat(new JobResult.Leaks(0, 0, 1, 0).isClean()).isFalse();
        assertThat(new JobResult.Leaks(0, 0, 0, 1).isClean()).isFalse();
        assertThat(new JobResult.Leaks(0, 0, 0, 0, List.of("task 3 attempt 0: running")).isClean())
                .isFalse();
    }

    @Test
    void committedTotal_sumsTheSinks_andRecordsPerSecondUsesTheWallTime() {
        JobResult result =
                new JobResult(
                        JobResult.FINISHED,
                        ImmutableMap.of(1, new Tally(300, 5), 2, new Tally(200, 6)),
                        new JobResult.Stats(0, 4, 2_000_000_000L, 2),
                        new JobResult.Leaks(0, 0, 0, 0),
                        JobResult.ShuffleBytes.NONE);

        assertThat(result.committedTotal()).isEqualTo(new Tally(300, 5).plus(new Tally(200, 6)));
        assertThat(result.recordsPerSecond()).isEqualTo(250.0);
    }
}
