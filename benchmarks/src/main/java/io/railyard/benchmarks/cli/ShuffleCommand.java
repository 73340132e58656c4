package io.railyard.benchmarks.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.benchmarks.flink.FlinkSortShuffle;
import io.railyard.benchmarks.procedures.ShuffleThroughput;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Consumers;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.partition.PartitionKind;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code shuffle}: the throughput of sort-based, hash-based and hybrid partitions against the
 * machine's sequential limits, and with {@code --with-flink} of Flink's sort-merge partition
 * ({@link FlinkSortShuffle}) beside {@code sort}. Every option is checked before the first run;
 * each parallelism's rows are printed as soon as they are measured; a failed run (a full disk)
 * stops the command with exit code 1 after what was measured is printed and written.
 */
@Command(
        name = "shuffle",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description =
                "Writes and reads N bytes through each --mode of partition at each parallelism"
                        + " (producers x consumers in one process, producers --slots at a time),"
                        + " beside one file written and read sequentially with the same page size."
                        + " Sort and hash: consumers after producers, --slots at a time. Hybrid:"
                        + " consumers read while producers write, attached as --consumers says, on"
                        + " threads of their own; the table adds the share of bytes written to"
                        + " disk, read from disk and read from memory, and the most pages borrowed"
                        + " at once. With --with-flink, Flink 2.3's sort-merge partition"
                        + " (flink-sort) runs beside sort on the same records, producers, consumers,"
                        + " network memory and page size. Each system first runs once untimed on"
                        + " up to 64 MiB, so that none is timed while the JIT compiles its path."
                        + " Consumers check that they read exactly"
                        + " the records producers wrote (count and checksum). Files go to a marked"
                        + " directory under --dir that is deleted at the end and on Ctrl-C;"
                        + " directories left by killed runs are swept at start.")
final class ShuffleCommand implements Callable<Integer> {
    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    private CommandSpec spec;

    @Mixin private OutputOptions output = new OutputOptions();

    @Option(
            names = "--parallelism",
            split = ",",
            paramLabel = "P[,P...]",
            defaultValue = "1,100,1000",
            description =
                    "producers = consumers, comma-separated, each 1..16777216 (default ${DEFAULT-VALUE})")
    private List<Integer> parallelism = List.of(1, 100, 1000);

    @Option(
            names = "--bytes-mib",
            paramLabel = "MIB",
            defaultValue = "1024",
            description = "MiB of records per run, 1..1048576 (default ${DEFAULT-VALUE})")
    private long mebibytes;

    @Option(
            names = "--record-bytes",
            paramLabel = "BYTES",
            defaultValue = "256",
            description = "bytes per record, 1..1048576 (default ${DEFAULT-VALUE})")
    private int recordBytes;

    @Option(
            names = "--memory-mib",
            paramLabel = "MIB",
            defaultValue = "64",
            description =
                    "network memory of the worker in MiB; at least what --slots sort writers or"
                            + " gates need (when sort is measured), at most the JVM's direct memory"
                            + " (default ${DEFAULT-VALUE})")
    private long memoryMib;

    @Option(
            names = "--gate-pages",
            paramLabel = "PAGES",
            defaultValue = "64",
            description =
                    "pages guaranteed to each consumer's input gate, 1..1048576 (default"
                            + " ${DEFAULT-VALUE})")
    private int gatePages;

    @Option(
            names = "--slots",
            paramLabel = "N",
            defaultValue = "8",
            description = "tasks at once, 1..256 (default ${DEFAULT-VALUE})")
    private int slots;

    @Option(
            names = "--compression",
            defaultValue = "NONE",
            description = "frame codec: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE})")
    private Compression compression = Compression.NONE;

    @Option(
            names = "--mode",
            split = ",",
            paramLabel = "MODE",
            defaultValue = "sort,hash,hybrid-full,hybrid-selective",
            description =
                    "partition kinds, comma-separated: sort, hash, hybrid-full, hybrid-selective"
                            + " (default all four)")
    private List<String> modes = List.of();

    @Option(
            names = "--consumers",
            paramLabel = "WHEN",
            defaultValue = "early",
            description =
                    "when hybrid consumers attach: early (every gate before the first record, so"
                            + " every writer and every gate at once: memory grows with P), late"
                            + " (half of them at 50%% of the bytes produced), waves (--slots gates"
                            + " at a time once every partition exists; fits where early does not)"
                            + " (default ${DEFAULT-VALUE})")
    private String consumers = "early";

