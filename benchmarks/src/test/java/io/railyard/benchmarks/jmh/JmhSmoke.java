package io.railyard.benchmarks.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * One short in-process JMH run (no fork, no warm-up, one 100 ms iteration) that proves benchmarks
 * start and produce a positive score: the CI twins' smoke check. Not a measurement.
 */
public final class JmhSmoke {
    private JmhSmoke() {}

    /**
     * Runs {@code benchmarks} at {@code parallelism = 1000} with the extra {@code params} (name,
     * value, name, value, …) and checks one positive result per benchmark.
     */
    public static void assertStart(String[] params, Class<?>... benchmarks) throws RunnerException {
        // A smoke start measures nothing, so a real JMH run elsewhere on the machine (which holds
        // /tmp/jmh.lock) must not make it fail.
        System.setProperty("jmh.ignoreLock", "true");
        ChainedOptionsBuilder options =
                new OptionsBuilder()
                        .param("parallelism", "1000")
                        .forks(0)
                        .warmupIterations(0)
                        .measurementIterations(1)
                        .measurementTime(TimeValue.milliseconds(100))
                        .shouldFailOnError(true);
        for (Class<?> benchmark : benchmarks) {
            options.include(benchmark.getName());
        }
        for (int i = 0; i + 1 < params.length; i += 2) {
            options.param(params[i], params[i + 1]);
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        assertThat(results).hasSize(benchmarks.length);
        assertThat(results).allMatch(result -> result.getPrimaryResult().getScore() > 0);
    }
}
