package io.railyard.benchmarks;

import io.railyard.topology.JobGraph;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Option checks shared by the subcommands: usage errors (exit code 2) that name the option. */
final class CliChecks {
    private CliChecks() {}

    /** {@code --parallelism} must be in [1, {@link JobGraph#MAX_PARALLELISM}]. */
    static void checkParallelism(CommandSpec spec, int parallelism) {
        if (parallelism < 1 || parallelism > JobGraph.MAX_PARALLELISM) {
            throw new ParameterException(
                    spec.commandLine(),
                    String.format(
                            "--parallelism must be in [1, %d], was %d",
                            JobGraph.MAX_PARALLELISM, parallelism));
        }
    }
}
