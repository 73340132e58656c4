package io.railyard.benchmarks.procedures;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.math.IntMath;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.local.JobResult;
import io.railyard.local.LocalEngine;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.worker.Tally;
import io.railyard.worker.TaskCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Time to RUNNING of the PIPELINED reference job ({@code source -> sink}, ALL_TO_ALL, one region of
 * 2P tasks) with no-op tasks, through the whole path on the {@link LocalEngine}: schedule the
 * region, create and encode the deployment descriptors, hand the bytes to the in-process workers,
 * decode them, create the partitions and open the gates, and start every task. The clock stops when
 * the last of the 2P tasks enters its code (Flink's RUNNING); the job then runs to its end (sources
 * emit nothing, sinks read their end-of-partition markers) outside the measured time.
 *
 * <p>The engine is built once, outside the measurement: its workers and their slots exist before
 * the job, as a cluster's task managers do; each worker runs its tasks cooperatively on as many
 * threads as the machine has cores (a task owns no thread). Each worker gets {@link #GATE_PAGES}
 * pages per gate (one gate per sink) and room for a partition writer per source, in pages of {@link
 * #PAGE_BYTES} (the tasks carry no data, so the page size only sets the memory the pool allocates
 * before the job). Not thread-safe; close it.
 */
public final class TimeToRunning implements AutoCloseable {
    /** Workers of the engine. */
    public static final int WORKERS = 4;

    /** Pages each sink's gate is guaranteed (Flink's floating buffers per gate are 8). */
    static final int GATE_PAGES = 2;

    /** Pages each source's partition writer buffers before it hands data on. */
    static final int WRITER_PAGES = 4;

    /** Bytes per network page: small, so that P = 100,000 fits in a few hundred MiB per worker. */
    static final int PAGE_BYTES = 1 << 10;

    /** Runs timed by {@link #measure} after one untimed run. */
    static final int SAMPLES = 3;

    /**
     * A measured time to RUNNING.
     *
     * @param parallelism parallelism of source and sink (2P tasks)
     * @param millis the median of {@value #SAMPLES} runs after a warm-up run
     */
    public record Result(int parallelism, double millis) {}

    private final int parallelism;
    private final JobGraph job;
    private final LocalEngine engine;

    /**
     * An engine for the PIPELINED reference job at {@code parallelism}, under {@code directory}.
     *
     * @throws IllegalArgumentException if {@code parallelism < 1}
     */
    public TimeToRunning(int parallelism, Path directory) throws IOException {
        checkArgument(parallelism >= 1, "parallelism must be >= 1, was %s", parallelism);
        this.parallelism = parallelism;
        this.job = ReferenceJobs.Shape.PIPELINED.job(parallelism);
        int slots = IntMath.divide(2 * parallelism, WORKERS, RoundingMode.CEILING);
        int gatesPerWorker = IntMath.divide(parallelism, WORKERS, RoundingMode.CEILING);
        this.engine =
                new LocalEngine(
                        directory,
                        WORKERS,
                        slots,
                        options(gatesPerWorker, slots),
                        PartitionKind.SORT);
    }

    /**
     * A worker's shuffle settings for the reference job when it holds {@code gates} sinks' gates
     * and {@code slots} slots: {@link #GATE_PAGES} per gate, a writer of {@link #WRITER_PAGES} (and
     * its 2 staging pages) per slot, 64 pages to spare, in pages of {@link #PAGE_BYTES}.
     */
    static ShuffleOptions options(int gates, int slots) {
        return ShuffleOptions.builder()
                .pageSizeBytes(PAGE_BYTES)
                .totalPages(gates * GATE_PAGES + slots * (WRITER_PAGES + 2) + 64)
                .gatePages(GATE_PAGES)
                .sortBufferPages(WRITER_PAGES)
                .build();
    }

    /**
     * Runs the reference job {@code job} with {@code code} on {@code engine} to its end, within 5
     * minutes, without restarts.
     *
     * @throws IllegalStateException if it timed out or the thread was interrupted
     * @throws UncheckedIOException if the engine cannot list its directories
     */
    static JobResult run(LocalEngine engine, JobGraph job, TaskCode.Factory code) {
        try {
            return engine.run(job, code, RestartBackoffPolicy.noRestart(), Duration.ofMinutes(5));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (TimeoutException e) {
            throw new IllegalStateException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * The median time to RUNNING at {@code parallelism} of {@value #SAMPLES} runs after one warm-up
     * run, on a fresh engine under {@code directory}. O(P) tasks each reading P channels.
     */
    public static Result measure(int parallelism, Path directory) throws IOException {
        try (TimeToRunning procedure = new TimeToRunning(parallelism, directory)) {
            procedure.runOnce();
            double[] samples = new double[SAMPLES];
            for (int s = 0; s < SAMPLES; s++) {
                samples[s] = procedure.runOnce();
            }
            Arrays.sort(samples);
            return new Result(parallelism, samples[SAMPLES / 2]);
        }
    }

    /**
     * Runs the job once; the milliseconds from the call until every task was running.
     *
     * @throws IllegalStateException if the job did not finish, left pages, files or partitions
     *     behind, or not every task ran once
     */
    public double runOnce() {
        AtomicInteger notRunning = new AtomicInteger(2 * parallelism);
        AtomicLong allRunningAt = new AtomicLong();
        TaskCode.Factory noOp =
                (vertex, subtask, attempt) -> {
                    boolean[] running = {false};
                    return context -> {
                        if (!running[0]) {
                            running[0] = true;
                            if (notRunning.decrementAndGet() == 0) {
                                allRunningAt.set(System.nanoTime());
                            }
                        }
                        return vertex == 0 || context.readInputs((channel, record) -> {})
                                ? TaskCode.Step.done(Tally.ZERO)
                                : TaskCode.Step.YIELD;
                    };
                };
        long start = System.nanoTime();
        JobResult result = run(engine, job, noOp);
        RailyardBatchJobs.check(result, Tally.ZERO); // FINISHED, nothing left behind
        if (notRunning.get() != 0) {
            throw new IllegalStateException(
                    "the PIPELINED reference job at P = "
                            + parallelism
                            + " finished with "
                            + notRunning.get()
                            + " tasks never running");
        }
        return (allRunningAt.get() - start) / 1e6;
    }

    @Override
    public void close() throws IOException {
        engine.close();
    }
}
