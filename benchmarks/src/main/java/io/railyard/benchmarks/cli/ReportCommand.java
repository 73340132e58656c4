package io.railyard.benchmarks.cli;

import io.railyard.benchmarks.flink.FlinkColumnMeasurer;
import io.railyard.benchmarks.flink.FlinkColumnProcess;
import io.railyard.benchmarks.flink.FlinkSortShuffle;
import io.railyard.benchmarks.procedures.ScaleReport;
import io.railyard.benchmarks.procedures.ShuffleThroughput;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Consumers;
import io.railyard.benchmarks.procedures.TimeToRunning;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code report}: runs the scale report and prints it; optionally writes it as JSON and a PNG
 * chart. Every option and output path is checked before measuring; the table is printed before the
 * files are written, so a failing write loses nothing that was measured.
 */
@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description =
                "Measures every procedure on the reference job (source -> sink, ALL_TO_ALL,"
                        + " BLOCKING) and prints a table beside Flink's published figures.")
final class ReportCommand implements Callable<Integer> {
    /**
     * The largest P of the time-to-RUNNING job: its 2P tasks run at once, each on a thread of this
     * process (20,000 threads at P = 10,000 took 12.6 s just to start here).
     */
    private static final int MAX_RUNNING_PARALLELISM = 100_000;

    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    private CommandSpec spec;

