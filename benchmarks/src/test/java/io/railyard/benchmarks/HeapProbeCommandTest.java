package io.railyard.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The heap probe's lifecycle runs end to end at a small parallelism. */
class HeapProbeCommandTest {

    @Test
    void lifecycle_initialisesSchedulesDeploysAndFailsOver() throws IOException {
        long bytes = HeapProbeCommand.runLifecycle(100);

        // 200 descriptors of at least the frame and the job id, plus the 101 restarted tasks
        assertThat(bytes).isGreaterThan(200L * 24 + 101);
    }
}
