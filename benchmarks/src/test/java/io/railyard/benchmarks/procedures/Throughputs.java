package io.railyard.benchmarks.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.ShuffleThroughput.Failure;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Throughput;

/** The tests' access to a {@link Throughput}'s shape: each asserts the shape, then returns it. */
public final class Throughputs {
    private Throughputs() {}

    /** {@code t} as measured; fails with {@code t} (its failure's message) if it was not. */
    public static Throughput.Measured measured(Throughput t) {
        return measured(t, "throughput");
    }

    /** {@link #measured(Throughput)}, the assertion described as {@code description}. */
    public static Throughput.Measured measured(Throughput t, String description) {
        assertThat(t).as(description).isInstanceOf(Throughput.Measured.class);
        return (Throughput.Measured) t;
    }

    /** Why {@code t} has no numbers; fails if it was measured. */
    public static Failure failure(Throughput t) {
        assertThat(t).isInstanceOf(Throughput.Failed.class);
        return ((Throughput.Failed) t).failure();
    }
}
