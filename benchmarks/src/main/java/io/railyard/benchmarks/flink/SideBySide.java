package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.FailoverProcedures;
import io.railyard.benchmarks.procedures.ReferenceJobs;
import io.railyard.benchmarks.procedures.RegionProcedures;

/**
 * The system a side-by-side benchmark runs: its JMH parameter {@code system}.
 *
 * <p>Design notes. Each procedure has one {@code *SideBySideBenchmark} class that runs Railyard and
 * Flink 2.x (flink-runtime, {@link FlinkProcedures}) on the same job ({@link ReferenceJobs.Shape}
 * at the same parallelism, translated by {@link FlinkJobs}) in the same JMH run, with {@code
 * system} the last parameter: JMH varies it fastest, so each Railyard row is directly above the
 * Flink row of the same job, and the ratio is the quotient of adjacent scores (all in microseconds
 * per operation). The two sides share the class's mode, iterations and fork, which are set for
 * Flink's scale (seconds per operation at P = 10,000): procedures that change their state run once
 * per iteration ({@code SingleShotTime}) on a state prepared outside the measurement, the others as
 * {@code AverageTime}. Each class says what work its two sides do and where they differ.
 *
 * <p>Run all: {@code java -jar benchmarks/target/benchmarks.jar SideBySide -gc true} ({@code -gc
 * true} collects garbage between iterations, so that one side's garbage is not timed in the other
 * side's run or in the next iteration). Pick jobs with {@code -p parallelism=10000 -p
 * shape=BLOCKING}.
 */
public enum SideBySide {
    /** Railyard's procedure classes ({@link RegionProcedures}, {@link FailoverProcedures}, …). */
    RAILYARD,
    /** flink-runtime's scheduler components ({@link FlinkProcedures}, {@link FlinkDeployment}). */
    FLINK;

    /**
     * The heap of every side-by-side fork: Flink deploying the 10k × 10k job peaks at about 1.3 GiB
     * live (GC log); 8 GiB keeps collections rare inside Flink's seconds-long steps. Railyard gets
     * the same.
     */
    public static final String MAX_HEAP = "-Xmx8g";
}
