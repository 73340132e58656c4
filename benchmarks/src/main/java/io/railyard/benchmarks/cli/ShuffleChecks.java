package io.railyard.benchmarks.cli;

import io.railyard.benchmarks.procedures.ShuffleThroughput;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Consumers;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Settings;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.buffer.NetworkBufferPool;
import io.railyard.shuffle.partition.PartitionKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The options of a shuffle measurement, checked together before anything runs and named as the
 * command that took them names them ({@code shuffle --memory-mib}, {@code report
 * --shuffle-memory-mib}): ranges, the network memory against the JVM's direct-memory limit and
 * against what the sort-based partition needs with that many tasks at once (when it is measured),
 * the modes and the consumers, and the directory.
 */
final class ShuffleChecks {
    /** Most MiB of records per run: 1 TiB. */
    static final int MAX_MEBIBYTES = 1 << 20;

    /** Most network memory: 1 TiB (and never more than the JVM's direct-memory limit). */
    static final int MAX_MEMORY_MIB = 1 << 20;

    /** Pages per input gate unless told otherwise ({@code shuffle.read.gate-pages}'s default). */
    static final int DEFAULT_GATE_PAGES = ShuffleOptions.builder().build().gatePages();

    /** The fastest producer pace, MB per second. */
    static final long MAX_PRODUCER_MB_S = 1_000_000;

    /** Most pages per input gate. */
    static final int MAX_GATE_PAGES = 1 << 20;

    /**
     * How a command names its shuffle options.
     *
     * @param parallelism producers = consumers
     * @param mebibytes MiB of records
     * @param memory MiB of network memory
     * @param directory where files go
     * @param slots tasks at once, or a description of the fixed value
     * @param gatePages pages per gate, or a description of the fixed value
     * @param waves how to attach hybrid consumers in waves, or empty where they are fixed
     */
    record Names(
            String parallelism,
            String mebibytes,
            String memory,
            String directory,
            String slots,
            String gatePages,
            String waves) {}

    /** The names of the {@code shuffle} command. */
    static final Names SHUFFLE =
            new Names(
                    "--parallelism",
                    "--bytes-mib",
                    "--memory-mib",
                    "--dir",
                    "--slots",
                    "--gate-pages",
                    "--consumers waves");

    /** The names of the shuffle section of {@code report}. */
    static final Names REPORT =
            new Names(
                    "--shuffle-parallelism",
                    "--shuffle-mib",
                    "--shuffle-memory-mib",
                    "--shuffle-dir",
                    "the slots (fixed at 8 here; the shuffle command takes --slots)",
                    "the gate pages (fixed at 64 here; the shuffle command takes --gate-pages)",
                    "");

    /**
     * What one command asked for.
     *
     * @param parallelisms producers = consumers, one run each
     * @param mebibytes MiB of records per run
     * @param recordBytes bytes per record
     * @param slots tasks at once
     * @param gatePages pages per input gate
     * @param memoryMib network memory in MiB
     * @param compression the frame codec
     * @param directory where the run directories go
     * @param kinds the partition kinds to measure
     * @param consumers when hybrid consumers attach
     * @param producerMbPerSecond the producers' pace in MB (10^6 bytes) per second, 0 if unpaced
     */
    record Request(
            List<Integer> parallelisms,
            long mebibytes,
            int recordBytes,
            int slots,
            int gatePages,
            long memoryMib,
            Compression compression,
            Path directory,
            Set<PartitionKind> kinds,
            Consumers consumers,
            long producerMbPerSecond) {}

    private ShuffleChecks() {}

    /**
     * The settings of every run of {@code request}, or a usage error naming the option at fault.
     * Runs every check before returning, so nothing is measured on bad input.
     */
    static List<Settings> settings(CommandSpec spec, Names names, Request request) {
        OptionChecks.parallelisms(spec, names.parallelism(), request.parallelisms());
        OptionChecks.range(spec, names.mebibytes(), request.mebibytes(), 1, MAX_MEBIBYTES);
        OptionChecks.range(
                spec,
                "--record-bytes",
                request.recordBytes(),
                1,
                ShuffleThroughput.MAX_RECORD_BYTES);
        OptionChecks.range(spec, "--slots", request.slots(), 1, ShuffleThroughput.MAX_SLOTS);
        OptionChecks.range(spec, "--gate-pages", request.gatePages(), 1, MAX_GATE_PAGES);
        OptionChecks.range(spec, names.memory(), request.memoryMib(), 1, MAX_MEMORY_MIB);
        OptionChecks.range(
                spec, "--producer-mb-s", request.producerMbPerSecond(), 0, MAX_PRODUCER_MB_S);
        checkDirectMemory(spec, names, request.memoryMib());
        ShuffleOptions options = options(spec, names, request);
        List<Settings> runs = new ArrayList<>(request.parallelisms().size());
        for (int parallelism : request.parallelisms()) {
            Settings settings =
                    new Settings(
                            parallelism,
                            request.mebibytes() << 20,
                            request.recordBytes(),
                            request.slots(),
                            options,
                            request.directory(),
                            request.kinds(),
                            request.consumers(),
                            request.producerMbPerSecond() * 1_000_000);
            if (request.kinds().contains(PartitionKind.SORT)) {
                checkSortFits(spec, names, settings);
            }
            runs.add(settings);
        }
        checkDirectory(spec, names.directory(), request.directory());
        return runs;
    }

