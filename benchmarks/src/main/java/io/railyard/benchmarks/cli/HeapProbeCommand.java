package io.railyard.benchmarks.cli;

import io.railyard.benchmarks.flink.FlinkColumnMeasurer;
import io.railyard.benchmarks.procedures.Lifecycle;
import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code heap-probe}: runs the reference job's whole scheduler lifecycle once — initialise,
 * schedule the sources, finish them (which schedules the sinks), create and encode every task's
 * deployment descriptor, fail one source task and restart it, then (Railyard's {@link Lifecycle},
 * not Flink's probe) finish every task so that every partition is released — and exits 0, or fails
 * with an {@code OutOfMemoryError} (exit code 1) when the heap is too small. {@code
 * scripts/min-heap.sh} bisects {@code -Xmx} over it to find the smallest heap that works.
 */
@Command(
        name = "heap-probe",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description =
                "Initialises, schedules, deploys, fails over and releases a job once (the reference"
                        + " job unless --shape); exit 0 if the heap sufficed.")
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
            names = "--shape",
            paramLabel = "SHAPE",
            defaultValue = "BLOCKING",
            description =
                    "job shape (Railyard only): BLOCKING (the reference job), PIPELINED,"
                            + " HYBRID_FULL, POINTWISE_CHAIN or FOUR_STAGE (default:"
                            + " ${DEFAULT-VALUE})")
    private String shape = "BLOCKING";

    @Option(
            names = "--system",
            paramLabel = "SYSTEM",
            defaultValue = "railyard",
            description = "railyard or flink (default: ${DEFAULT-VALUE})")
    private String system = "railyard";

    @Override
    public Integer call() throws Exception {
        OptionChecks.parallelism(spec, "--parallelism", parallelism);
        long bytes;
        Shape jobShape = shape();
        if (system.equals("railyard")) {
            bytes = Lifecycle.run(jobShape.job(parallelism)).checksum();
        } else if (system.equals("flink") && jobShape == Shape.BLOCKING) {
            bytes = FlinkColumnMeasurer.runLifecycle(parallelism);
        } else if (system.equals("flink")) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--system flink runs the reference job only: drop --shape or use BLOCKING");
        } else {
            throw new ParameterException(
                    spec.commandLine(),
                    "--system must be 'railyard' or 'flink', was '" + system + "'");
        }
        PrintWriter out = spec.commandLine().getOut();
        out.printf(
                "%s lifecycle of %s at P = %d done (checksum %d)%n",
                system, jobShape, parallelism, bytes);
        out.flush();
        return 0;
    }

    private Shape shape() {
        for (Shape candidate : Shape.values()) {
            if (candidate.name().equals(shape)) {
                return candidate;
            }
        }
        throw new ParameterException(
                spec.commandLine(),
                "--shape must be one of "
                        + java.util.Arrays.toString(Shape.values())
                        + ", was '"
                        + shape
                        + "'");
    }
}
