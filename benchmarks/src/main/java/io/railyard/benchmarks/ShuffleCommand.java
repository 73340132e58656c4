package io.railyard.benchmarks;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code shuffle}: the throughput of sort-based and hash-based partitions against the disk. */
@Command(
        name = "shuffle",
        mixinStandardHelpOptions = true,
        description =
                "Writes and reads N bytes through sort-based and hash-based partitions at each"
                        + " parallelism (producers x consumers in one process, 8 at a time), beside"
                        + " one file written and read sequentially with the same page size.")
final class ShuffleCommand implements Callable<Integer> {
    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    private CommandSpec spec;

    @Option(
            names = "--parallelism",
            split = ",",
            defaultValue = "1,100,1000",
            description = "producers = consumers, comma-separated (default ${DEFAULT-VALUE})")
    private List<Integer> parallelism = List.of(1, 100, 1000);

    @Option(
            names = "--bytes-mib",
            defaultValue = "1024",
            description = "MiB of records per run (default ${DEFAULT-VALUE})")
    private int mebibytes;

    @Option(names = "--record-bytes", defaultValue = "256", description = "bytes per record")
    private int recordBytes;

    @Option(
            names = "--memory-mib",
            defaultValue = "64",
            description = "network memory per worker in MiB (default ${DEFAULT-VALUE})")
    private int memoryMib;

    @Option(
            names = "--gate-pages",
            defaultValue = "64",
            description =
                    "pages guaranteed to each consumer's input gate (default ${DEFAULT-VALUE})")
    private int gatePages;

    @Option(names = "--slots", defaultValue = "8", description = "tasks at once (default 8)")
    private int slots;

    @Option(
            names = "--compression",
            defaultValue = "NONE",
            description = "frame codec: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE})")
    private Compression compression = Compression.NONE;

    @Option(names = "--dir", description = "directory for the files (default: java.io.tmpdir)")
    private Path directory = Path.of(System.getProperty("java.io.tmpdir"));

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        ShuffleOptions options =
                ShuffleOptions.builder()
                        .totalMemoryBytes((long) memoryMib << 20)
                        .compression(compression)
                        .gatePages(gatePages)
                        .build();
        out.println(ShuffleTable.HEADER);
        for (int p : parallelism) {
            CliChecks.checkParallelism(spec, p);
            ShuffleThroughput.Settings settings =
                    new ShuffleThroughput.Settings(
                            p, (long) mebibytes << 20, recordBytes, slots, options, directory);
            ShuffleThroughput.Result result = ShuffleThroughput.measure(settings, step -> {});
            out.print(ShuffleTable.rows(result));
            out.flush();
        }
        out.println(
                String.format(
                        Locale.ROOT,
                        "%d MiB of %d-byte records, %d MiB network memory, %s, %d slots",
                        mebibytes,
                        recordBytes,
                        memoryMib,
                        compression,
                        slots));
        return 0;
    }
}
