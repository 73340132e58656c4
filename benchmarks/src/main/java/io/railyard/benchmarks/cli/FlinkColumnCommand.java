package io.railyard.benchmarks.cli;

import io.railyard.benchmarks.flink.FlinkColumnProcess;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code flink-column} (hidden): the child JVM of {@code report --with-flink}, which measures
 * Flink's column here and prints it in {@link FlinkColumnProcess}'s line format. Not meant to be
 * run by hand.
 */
@Command(
        name = FlinkColumnProcess.COMMAND,
        hidden = true,
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Measures Flink's column of the scale report (report --with-flink runs it).")
final class FlinkColumnCommand implements Callable<Integer> {
    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    private CommandSpec spec;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            defaultValue = "10000",
            description = "parallelism of source and sink, 1..16777216 (default: ${DEFAULT-VALUE})")
    private int parallelism;

    @Override
    public Integer call() throws Exception {
        OptionChecks.parallelism(spec, "--parallelism", parallelism);
        JolOutput.keepOffStdout();
        FlinkColumnProcess.print(parallelism, spec.commandLine().getOut());
        return 0;
    }
}
