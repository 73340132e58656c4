package io.railyard.benchmarks.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The scheduler lifecycle of {@code heap-probe}. */
class LifecycleTest {

    @Test
    void reference_initialisesSchedulesDeploysFailsOverAndFinishesEverything() throws IOException {
        Lifecycle.Result result = Lifecycle.run(100);

        // 200 descriptors of at least the frame and the job id
        assertThat(result.descriptorBytes()).isGreaterThan(200L * 24);
        // source#0 and, its partition being consumed by every sink, the 100 sinks
        assertThat(result.restartedTasks()).isEqualTo(101);
        // 100 sources, then source#0 again and the 100 sinks
        assertThat(result.finishedTasks()).isEqualTo(100 + 1 + 100);
    }

    @Test
    void everyShape_finishesEveryTaskAfterTheRestart() throws IOException {
        for (Shape shape : Shape.values()) {
            var graph = shape.job(40);
            Lifecycle.Result result = Lifecycle.run(graph);

            assertThat(result.finishedTasks())
                    .as("%s: every task once, plus the restarted ones that had finished", shape)
                    .isBetween(
                            (long) graph.numTasks(),
                            (long) graph.numTasks() + result.restartedTasks());
            assertThat(result.restartedTasks()).as("%s", shape).isPositive();
        }
    }
}
