package io.railyard.benchmarks.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of {@code benchmarks.jar}: Railyard's commands ({@code report}, {@code shuffle},
 * {@code inspect}, {@code run}, {@code simulate}, {@code memory}, {@code heap-probe}) and JMH
 * ({@code jmh ARGS}, or a benchmark regex as the first argument, e.g. {@code BuildTopologyBenchmark
 * -rf json}).
 *
 * <p>Every mistake is one line on stderr naming the option, the value and what is allowed, with
 * exit code 2; a failure of the run is one line with exit code 1 ({@link CliErrors}). A first word
 * that is neither a command nor a regex matching a benchmark is a usage error with a suggestion,
 * not a JMH run that finds nothing.
 */
@Command(
        name = "benchmarks.jar",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        subcommands = {
            ReportCommand.class,
            ShuffleCommand.class,
            InspectCommand.class,
            RunCommand.class,
            SimulateCommand.class,
            MemoryCommand.class,
            HeapProbeCommand.class,
            FlinkColumnCommand.class,
            JmhCommand.class,
            CommandLine.HelpCommand.class
        },
        description = {
            "Railyard's measurements: 'report' runs the scale report, 'shuffle' the shuffle"
                    + " throughput, 'inspect' shows the regions of a job graph file, 'run' runs one on"
                    + " the local engine, 'simulate' simulates one under blocking and hybrid"
                    + " shuffle, 'memory' the"
                    + " memory table, 'heap-probe' one scheduler lifecycle, 'jmh' runs JMH.",
            "A first argument that is a regex matching benchmark names also runs JMH, e.g."
                    + " 'BuildTopologyBenchmark -rf json'."
        })
public final class Main {
    /** Options that belong to this command line, not to JMH, when they come first. */
    private static final Set<String> OWN_OPTIONS = Set.of("-h", "--help", "-V", "--version");

    private Main() {}

    /** Runs a command (or JMH) and exits with its code: 0 ok, 1 failure, 2 usage error. */
    public static void main(String[] args) {
        // The console's encoding: what a terminal or a pipe reader expects.
        PrintWriter out =
                new PrintWriter(new OutputStreamWriter(System.out, Charset.defaultCharset()), true);
        PrintWriter err =
                new PrintWriter(new OutputStreamWriter(System.err, Charset.defaultCharset()), true);
        System.exit(run(args, out, err, FileSystems.getDefault()));
    }

    /**
     * Runs {@code args} with output to {@code out} and errors to {@code err}; paths given on the
     * command line are resolved in {@code fileSystem} (tests use an in-memory one). Returns the
     * exit code instead of exiting, except when JMH runs (JMH exits itself on errors).
     */
    static int run(String[] args, PrintWriter out, PrintWriter err, FileSystem fileSystem) {
        CommandLine cli = commandLine(fileSystem);
        cli.setOut(out);
        cli.setErr(err);
        if (args.length == 0) {
            err.println(
                    cli.getCommandName()
                            + ": a command is needed: "
                            + String.join(", ", commands(cli))
                            + " (see 'benchmarks.jar --help')");
            err.flush();
            return CommandLine.ExitCode.USAGE;
        }
        if (runsJmh(cli, args[0])) {
            return JmhCommand.run(Arrays.asList(args), err);
        }
        if (isUnknownCommand(cli, args[0])) {
            err.println(CliErrors.unknownCommand(cli, args[0]));
            err.flush();
            return CommandLine.ExitCode.USAGE;
        }
        try {
            return cli.execute(args);
        } catch (OutOfMemoryError e) {
            String command =
                    cli.getSubcommands().containsKey(args[0]) ? args[0] : cli.getCommandName();
            err.println(
                    command
                            + ": failed: out of memory ("
                            + OneLine.of(String.valueOf(e.getMessage()))
                            + "); give java a larger -Xmx, or lower the parallelism");
            err.flush();
            return CommandLine.ExitCode.SOFTWARE;
        }
    }

    /** The command line with every command, its error handlers and path converter. */
    static CommandLine commandLine(FileSystem fileSystem) {
        CommandLine cli = new CommandLine(new Main());
        cli.registerConverter(Path.class, fileSystem::getPath);
        CliErrors handlers = new CliErrors();
        cli.setParameterExceptionHandler(handlers);
        cli.setExecutionExceptionHandler(handlers);
        return cli;
    }

    /**
     * {@code jmh}, a JMH option, or a regex matching a benchmark as the first argument: JMH's
     * business. Command names win over benchmark regexes ({@code shuffle} also matches {@code
     * ShuffleBenchmark.shuffle}).
     */
    private static boolean runsJmh(CommandLine cli, String first) {
        if (first.equals("jmh")) {
            return true;
        }
        if (first.startsWith("-")) {
            return !OWN_OPTIONS.contains(first);
        }
        return !cli.getSubcommands().containsKey(first)
                && !first.isEmpty()
                && JmhCommand.matchesBenchmark(first);
    }

    private static boolean isUnknownCommand(CommandLine cli, String first) {
        return !first.startsWith("-") && !cli.getSubcommands().containsKey(first);
    }

    /** The version line. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"Railyard benchmarks 0.1.0"};
        }
    }

    /** The commands, for messages. */
    static List<String> commands(CommandLine cli) {
        return List.copyOf(cli.getSubcommands().keySet());
    }
}
