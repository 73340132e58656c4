package io.railyard.benchmarks;

import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of {@code benchmarks.jar}: {@code report} runs the scale report, {@code inspect}
 * prints the regions and restart sets of a job graph file, {@code memory} prints the JOL memory
 * table, {@code heap-probe} runs the scheduler lifecycle once (for {@code scripts/min-heap.sh});
 * anything else is handed to JMH ({@code java -jar benchmarks.jar -h} lists JMH's options).
 */
@Command(
        name = "benchmarks.jar",
        mixinStandardHelpOptions = true,
        version = "Railyard benchmarks 0.1.0",
        subcommands = {
            ReportCommand.class,
            InspectCommand.class,
            HeapProbeCommand.class,
            MemoryCommand.class,
            ShuffleCommand.class
        },
        description =
                "Railyard benchmarks: 'report' runs the scale report, 'shuffle' the shuffle throughput, 'inspect' shows the regions"
                        + " of a job graph file, 'memory' the memory table, 'heap-probe' one"
                        + " scheduler lifecycle; other arguments go to JMH.")
public final class Main {
    private static final Set<String> COMMANDS =
            Set.of(
                    "report",
                    "inspect",
                    "heap-probe",
                    "memory",
                    "shuffle",
                    "help",
                    "--help",
                    "--version");

    private Main() {}

    /** Runs a Railyard command, or JMH with {@code args}. Exit code 2 on a usage error. */
    public static void main(String[] args) throws Exception {
        // JOL must be able to walk lambdas' hidden classes (Flink's graphs are full of them); the
        // property is read once, when JOL first touches the VM.
        if (System.getProperty("jol.magicFieldOffset") == null) {
            System.setProperty("jol.magicFieldOffset", "true");
        }
        if (args.length > 0 && COMMANDS.contains(args[0])) {
            System.exit(commandLine().execute(args));
        }
        org.openjdk.jmh.Main.main(args);
    }

    /** The command line with every Railyard subcommand, for tests. */
    static CommandLine commandLine() {
        return new CommandLine(new Main()).addSubcommand("help", new CommandLine.HelpCommand());
    }
}
