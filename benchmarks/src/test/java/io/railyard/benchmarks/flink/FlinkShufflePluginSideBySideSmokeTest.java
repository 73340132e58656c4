package io.railyard.benchmarks.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.jmh.JmhSmoke;
import io.railyard.benchmarks.procedures.LongJobs;
import io.railyard.benchmarks.procedures.LongJobs.Exchange;
import io.railyard.benchmarks.procedures.LongJobs.Shape;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.worker.Tally;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The plugin comparison's Railyard side runs every job of {@link
 * FlinkShufflePluginSideBySideBenchmark} (shape × mode) on the MiniCluster with Railyard's shuffle
 * and counts exactly what Flink's own shuffle counts; and the benchmark starts under JMH on both.
 */
class FlinkShufflePluginSideBySideSmokeTest {
    private static final long N = 10_000;

    @TempDir static Path directory;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Exchange.class)
    void railyardsShuffle_deliversEveryRecordOnce(Exchange mode) throws Exception {
        Tally expected = LongJobs.expected(N);
        try (FlinkBatchJobs flink =
                FlinkBatchJobs.start(
                        directory,
                        ShuffleOptions.Compression.NONE,
                        mode,
                        FlinkShufflePluginSideBySideBenchmark.shuffleConfiguration(
                                FlinkShufflePluginSideBySideBenchmark.Shuffle.RAILYARD))) {
            for (Shape shape : Shape.values()) {
                assertThat(flink.run(shape, N)).as("%s %s", shape, mode).isEqualTo(expected);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(FlinkShufflePluginSideBySideBenchmark.Shuffle.class)
    void benchmark_startsUnderJmh(FlinkShufflePluginSideBySideBenchmark.Shuffle shuffle)
            throws Exception {
        JmhSmoke.assertStart(
                new String[] {
                    "shuffle", shuffle.name(),
                    "shape", Shape.KEYED_ALL_TO_ALL.name(),
                    "mode", Exchange.BLOCKING.name(),
                    "recordsPerSubtask", Long.toString(N)
                },
                FlinkShufflePluginSideBySideBenchmark.class);
    }
}
