package io.railyard.benchmarks.cli;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The options every measuring command shares (a picocli mixin): {@code --json PATH}, where the
 * results also go as a JSON document. Checked by {@link #check} before any work.
 */
final class OutputOptions {
    @Option(
            names = "--json",
            paramLabel = "PATH",
            description =
                    "also write the results as JSON to PATH (checked before measuring; missing"
                            + " directories are created)")
    private @Nullable Path json;

    /** Whether {@code --json} was given. */
    boolean isGiven() {
        return json != null;
    }

    /** The checked JSON output, or null if none was asked for. */
    @Nullable OutputFile check(CommandSpec spec) {
        return json == null ? null : OutputFile.check(spec, "--json", json, null);
    }
}
