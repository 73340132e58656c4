package io.railyard.benchmarks.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The scheduler lifecycle of {@code heap-probe}. */
class LifecycleTest {

    @Test
    void run_initialisesSchedulesDeploysAndFailsOver() throws IOException {
        long bytes = Lifecycle.run(100);

        // 200 descriptors of at least the frame and the job id, plus the 101 restarted tasks
        assertThat(bytes).isGreaterThan(200L * 24 + 101);
    }
}