    /**
     * The kinds {@code option} names (comma-separated keys, e.g. {@code sort,hybrid-full}), in
     * {@link PartitionKind} order, or a usage error naming the option, the value and the allowed
     * values.
     */
    static Set<PartitionKind> modes(CommandSpec spec, String option, List<String> values) {
        if (values.isEmpty()) {
            throw OptionChecks.usage(spec, option + " needs at least one value");
        }
        Set<PartitionKind> kinds = EnumSet.noneOf(PartitionKind.class);
        for (String value : values) {
            kinds.add(
                    ShuffleThroughput.kindOfKey(value)
                            .orElseThrow(
                                    () ->
                                            oneOf(
                                                    spec,
                                                    option,
                                                    value,
                                                    keys(ShuffleThroughput.KINDS))));
        }
        return kinds;
    }

    /**
     * The consumers {@code option} names ({@code early}, {@code late}, {@code waves}), or a usage
     * error naming the option, the value and the allowed values.
     */
    static Consumers consumers(CommandSpec spec, String option, String value) {
        return Consumers.ofKey(value)
                .orElseThrow(() -> oneOf(spec, option, value, keys(Consumers.values())));
    }

    private static String keys(Collection<PartitionKind> kinds) {
        return kinds.stream().map(ShuffleThroughput::key).collect(Collectors.joining(", "));
    }

    private static String keys(Consumers[] values) {
        return Arrays.stream(values).map(Consumers::key).collect(Collectors.joining(", "));
    }

    private static ParameterException oneOf(
            CommandSpec spec, String option, String value, String allowed) {
        return OptionChecks.usage(
                spec,
                String.format(
                        Locale.ROOT,
                        "%s must be one of %s, was '%s'",
                        option,
                        allowed,
                        OneLine.of(value)));
    }

    private static void checkDirectMemory(CommandSpec spec, Names names, long memoryMib) {
        long limit = NetworkBufferPool.directMemoryLimitBytes();
        if (memoryMib << 20 > limit) {
            throw OptionChecks.usage(
                    spec,
                    String.format(
                            Locale.ROOT,
                            "%s %d exceeds the direct memory this JVM may allocate (%,d MiB, set by"
                                    + " -XX:MaxDirectMemorySize, which defaults to -Xmx); give"
                                    + " java -XX:MaxDirectMemorySize=%dm or lower %s",
                            names.memory(),
                            memoryMib,
                            limit >> 20,
                            memoryMib + 64,
                            names.memory()));
        }
    }

    private static ShuffleOptions options(CommandSpec spec, Names names, Request request) {
        try {
            return ShuffleOptions.builder()
                    .totalMemoryBytes(request.memoryMib() << 20)
                    .gatePages(request.gatePages())
                    .compression(request.compression())
                    .build();
        } catch (IllegalArgumentException e) {
            throw OptionChecks.usage(
                    spec, names.memory() + " " + request.memoryMib() + ": " + e.getMessage());
        }
    }

    private static void checkSortFits(CommandSpec spec, Names names, Settings settings) {
        long required = ShuffleThroughput.requiredMemoryBytes(settings, PartitionKind.SORT);
        long available = settings.options().totalMemoryBytes();
        if (required > available) {
            throw OptionChecks.usage(
                    spec,
                    String.format(
                            Locale.ROOT,
                            "%s %d is too small for %s %d: the sort-based partition %s; raise %s to"
                                    + " at least %d, or lower %s or %s",
                            names.memory(),
                            available >> 20,
                            names.parallelism(),
                            settings.parallelism(),
                            ShuffleThroughput.memoryNeeds(settings, PartitionKind.SORT),
                            names.memory(),
                            mebibytesCeil(required),
                            names.slots(),
                            names.gatePages()));
        }
    }

    /** {@code bytes} in MiB, rounded up. */
    static long mebibytesCeil(long bytes) {
        return (bytes + (1 << 20) - 1) >> 20;
    }

    static void checkDirectory(CommandSpec spec, String option, Path directory) {
        String problem = null;
        if (!Files.exists(directory)) {
            problem = "no such directory; create it or choose another";
        } else if (!Files.isDirectory(directory)) {
            problem = "not a directory";
        } else {
            try {
                Files.delete(Files.createTempFile(directory, ".railyard-probe-", ".tmp"));
            } catch (IOException | UnsupportedOperationException e) {
                problem =
                        "cannot create files there ("
                                + (e instanceof IOException io ? CliErrors.describe(io) : e)
                                + ")";
            }
        }
        if (problem != null) {
            throw OptionChecks.usage(spec, option + " " + directory + ": " + problem);
        }
    }
}
