package io.railyard.benchmarks;

import io.railyard.deployment.DeploymentDescriptors;
import io.railyard.failover.FailoverHandler;
import io.railyard.failover.FailureHandling;
import io.railyard.topology.JobGraph;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code heap-probe}: runs the reference job's whole scheduler lifecycle once — initialise,
 * schedule the sources, finish them (which schedules the sinks), create and encode every task's
 * deployment descriptor, fail one source task and restart it — and exits 0, or fails with an {@code
 * OutOfMemoryError} (exit code 1) when the heap is too small. {@code scripts/min-heap.sh} bisects
 * {@code -Xmx} over it to find the smallest heap that works.
 */
@Command(
        name = "heap-probe",
        mixinStandardHelpOptions = true,
        version = "Railyard benchmarks 0.1.0",
        description =
                "Initialises, schedules, deploys and fails over the reference job once; exit 0 if"
                        + " the heap sufficed.")
final class HeapProbeCommand implements Callable<Integer> {
    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    private CommandSpec spec;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            defaultValue = "10000",
            description = "parallelism of source and sink, 1..16777216 (default: ${DEFAULT-VALUE})")
    private int parallelism;

    @Option(
            names = "--system",
            paramLabel = "SYSTEM",
            defaultValue = "railyard",
            description = "railyard or flink (default: ${DEFAULT-VALUE})")
    private String system = "railyard";

    @Override
    public Integer call() throws Exception {
        CliChecks.checkParallelism(spec, parallelism);
        long bytes;
        if (system.equals("railyard")) {
            bytes = runLifecycle(parallelism);
        } else if (system.equals("flink")) {
            bytes = FlinkColumnMeasurer.runLifecycle(parallelism);
        } else {
            throw new ParameterException(
                    spec.commandLine(),
                    "--system must be 'railyard' or 'flink', was '" + system + "'");
        }
        PrintWriter out = spec.commandLine().getOut();
        out.printf("%s lifecycle at P = %d done (checksum %d)%n", system, parallelism, bytes);
        out.flush();
        return 0;
    }

    /** The lifecycle; returns the bytes of the descriptors encoded (so nothing is elided). */
    static long runLifecycle(int parallelism) throws IOException {
        Initialized job = Initialized.of(parallelism);
        JobGraph graph = job.strategy().regions().topology().jobGraph();
        FailoverHandler failover = job.failover();
        job.strategy().startScheduling();
        for (int source = 0; source < parallelism; source++) {
            failover.onTaskFinished(source, 0);
        }
        DeploymentDescriptors descriptors = job.descriptors();
        long bytes = 0;
        for (int task = 0; task < graph.numTasks(); task++) {
            bytes += descriptors.create(task, failover.attempt(task)).encode().length;
        }
        FailureHandling handling = failover.onTaskFailed(0, 0, -1);
        handling.restartSet().forEachTask(task -> invalidateOutputs(graph, descriptors, task));
        failover.restart(handling);
        return bytes + handling.restartSet().numTasks();
    }

    /** A restarted task's partitions get a new producer attempt: drop their cached groups. */
    private static void invalidateOutputs(
            JobGraph graph, DeploymentDescriptors descriptors, int task) {
        int v = graph.vertexOfTask(task);
        for (int k = 0; k < graph.numProducedDataSets(v); k++) {
            int partition =
                    graph.firstPartition(graph.producedDataSet(v, k)) + graph.subtaskIndex(task);
            try {
                descriptors.invalidatePartition(partition);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
