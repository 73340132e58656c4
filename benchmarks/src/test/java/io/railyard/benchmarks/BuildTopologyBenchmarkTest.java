package io.railyard.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.PackedRange;
import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** CI twin of {@link BuildTopologyBenchmark}: the same procedure at small P, checked. */
class BuildTopologyBenchmarkTest {

    @Test
    void buildTopology_smallP_buildsTheReferenceJobAsOneGroup() {
        ExecutionTopology topology = BuildTopology.run(100);
        assertThat(topology.jobGraph().numTasks()).isEqualTo(200);
        assertThat(topology.numGroups()).isEqualTo(1);
        assertThat(topology.partitionRange(0)).isEqualTo(PackedRange.of(0, 100));
        assertThat(topology.numConnections(0)).isEqualTo(10_000L);
        assertThat(topology.checkInvariants()).isTrue();
    }

    @Test
    void benchmark_startsUnderJmh() throws Exception {
        Collection<RunResult> results =
                new Runner(
                                new OptionsBuilder()
                                        .include(BuildTopologyBenchmark.class.getName())
                                        .param("parallelism", "1000")
                                        .forks(0)
                                        .warmupIterations(0)
                                        .measurementIterations(1)
                                        .measurementTime(TimeValue.milliseconds(200))
                                        .shouldFailOnError(true)
                                        .build())
                        .run();
        assertThat(results).hasSize(1);
        assertThat(results.iterator().next().getPrimaryResult().getScore()).isPositive();
    }
}
