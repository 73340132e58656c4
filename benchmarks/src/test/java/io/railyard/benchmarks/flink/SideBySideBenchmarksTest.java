package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.jmh.JmhSmoke;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The side-by-side benchmarks start under JMH on both systems and produce a score: one short run
 * per benchmark and system on the BLOCKING job (tasks to restart: a failing source) at P = 1000.
 * Their answers are checked by {@link FlinkProceduresTest} and the Railyard benchmarks' own twins;
 * the shuffle pair's by {@link FlinkSortShuffleTest}.
 */
class SideBySideBenchmarksTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(SideBySide.class)
    void benchmarks_startUnderJmh(SideBySide system) throws Exception {
        String name = system.name();
        JmhSmoke.assertStart(
                new String[] {"system", name, "shape", "BLOCKING"},
                InitializationSideBySideBenchmark.class,
                BuildRegionsSideBySideBenchmark.class,
                InitSchedulingSideBySideBenchmark.class,
                ScheduleDownstreamSideBySideBenchmark.class,
                PartitionReleaseSideBySideBenchmark.class);
        JmhSmoke.assertStart(
                new String[] {"system", name, "failure", "BLOCKING_SOURCE"},
                TasksToRestartSideBySideBenchmark.class);
        JmhSmoke.assertStart(
                new String[] {"system", name, "shape", "BLOCKING", "offload", "true"},
                DeployAllSideBySideBenchmark.class);
    }

    /** The shuffle pair at the smoke's P = 1,000 with 1 MiB of records, compressed or not. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(SideBySide.class)
    void shuffleSideBySide_startsUnderJmh(SideBySide system) throws Exception {
        for (String compression : new String[] {"NONE", "LZ4"}) {
            JmhSmoke.assertStart(
                    new String[] {
                        "system", system.name(), "mebibytes", "1", "compression", compression
                    },
                    ShuffleSideBySideBenchmark.class);
        }
    }
}