    @Mixin private OutputOptions output = new OutputOptions();

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            defaultValue = "10000",
            description = "parallelism of source and sink, 1..16777216 (default: ${DEFAULT-VALUE})")
    private int parallelism;

    @Option(
            names = "--chart",
            paramLabel = "PATH",
            description = "also write a PNG bar chart of the procedures (.png is added if missing)")
    private @Nullable Path chart;

    @Option(names = "--no-progress", description = "no progress bar on stderr")
    private boolean noProgress;

    @Option(
            names = "--with-flink",
            description =
                    "also measure Flink 2.x live on the same job, in a JVM of its own started"
                            + " with this one's options (needs a large heap at P = 10,000, e.g."
                            + " -Xmx8g), and Flink's sort-merge partition (flink-sort) beside sort"
                            + " in the shuffle section")
    private boolean withFlink;

    @Option(
            names = "--shuffle-parallelism",
            paramLabel = "P",
            defaultValue = "1000",
            description =
                    "producers = consumers of the shuffle section (sort, hash, hybrid-full and"
                            + " hybrid-selective; hybrid consumers attach in waves, 8 at a"
                            + " time), 1..16777216; 0 skips it (default ${DEFAULT-VALUE})")
    private int shuffleParallelism;

    @Option(
            names = "--shuffle-mib",
            paramLabel = "MIB",
            defaultValue = "1024",
            description = "MiB of records through each partition kind (default ${DEFAULT-VALUE})")
    private long shuffleMib;

    @Option(
            names = "--shuffle-memory-mib",
            paramLabel = "MIB",
            defaultValue = "64",
            description = "network memory of the shuffle section in MiB (default ${DEFAULT-VALUE})")
    private long shuffleMemoryMib;

    @Option(
            names = "--running-parallelism",
            paramLabel = "P",
            split = ",",
            defaultValue = "1000,10000",
            description =
                    "parallelisms of the PIPELINED job whose time to RUNNING is measured on the"
                            + " local engine (2P cooperative tasks on 2 threads per worker),"
                            + " each 1..100000, comma-separated; 0 skips it (default"
                            + " ${DEFAULT-VALUE})")
    private List<Integer> runningParallelism = List.of(1000, 10_000);

    @Option(
            names = "--shuffle-dir",
            paramLabel = "DIR",
            description =
                    "an existing directory for the shuffle files and the time-to-RUNNING job's"
                            + " (default: java.io.tmpdir)")
    private Path shuffleDirectory = Path.of(System.getProperty("java.io.tmpdir"));

    @Override
    public Integer call() throws Exception {
        OptionChecks.parallelism(spec, "--parallelism", parallelism);
        OptionChecks.parallelismsOrSkip(
                spec, "--running-parallelism", runningParallelism, MAX_RUNNING_PARALLELISM);
        if (measuresRunning()) {
            ShuffleChecks.checkDirectory(spec, "--shuffle-dir", shuffleDirectory);
        }
        ShuffleThroughput.@Nullable Settings shuffle = checkShuffle();
        OutputFile json = output.check(spec);
        OutputFile png = chart == null ? null : OutputFile.check(spec, "--chart", chart, ".png");
        JolOutput.keepOffStdout();
        ScaleReport report = measure(shuffle);
        PrintWriter out = spec.commandLine().getOut();
        out.print(ReportTable.render(report, ShuffleChecks.REPORT));
        out.flush();
        if (json != null) {
            json.writeJson(ReportJson.of(report, ShuffleChecks.REPORT), out);
        }
        if (png != null) {
            png.write(stream -> ReportChart.write(report, stream));
            out.println("chart written to " + png.path());
        }
        out.flush();
        ShuffleThroughput.Result result = report.shuffle();
        ShuffleThroughput.Failure.IoError failure = result == null ? null : result.ioFailure();
        if (failure != null) {
            throw new CommandFailure(
                    "the shuffle section failed: "
                            + failure.message()
                            + " (the files of the run were deleted; the rest of the report stands)");
        }
        return 0;
    }

    private ShuffleThroughput.@Nullable Settings checkShuffle() {
        if (shuffleParallelism == 0) {
            return null;
        }
        return ShuffleChecks.settings(
                        spec,
                        ShuffleChecks.REPORT,
                        new ShuffleChecks.Request(
                                List.of(shuffleParallelism),
                                shuffleMib,
                                ShuffleThroughput.DEFAULT_RECORD_BYTES,
                                ShuffleThroughput.DEFAULT_SLOTS,
                                ShuffleChecks.DEFAULT_GATE_PAGES,
                                shuffleMemoryMib,
                                Compression.NONE,
                                shuffleDirectory,
                                EnumSet.copyOf(ShuffleThroughput.KINDS),
                                Consumers.WAVES,
                                0))
                .get(0);
    }

    private boolean measuresRunning() {
        return !runningParallelism.equals(List.of(0));
    }

    /** Measures with an ASCII progress bar on stderr, and Flink's column if asked. */
    private ScaleReport measure(ShuffleThroughput.@Nullable Settings shuffle) throws Exception {
        if (noProgress) {
            return measure(shuffle, step -> {});
        }
        int steps =
                ScaleReport.STEPS
                        + (measuresRunning() ? runningParallelism.size() : 0)
                        + (withFlink ? FlinkColumnMeasurer.STEPS : 0)
                        + (shuffle != null
                                ? ShuffleThroughput.steps(shuffle) + (withFlink ? 1 : 0)
                                : 0);
        try (ProgressBar bar =
                new ProgressBarBuilder()
                        .setTaskName("P = " + parallelism)
                        .setInitialMax(steps)
                        .setStyle(ProgressBarStyle.ASCII) // readable in CI logs too
                        .setConsumer(new ConsoleProgressBarConsumer(System.err))
                        .build()) {
            return measure(
                    shuffle,
                    step -> {
                        bar.step();
                        bar.setExtraMessage(step);
                    });
        }
    }

    private ScaleReport measure(
            ShuffleThroughput.@Nullable Settings shuffle, Consumer<String> progress)
            throws Exception {
        ScaleReport report = ScaleReport.measure(parallelism, progress);
        if (measuresRunning()) {
            for (int p : runningParallelism) {
                report = report.withTimeToRunning(TimeToRunning.measure(p, shuffleDirectory));
                progress.accept("time to RUNNING at P = " + p);
            }
        }
        if (withFlink) {
            report = report.withFlink(FlinkColumnProcess.measure(parallelism, progress));
        }
        if (shuffle != null) {
            ShuffleThroughput.Result result = ShuffleThroughput.measure(shuffle, progress);
            if (withFlink && result.ioFailure() == null) {
                progress.accept("shuffle: " + FlinkSortShuffle.KEY);
                result = result.withFlinkSort(FlinkSortShuffle.run(shuffle));
            }
            report = report.withShuffle(result);
        }
        return report;
    }
}
