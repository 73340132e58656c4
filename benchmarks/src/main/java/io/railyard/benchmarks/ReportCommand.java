package io.railyard.benchmarks;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code report}: runs the scale report and prints it; optionally writes it as JSON. */
@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        version = "Railyard benchmarks 0.1.0",
        description =
                "Measures every procedure on the reference job (source -> sink, ALL_TO_ALL,"
                        + " BLOCKING) and prints a table beside Flink's published figures.")
final class ReportCommand implements Callable<Integer> {
    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    private CommandSpec spec;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            defaultValue = "10000",
            description = "parallelism of source and sink, 1..16777216 (default: ${DEFAULT-VALUE})")
    private int parallelism;

    @Option(names = "--json", paramLabel = "PATH", description = "also write the report as JSON")
    private @Nullable Path json;

    @Option(
            names = "--chart",
            paramLabel = "PATH",
            description = "also write a PNG bar chart of the procedures")
    private @Nullable Path chart;

    @Option(names = "--no-progress", description = "no progress bar on stderr")
    private boolean noProgress;

    @Option(
            names = "--with-flink",
            description =
                    "also measure Flink 2.x live on the same job in this process (needs a large"
                            + " heap at P = 10,000, e.g. -Xmx8g)")
    private boolean withFlink;

    @Option(
            names = "--shuffle-parallelism",
            defaultValue = "1000",
            description =
                    "producers = consumers of the shuffle section; 0 skips it (default"
                            + " ${DEFAULT-VALUE})")
    private int shuffleParallelism;

    @Option(
            names = "--shuffle-mib",
            defaultValue = "1024",
            description = "MiB of records through each partition kind (default ${DEFAULT-VALUE})")
    private int shuffleMib;

    @Option(
            names = "--shuffle-dir",
            description = "directory for the shuffle files (default: java.io.tmpdir)")
    private Path shuffleDirectory = Path.of(System.getProperty("java.io.tmpdir"));

    @Override
    public Integer call() throws Exception {
        CliChecks.checkParallelism(spec, parallelism);
        if (shuffleParallelism != 0) {
            CliChecks.checkParallelism(spec, shuffleParallelism);
        }
        if (shuffleMib < 1) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(), "--shuffle-mib must be >= 1, was " + shuffleMib);
        }
        ScaleReport report = measure();
        PrintWriter out = spec.commandLine().getOut();
        out.print(report.toTable());
        if (json != null) {
            report.writeJson(json);
            out.println("JSON written to " + json);
        }
        if (chart != null) {
            ReportChart.write(report, chart);
            out.println("chart written to " + chart);
        }
        out.flush();
        return 0;
    }

    /** Measures with an ASCII progress bar on stderr, and Flink's column if asked. */
    private ScaleReport measure() throws Exception {
        if (noProgress) {
            return measure(step -> {});
        }
        int steps =
                ScaleReport.STEPS
                        + (withFlink ? FlinkColumnMeasurer.STEPS : 0)
                        + (shuffleParallelism > 0 ? ShuffleThroughput.STEPS : 0);
        try (ProgressBar bar =
                new ProgressBarBuilder()
                        .setTaskName("P = " + parallelism)
                        .setInitialMax(steps)
                        .setStyle(ProgressBarStyle.ASCII) // readable in CI logs too
                        .setConsumer(new ConsoleProgressBarConsumer(System.err))
                        .build()) {
            return measure(
                    step -> {
                        bar.step();
                        bar.setExtraMessage(step);
                    });
        }
    }

    private ScaleReport measure(Consumer<String> progress) throws Exception {
        ScaleReport report = ScaleReport.measure(parallelism, progress);
        if (withFlink) {
            report = report.withFlink(FlinkColumnMeasurer.measure(parallelism, progress));
        }
        if (shuffleParallelism > 0) {
            ShuffleThroughput.Settings settings =
                    new ShuffleThroughput.Settings(
                            shuffleParallelism,
                            (long) shuffleMib << 20,
                            ShuffleThroughput.DEFAULT_RECORD_BYTES,
                            ShuffleThroughput.DEFAULT_SLOTS,
                            ShuffleOptions.builder().compression(Compression.NONE).build(),
                            shuffleDirectory);
            report = report.withShuffle(ShuffleThroughput.measure(settings, progress));
        }
        return report;
    }
}
