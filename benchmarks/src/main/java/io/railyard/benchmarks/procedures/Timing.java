package io.railyard.benchmarks.procedures;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Arrays;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * Wall-clock timing for the scale report: warm up, then the median of several samples, each sample
 * the mean of a batch of calls long enough to dwarf the timer's resolution.
 *
 * <p>Warm-up: {@value #WARMUP_PROPERTY} milliseconds (default {@value #DEFAULT_WARMUP_MS}) and at
 * least {@value #MIN_WARMUP_CALLS} calls, the same rule for Railyard's and Flink's procedures. Half
 * a second, the rule until 2026-11, left Railyard's millisecond procedures short of the JIT's
 * steady state: "deploy all" at P = 10,000 measured 8–10 ms after it and 3.7 ms after 3 s, as JMH's
 * {@code DeployAllTasksBenchmark} measures it (5.0–5.4 ms), while Flink's procedures did not
 * change. Tests set the property low.
 *
 * <p>The report gives a quick, single-process overview; the JMH benchmarks are the reference for
 * performance claims. Not thread-safe.
 */
public final class Timing {
    /** The system property that sets the warm-up, in milliseconds. */
    public static final String WARMUP_PROPERTY = "railyard.report.warmup-ms";

    private static final long DEFAULT_WARMUP_MS = 2_000;
    private static final int MIN_WARMUP_CALLS = 5;
    private static final long WARMUP_NANOS =
            Long.getLong(WARMUP_PROPERTY, DEFAULT_WARMUP_MS) * 1_000_000L;
    private static final long MIN_BATCH_NANOS = 5_000_000L;
    private static final int SAMPLES = 11;

    /** Results of timed calls are folded into this field so the JIT cannot drop the calls. */
    @SuppressWarnings("unused")
    private static volatile int sink;

    private Timing() {}

    /**
     * The median time of one call of {@code operation}, in milliseconds. The operation receives the
     * call's index; its result is consumed so the call cannot be optimised away.
     */
    public static double medianMillis(IntFunction<?> operation) {
        int calls = 0;
        long warmupEnd = System.nanoTime() + WARMUP_NANOS;
        while (System.nanoTime() < warmupEnd || calls < MIN_WARMUP_CALLS) {
            consume(operation.apply(calls++));
        }
        int batch = 1;
        while (timeBatch(operation, batch) < MIN_BATCH_NANOS && batch < (1 << 20)) {
            batch *= 2;
        }
        double[] samples = new double[SAMPLES];
        for (int s = 0; s < SAMPLES; s++) {
            samples[s] = timeBatch(operation, batch) / (double) batch / 1e6;
        }
        Arrays.sort(samples);
        return samples[SAMPLES / 2];
    }

    /**
     * The median time of {@code operation} alone, in milliseconds, each call on a fresh state from
     * {@code setup} that is prepared outside the timed part. For operations that consume their
     * state and take at least microseconds, so that one call is measurable on its own.
     */
    public static <S> double medianMillis(Supplier<S> setup, Function<S, ?> operation) {
        long warmupEnd = System.nanoTime() + WARMUP_NANOS;
        for (int calls = 0; System.nanoTime() < warmupEnd || calls < MIN_WARMUP_CALLS; calls++) {
            consume(operation.apply(setup.get()));
        }
        double[] samples = new double[SAMPLES];
        for (int s = 0; s < SAMPLES; s++) {
            S state = setup.get();
            long start = System.nanoTime();
            consume(operation.apply(state));
            samples[s] = (System.nanoTime() - start) / 1e6;
        }
        Arrays.sort(samples);
        return samples[SAMPLES / 2];
    }

    private static long timeBatch(IntFunction<?> operation, int batch) {
        checkArgument(batch > 0, "batch must be > 0, was %s", batch);
        long start = System.nanoTime();
        for (int i = 0; i < batch; i++) {
            consume(operation.apply(i));
        }
        return System.nanoTime() - start;
    }

    private static void consume(Object result) {
        sink ^= System.identityHashCode(result);
    }
}
