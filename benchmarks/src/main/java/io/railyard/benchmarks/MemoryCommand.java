package io.railyard.benchmarks;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code memory}: the JOL memory table of the initialised state, every shape and parallelism. */
@Command(
        name = "memory",
        mixinStandardHelpOptions = true,
        version = "Railyard benchmarks 0.1.0",
        description =
                "Prints the retained bytes (JOL) of Railyard's initialised JobManager state for every"
                        + " job shape, and bytes per task.")
final class MemoryCommand implements Callable<Integer> {
    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    private CommandSpec spec;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            split = ",",
            description = "parallelisms to measure, comma-separated (default: 1000,4000,10000)")
    private List<Integer> parallelisms = MemoryTable.PARALLELISMS;

    @Option(
            names = "--with-flink",
            description = "also measure Flink 2.x's initialised execution graph (large heap)")
    private boolean withFlink;

    @Override
    public Integer call() {
        for (int parallelism : parallelisms) {
            CliChecks.checkParallelism(spec, parallelism);
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(
                MemoryTable.render(
                        MemoryTable.measure(
                                parallelisms,
                                withFlink ? FlinkColumnMeasurer::retainedGraphBytes : null)));
        out.flush();
        return 0;
    }
}
