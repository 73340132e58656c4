package io.railyard.benchmarks.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The base of Railyard's scale benchmarks: the parallelisms every procedure is measured at (1k,
 * 10k, 100k, 1M; pick with {@code -p parallelism=...}) and the defaults they share — average time
 * in microseconds, 3 × 1 s of warm-up, 5 × 1 s measured, one fork. A subclass adds its own
 * parameters (the job shape) and may override a class annotation (single-shot procedures do); JMH
 * reads annotations and parameters through the class hierarchy. Benchmarks with other parallelisms
 * ({@link DeployAllTasksBenchmark}, {@link ShuffleBenchmark}) declare their own.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public abstract class ScaleBenchmark {
    /** Parallelism of the shape's vertices. */
    @Param({"1000", "10000", "100000", "1000000"})
    public int parallelism;
}
