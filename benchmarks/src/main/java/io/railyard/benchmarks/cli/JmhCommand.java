package io.railyard.benchmarks.cli;

import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.VerboseMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jmh ARGS}: hands every argument to JMH's own command line ({@code jmh -l} lists the
 * benchmarks, {@code jmh -h} JMH's options). {@link Main} routes here before picocli parses, so
 * JMH's options reach JMH untouched; this class's fields only document the command in {@code
 * --help}.
 */
@Command(
        name = "jmh",
        description =
                "Runs JMH with ARGS, e.g. 'jmh BuildTopologyBenchmark -p parallelism=10000 -rf"
                        + " json'; 'jmh -l' lists the benchmarks, 'jmh -h' shows JMH's options.")
final class JmhCommand implements Callable<Integer> {
    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    private CommandSpec spec;

    @Parameters(paramLabel = "ARGS", description = "JMH's arguments")
    private List<String> arguments = List.of();

    @Override
    public Integer call() throws Exception {
        return run(arguments, spec.commandLine().getErr());
    }

    /**
     * Runs JMH with {@code args} (a leading {@code "jmh"} is dropped). JMH prints its own results
     * and exits the JVM itself on its errors; a normal return means success.
     */
    static int run(List<String> args, PrintWriter err) {
        List<String> jmhArgs =
                !args.isEmpty() && args.get(0).equals("jmh") ? args.subList(1, args.size()) : args;
        try {
            org.openjdk.jmh.Main.main(jmhArgs.toArray(new String[0]));
            return 0;
        } catch (Exception e) {
            err.println("jmh: failed: " + OneLine.of(String.valueOf(e)));
            err.flush();
            return 1;
        }
    }

    /** Whether {@code regex} finds at least one benchmark name, as JMH's own matching does. */
    static boolean matchesBenchmark(String regex) {
        Pattern pattern;
        try {
            pattern = Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            return false;
        }
        PrintStream silent = new PrintStream(OutputStream.nullOutputStream());
        for (BenchmarkListEntry entry :
                BenchmarkList.defaultList()
                        .getAll(
                                OutputFormatFactory.createFormatInstance(
                                        silent, VerboseMode.SILENT),
                                List.of())) {
            if (pattern.matcher(entry.getUsername()).find()) {
                return true;
            }
        }
        return false;
    }
}
