package io.railyard.benchmarks.flink;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The base of every side-by-side benchmark (see {@link SideBySide}): the parallelisms (1k, 4k,
 * 10k), the {@code system} parameter, the fork with {@link SideBySide#MAX_HEAP}, and the lifecycle
 * of Flink's main-thread executor — created on first use by {@link #flinkExecutor()}, stopped after
 * the trial. Subclasses add the job shape and their mode.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = SideBySide.MAX_HEAP)
public abstract class SideBySideBenchmark {
    /** Parallelism of the shape's vertices. */
    @Param({"1000", "4000", "10000"})
    public int parallelism;

    /** Railyard or Flink; JMH varies it fastest (last in name order), so pairs are adjacent. */
    @Param({"RAILYARD", "FLINK"})
    @SuppressWarnings("NullAway.Init") // set by JMH before setup
    public SideBySide system;

    private @Nullable ScheduledExecutorService executor;

    /** Whether this trial runs Railyard's side. */
    protected final boolean railyard() {
        return system == SideBySide.RAILYARD;
    }

    /** Flink's main-thread executor for this trial, created on first use. */
    protected final ScheduledExecutorService flinkExecutor() {
        ScheduledExecutorService current = executor;
        if (current == null) {
            current = Executors.newSingleThreadScheduledExecutor();
            executor = current;
        }
        return current;
    }

    /** Stops Flink's executor, if the trial created one. */
    @TearDown(Level.Trial)
    public final void stopFlinkExecutor() {
        ScheduledExecutorService current = executor;
        if (current != null) {
            current.shutdownNow();
            executor = null;
        }
    }
}