    @Option(
            names = "--producer-mb-s",
            paramLabel = "MB/S",
            defaultValue = "0",
            description =
                    "paces the producers running at once to emit together at most this many MB"
                            + " (10^6 bytes) of records per second, 0..1000000; 0 (the default)"
                            + " runs them as fast as they can. A pace below what consumers drain"
                            + " models consumers that keep up")
    private long producerMbPerSecond;

    @Option(
            names = "--with-flink",
            description =
                    "also measure Apache Flink 2.3's sort-merge blocking partition"
                            + " (SortMergeResultPartition) in this process, as row flink-sort: the"
                            + " same producers and records, --slots at a time, then the same"
                            + " consumers reading every subpartition to its end. Each Flink writer"
                            + " gets as many buffers as a sort writer has pages, Flink's"
                            + " batch-shuffle read pool the rest of --memory-mib")
    private boolean withFlink;

    @Option(
            names = "--transport",
            paramLabel = "in-process|tcp",
            description =
                    "tcp: read each blocking kind's partitions a second time over TCP (the"
                            + " producers' data server on loopback, a second worker's client) and"
                            + " show the rate beside the in-process read (default"
                            + " ${DEFAULT-VALUE})")
    private String transport = "in-process";

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "an existing directory for the files (default: java.io.tmpdir)")
    private Path directory = Path.of(System.getProperty("java.io.tmpdir"));

    @Override
    public Integer call() throws Exception {
        Set<PartitionKind> kinds = ShuffleChecks.modes(spec, "--mode", modes);
        boolean overTcp = OptionChecks.transport(spec, "--transport", transport);
        Consumers when = ShuffleChecks.consumers(spec, "--consumers", consumers);
        List<ShuffleThroughput.Settings> runs =
                ShuffleChecks.settings(
                        spec,
                        ShuffleChecks.SHUFFLE,
                        new ShuffleChecks.Request(
                                parallelism,
                                mebibytes,
                                recordBytes,
                                slots,
                                gatePages,
                                memoryMib,
                                compression,
                                directory,
                                kinds,
                                when,
                                producerMbPerSecond));
        OutputFile json = output.check(spec);
        PrintWriter out = spec.commandLine().getOut();
        out.println(ShuffleTable.HEADER);
        out.flush();
        List<ShuffleThroughput.Result> results = new ArrayList<>();
        ShuffleThroughput.Failure.@Nullable IoError failure = null;
        for (ShuffleThroughput.Settings settings : runs) {
            ShuffleThroughput.Result result =
                    ShuffleThroughput.measure(settings, step -> {}, overTcp);
            if (withFlink && result.ioFailure() == null) {
                result = result.withFlinkSort(FlinkSortShuffle.run(settings));
            }
            results.add(result);
            out.print(ShuffleTable.rows(result, ShuffleChecks.SHUFFLE));
            out.flush();
            failure = result.ioFailure();
            if (failure != null) {
                break;
            }
        }
        out.println(footer(when));
        if (json != null) {
            json.writeJson(document(results), out);
        }
        out.flush();
        if (failure != null) {
            throw new CommandFailure(
                    "P = "
                            + results.get(results.size() - 1).setup().parallelism()
                            + ": "
                            + failure.message()
                            + " (the files of the run were deleted)");
        }
        return 0;
    }

    /** The line under the table: what every run shared. */
    private String footer(Consumers when) {
        return String.format(
                        Locale.ROOT,
                        "%d MiB of %d-byte records, %d MiB network memory, %d gate pages, %s,"
                                + " %d slots, %s hybrid consumers, %s",
                        mebibytes,
                        recordBytes,
                        memoryMib,
                        gatePages,
                        compression,
                        slots,
                        when.key(),
                        producerMbPerSecond == 0
                                ? "unpaced producers"
                                : "producers paced at " + producerMbPerSecond + " MB/s")
                + (withFlink
                        ? ", " + FlinkSortShuffle.KEY + " = " + FlinkSortShuffle.system()
                        : "");
    }

    private static ObjectNode document(List<ShuffleThroughput.Result> results) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode runs = root.putArray("runs");
        for (ShuffleThroughput.Result result : results) {
            ShuffleTable.putJson(runs.addObject(), result, ShuffleChecks.SHUFFLE);
        }
        ReportJson.machine(root.putObject("machine"));
        return root;
    }
}
