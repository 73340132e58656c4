package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.FailoverProcedures;
import io.railyard.benchmarks.procedures.ReferenceJobs;
import io.railyard.benchmarks.procedures.RetainedBytes;
import io.railyard.benchmarks.procedures.ScaleReport;
import io.railyard.benchmarks.procedures.Timing;
import io.railyard.deployment.OffloadOptions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;

/**
 * The live Flink column of the scale report ({@code report --with-flink}): the same procedures on
 * the same reference job with Flink 2.x in this process, through {@link FlinkProcedures} and {@link
 * FlinkDeployment}, timed like Railyard's column ({@link Timing}), and the JOL retained size of
 * Flink's initialised execution graph (its scheduling topology and regions included), minus what it
 * shares with the executor's and this thread's object graphs (class loaders, statics).
 */
public final class FlinkColumnMeasurer {
    /** Procedures measured here: the progress bar's extra length. */
    public static final int STEPS = 8;

    private FlinkColumnMeasurer() {}

    /** Measures Flink at {@code parallelism}; {@code progress} hears each step. */
    public static ScaleReport.FlinkColumn measure(int parallelism, Consumer<String> progress)
            throws Exception {
        FlinkJobs.Translation job = FlinkJobs.translate(ReferenceJobs.reference(parallelism));
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
        try {
            Map<String, Double> millis = new LinkedHashMap<>();
            time(
                    millis,
                    progress,
                    "initialization",
                    i -> FlinkProcedures.initialize(job, executor));
            DefaultExecutionGraph graph = FlinkProcedures.initialize(job, executor).graph();
            time(millis, progress, "build_regions", i -> FlinkProcedures.buildRegions(graph));
            time(
                    millis,
                    progress,
                    "init_scheduling",
                    i ->
                            FlinkProcedures.initScheduling(
                                    graph.getSchedulingTopology(),
                                    new FlinkProcedures.CountingOperations()));
            millis.put(
                    "schedule_downstream",
                    Timing.medianMillis(
                            () -> unchecked(() -> new FlinkProcedures.Downstream(job, executor)),
                            FlinkProcedures.Downstream::finishLastSource));
            progress.accept("flink schedule_downstream");
            millis.put(
                    "deploy_all",
                    Timing.medianMillis(
                            () -> unchecked(() -> new FlinkDeployment(job, OffloadOptions.DEFAULT)),
                            deployment -> unchecked(() -> deployAllAndClose(deployment))));
            progress.accept("flink deploy_all");
            FlinkProcedures.Restart restart =
                    new FlinkProcedures.Restart(
                            job, executor, FailoverProcedures.Failure.BLOCKING_SOURCE);
            time(millis, progress, "tasks_to_restart", i -> restart.tasksToRestart());
            millis.put(
                    "partition_release",
                    Timing.medianMillis(
                            () -> new FlinkProcedures.Release(job, graph),
                            FlinkProcedures.Release::finishSinks));
            progress.accept("flink partition_release");
            long graphBytes = retainedGraphBytes(job, executor);
            progress.accept("flink memory");
            return new ScaleReport.FlinkColumn(
                    org.apache.flink.runtime.util.EnvironmentInformation.getVersion(),
                    millis,
                    graphBytes);
        } finally {
            executor.shutdownNow();
        }
    }

    /**
     * JOL retained bytes of Flink's initialised execution graph of {@code job} (with its scheduling
     * topology, regions and strategy), minus what it shares with the executor's and this thread's
     * object graphs.
     */
    static long retainedGraphBytes(FlinkJobs.Translation job, ScheduledExecutorService executor)
            throws Exception {
        return RetainedBytes.of(
                FlinkProcedures.initialize(job, executor), executor, Thread.currentThread());
    }

    /** {@link #retainedGraphBytes} for a Railyard job graph, with its own executor. */
    public static long retainedGraphBytes(io.railyard.topology.JobGraph graph) {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
        try {
            return retainedGraphBytes(FlinkJobs.translate(graph), executor);
        } catch (Exception e) {
            throw new IllegalStateException("Flink could not initialise the job: " + e, e);
        } finally {
            executor.shutdownNow();
        }
    }

    /**
     * Flink's whole lifecycle for {@code heap-probe}: initialise the execution graph and strategy,
     * schedule the sinks when the sources finish, create every task's deployment descriptor, and
     * compute the tasks to restart for a failed source. Each stage works on its own graph, built
     * after the previous one is dropped. Returns a checksum of the answers.
     */
    public static long runLifecycle(int parallelism) throws Exception {
        FlinkJobs.Translation job = FlinkJobs.translate(ReferenceJobs.reference(parallelism));
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
        try {
            long sum =
                    FlinkProcedures.numRegions(
                            FlinkProcedures.initialize(job, executor)
                                    .graph()
                                    .getSchedulingTopology());
            sum += new FlinkProcedures.Downstream(job, executor).finishLastSource();
            try (FlinkDeployment deployment = new FlinkDeployment(job, OffloadOptions.DEFAULT)) {
                sum += deployment.deployAll();
            }
            sum +=
                    new FlinkProcedures.Restart(
                                    job, executor, FailoverProcedures.Failure.BLOCKING_SOURCE)
                            .tasksToRestart();
            return sum;
        } finally {
            executor.shutdownNow();
        }
    }

    private static long deployAllAndClose(FlinkDeployment deployment) throws Exception {
        try (deployment) {
            return deployment.deployAll();
        }
    }

    private static void time(
            Map<String, Double> millis,
            Consumer<String> progress,
            String key,
            ThrowingIntFunction operation) {
        millis.put(key, Timing.medianMillis(i -> unchecked(() -> operation.apply(i))));
        progress.accept("flink " + key);
    }

    /** An int function that may throw. */
    @FunctionalInterface
    private interface ThrowingIntFunction {
        Object apply(int i) throws Exception;
    }

    /** A supplier that may throw. */
    @FunctionalInterface
    private interface ThrowingSupplier<T> {
        T get() throws Exception;
    }

    private static <T> T unchecked(ThrowingSupplier<T> supplier) {
        try {
            return supplier.get();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Flink procedure failed: " + e, e);
        }
    }
}
