package io.railyard.benchmarks.procedures;

import io.railyard.benchmarks.procedures.LongJobs.Exchange;
import io.railyard.benchmarks.procedures.LongJobs.Shape;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.local.JobResult;
import io.railyard.local.LocalEngine;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.worker.Tally;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * Railyard's side of the MiniCluster comparison: one {@link LocalEngine} of 1 worker × {@value
 * LongJobs#SLOTS} slots with {@link LongJobs#NETWORK_MEMORY_BYTES} of network memory in {@link
 * LongJobs#PAGE_BYTES} pages and sort-based blocking partitions (Flink 2.3's only blocking kind),
 * running {@link LongJobs} one after another, without restarts (Flink's side runs with the restart
 * strategy "none").
 *
 * <p>Start one per trial and {@link #close} it; {@link #run} may be called any number of times,
 * from one thread at a time (the engine runs one job at a time).
 */
public final class RailyardBatchJobs implements AutoCloseable {
    /** Longest a job may take before it is cancelled and reported. */
    public static final Duration TIMEOUT = Duration.ofMinutes(10);

    private final LocalEngine engine;

    private RailyardBatchJobs(LocalEngine engine) {
        this.engine = engine;
    }

    /**
     * Starts the engine, its shuffle directory a fresh one under {@code parent}, with the given
     * frame codec.
     *
     * @throws IOException if the directory cannot be made
     */
    public static RailyardBatchJobs start(Path parent, ShuffleOptions.Compression compression)
            throws IOException {
        return new RailyardBatchJobs(
                new LocalEngine(
                        parent, 1, LongJobs.SLOTS, options(compression), PartitionKind.SORT));
    }

    /** The shuffle settings of the engine's worker. */
    public static ShuffleOptions options(ShuffleOptions.Compression compression) {
        return ShuffleOptions.builder()
                .pageSizeBytes(LongJobs.PAGE_BYTES)
                .totalMemoryBytes(LongJobs.NETWORK_MEMORY_BYTES)
                .compression(compression)
                .build();
    }

    /**
     * Runs one job of {@code shape} and {@code exchange} with {@code recordsPerSubtask} records per
     * source subtask to its end, as it ended (see {@link #check}).
     *
     * @throws TimeoutException if it did not end within {@link #TIMEOUT} (everything cancelled and
     *     released first; the message says who waited for what)
     * @throws InterruptedException if interrupted while waiting (the job is cancelled)
     * @throws IOException if the engine cannot list its directories
     */
    public JobResult run(Shape shape, Exchange exchange, long recordsPerSubtask)
            throws TimeoutException, InterruptedException, IOException {
        return run(shape, exchange, recordsPerSubtask, LongJobs.PARALLELISM);
    }

    /**
     * Runs one job as {@link #run(Shape, Exchange, long)} does with {@code parallelism} subtasks
     * per vertex, on the same {@value LongJobs#SLOTS} slots (a blocking job's tasks run in waves).
     *
     * @throws TimeoutException if it did not end within {@link #TIMEOUT}
     * @throws InterruptedException if interrupted while waiting (the job is cancelled)
     * @throws IOException if the engine cannot list its directories
     * @throws IllegalArgumentException if {@code parallelism} is below 1
     */
    public JobResult run(Shape shape, Exchange exchange, long recordsPerSubtask, int parallelism)
            throws TimeoutException, InterruptedException, IOException {
        return engine.run(
                LongJobs.graph(shape, exchange, parallelism),
                LongJobs.of(recordsPerSubtask),
                RestartBackoffPolicy.noRestart(),
                TIMEOUT);
    }

    /**
     * Checks that {@code result} is a FINISHED job whose sinks committed exactly {@code expected}
     * (count and checksum, {@link LongJobs#expected}) and left no page or partition file behind.
     *
     * @return what the sinks committed
     * @throws IllegalStateException naming what differs (with a FAILED job's cause attached)
     */
    public static Tally check(JobResult result, Tally expected) {
        if (result.outcome() instanceof JobResult.Failed failed) {
            throw new IllegalStateException("Railyard's job " + failed, failed.cause());
        }
        Tally got = result.committedTotal();
        if (!got.equals(expected)) {
            throw new IllegalStateException(
                    "Railyard's sinks committed " + got + ", expected " + expected);
        }
        if (result.leaks().pages() != 0
                || result.leaks().files() != 0
                || result.leaks().partitions() != 0) {
            throw new IllegalStateException(
                    "Railyard's job left "
                            + result.leaks().pages()
                            + " pages, "
                            + result.leaks().files()
                            + " files and "
                            + result.leaks().partitions()
                            + " unreleased partitions behind");
        }
        return got;
    }

    /** Stops the engine and deletes its directory. */
    @Override
    public void close() throws IOException {
        engine.close();
    }
}
