package io.railyard.benchmarks.procedures;

import static com.google.common.base.Preconditions.checkArgument;

import io.railyard.local.JobResult;
import io.railyard.local.LocalEngine;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.worker.Tally;
import io.railyard.worker.TaskCode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The worker-side heap a running job costs, measured with JOL: the PIPELINED reference job ({@code
 * source -> sink}, ALL_TO_ALL, P × P connections) on one worker of the {@link LocalEngine}, held
 * still at the moment all 2P tasks are running — every partition created, every gate opened on its
 * feeds, no record sent yet — and walked by {@link org.openjdk.jol.info.GraphLayout} from the
 * engine. The same engine walked before the job is the baseline; the difference is what the 2P
 * running tasks hold (task runs, partitions, writers, gates, feeds, decoded descriptors), divided
 * by 2P per task and by P² per connection.
 *
 * <p>Holding still: the worker runs its tasks on one thread; each task, once every task has entered
 * its code, blocks that thread until the walk is over (before that a task yields at once, so the
 * others start). Nothing else changes the worker's state meanwhile (no data, no timers due), so the
 * walk sees a consistent graph. Network pages are direct buffers: JOL counts their {@code
 * ByteBuffer} objects, not their memory ({@link #GATE_PAGES} per gate and {@link #WRITER_PAGES} per
 * writer are the network memory, as configured).
 *
 * <p>Cost: O(P) tasks, the walk O(objects held); at P = 10,000 a few seconds and well under 1 GiB
 * of heap. Not thread-safe: one measurement at a time.
 */
public final class RunningFootprint {
    /** Pages each sink's gate is guaranteed. */
    static final int GATE_PAGES = TimeToRunning.GATE_PAGES;

    /** Pages each source's writer buffers. */
    static final int WRITER_PAGES = TimeToRunning.WRITER_PAGES;

    private static final Duration TIMEOUT = Duration.ofMinutes(5); // as TimeToRunning.run's

    /**
     * The heap of the running job.
     *
     * @param parallelism of source and sink
     * @param idleBytes the engine's retained bytes before the job
     * @param runningBytes the engine's retained bytes with all 2P tasks running
     */
    public record Result(int parallelism, long idleBytes, long runningBytes) {
        /** Tasks of the job: 2P. */
        public long tasks() {
            return 2L * parallelism;
        }

        /** Task-level connections of the job's all-to-all edge: P². */
        public long connections() {
            return (long) parallelism * parallelism;
        }

        /** What the running job holds: running minus idle. */
        public long jobBytes() {
            return runningBytes - idleBytes;
        }

        /** {@link #jobBytes} per task. */
        public double bytesPerTask() {
            return jobBytes() / (double) tasks();
        }

        /** {@link #jobBytes} per connection. */
        public double bytesPerConnection() {
            return jobBytes() / (double) connections();
        }
    }

    private RunningFootprint() {}

    /**
     * Measures the running job at {@code parallelism} on a fresh one-worker engine under {@code
     * directory} (see the class comment).
     *
     * @throws IllegalArgumentException if {@code parallelism < 1}
     * @throws IllegalStateException if the job did not finish exactly and clean, or did not reach
     *     RUNNING within 5 minutes
     * @throws IOException if the engine's directory cannot be made
     */
    public static Result measure(int parallelism, Path directory)
            throws IOException, InterruptedException {
        checkArgument(parallelism >= 1, "parallelism must be >= 1, was %s", parallelism);
        JobGraph job = ReferenceJobs.Shape.PIPELINED.job(parallelism);
        int tasks = 2 * parallelism;
        ShuffleOptions options = TimeToRunning.options(parallelism, tasks);
        try (LocalEngine engine =
                new LocalEngine(directory, 1, tasks, 1, options, PartitionKind.SORT, null)) {
            long idle = ScaleReport.retainedBytes(engine);
            Hold hold = new Hold(tasks);
            CompletableFuture<JobResult> run =
                    CompletableFuture.supplyAsync(() -> TimeToRunning.run(engine, job, hold));
            long running;
            try {
                if (!hold.held.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException(
                            "the PIPELINED reference job at P = "
                                    + parallelism
                                    + " did not reach RUNNING within "
                                    + TIMEOUT
                                    + " ("
                                    + hold.notRunning.get()
                                    + " tasks not started)");
                }
                running = ScaleReport.retainedBytes(engine);
            } finally {
                hold.release.countDown();
            }
            JobResult result;
            try {
                result = run.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException(
                        "the held job at P = " + parallelism + " did not end: " + e, e);
            }
            RailyardBatchJobs.check(result, Tally.ZERO);
            return new Result(parallelism, idle, running);
        }
    }

    /** The tasks: each counts itself in, then holds the worker's thread until released. */
    private static final class Hold implements TaskCode.Factory {
        final AtomicInteger notRunning;
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        Hold(int tasks) {
            this.notRunning = new AtomicInteger(tasks);
        }

        @Override
        public TaskCode create(int vertex, int subtask, int attempt) {
            boolean[] started = {false};
            return context -> {
                if (!started[0]) {
                    started[0] = true;
                    notRunning.decrementAndGet();
                }
                if (release.getCount() > 0) {
                    if (notRunning.get() > 0) {
                        return TaskCode.Step.YIELD; // let the others start
                    }
                    held.countDown(); // the worker's one thread stops here: nothing moves
                    release.await();
                }
                return vertex == 0 || context.readInputs((channel, record) -> {})
                        ? TaskCode.Step.done(Tally.ZERO)
                        : TaskCode.Step.YIELD;
            };
        }
    }
}
