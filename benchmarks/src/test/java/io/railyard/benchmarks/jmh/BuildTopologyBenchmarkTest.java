package io.railyard.benchmarks.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.BuildTopology;
import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.PackedRange;
import org.junit.jupiter.api.Test;

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
        JmhSmoke.assertStart(new String[0], BuildTopologyBenchmark.class);
    }
}
