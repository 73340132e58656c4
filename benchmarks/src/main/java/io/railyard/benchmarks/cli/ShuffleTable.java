package io.railyard.benchmarks.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.benchmarks.flink.FlinkSortShuffle;
import io.railyard.benchmarks.procedures.Delivered;
import io.railyard.benchmarks.procedures.ShuffleThroughput;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Consumers;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Failure;
import io.railyard.benchmarks.procedures.ShuffleThroughput.HybridCounts;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Result;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Throughput;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A shuffle throughput result as text rows and as JSON. A failure is written in the words of the
 * command that ran it: a memory shortfall names that command's memory option and the value that
 * would fit. Hybrid rows add where the bytes went: the share written to disk (of bytes produced),
 * read from disk and from memory (of bytes read), and the most pages borrowed at once. The JSON of
 * a partition kind also has the records its consumers read and their checksum ({@code records},
 * {@code checksum}: 16 hexadecimal digits), which the run checked against what producers wrote.
 */
final class ShuffleTable {
    private static final String ROW = "%-11s %-16s %10s %10s %8s %8s %9s %9s %9s %7s %7s %7s %10s";

    static final String HEADER =
            String.format(
                    Locale.ROOT,
                    ROW,
                    "parallelism",
                    "system",
                    "write MB/s",
                    "read MB/s",
                    "write %",
                    "read %",
                    "w % dev",
                    "r % dev",
                    "files",
                    "disk w",
                    "disk r",
                    "mem r",
                    "peak pages");

    /** The name of Flink's sort-merge partition in rows and JSON. */
    static final String FLINK_SORT = FlinkSortShuffle.KEY;

    private ShuffleTable() {}

    /**
     * The page-cache limit, the device limit and each kind run, with percentages; Flink's
     * sort-merge partition ({@value FLINK_SORT}), if measured, right after {@code sort} (where
     * {@code sort} would be if it was not run).
     */
    static String rows(Result result, ShuffleChecks.Names names) {
        StringBuilder out = new StringBuilder();
        row(out, "limit", null, result.limits().pageCache(), result, names);
        row(out, "device", null, result.limits().device(), result, names);
        for (PartitionKind kind : ShuffleThroughput.KINDS) {
            Throughput t = result.system(kind);
            if (t != null) {
                row(out, ShuffleThroughput.key(kind), kind, t, result, names);
                if (t instanceof Throughput.Measured m && m.network() != null) {
                    networkRow(out, ShuffleThroughput.key(kind), m, m.network(), result);
                }
            }
            Throughput flink = result.flinkSort();
            if (kind == PartitionKind.SORT && flink != null) {
                row(out, FLINK_SORT, null, flink, result, names);
            }
        }
        return out.toString();
    }

    /**
     * One run as JSON (the report's {@code "shuffle"} section, an element of {@code shuffle}'s):
     * each kind run is an object named by its key ({@code "sort"}, {@code "hybrid-full"}, …), and
     * Flink's sort-merge partition, if measured, an object {@code "flink-sort"} of the same form.
     */
    static void putJson(ObjectNode node, Result result, ShuffleChecks.Names names) {
        node.put("parallelism", result.setup().parallelism());
        node.put("bytes", result.setup().bytes());
        node.put("record_bytes", result.setup().recordBytes());
        node.put("slots", result.setup().slots());
        node.put("network_memory_bytes", result.setup().networkMemoryBytes());
        node.put("gate_pages", result.setup().gatePages());
        node.put("consumers", result.setup().consumers().key());
        node.put("producer_mb_s", result.setup().producerBytesPerSecond() / 1e6);
        system(node.putObject("limit"), null, result.limits().pageCache(), result, names);
        system(node.putObject("device_limit"), null, result.limits().device(), result, names);
        for (Map.Entry<PartitionKind, Throughput> system : result.systems().entrySet()) {
            PartitionKind kind = system.getKey();
            system(
                    node.putObject(ShuffleThroughput.key(kind)),
                    kind,
                    system.getValue(),
                    result,
                    names);
        }
        Throughput flink = result.flinkSort();
        if (flink != null) {
            system(node.putObject(FLINK_SORT), null, flink, result, names);
        }
    }

    /** The text section of the scale report. */
    static String section(Result result, ShuffleChecks.Names names) {
        return String.format(
                        Locale.ROOT,
                        "%nshuffle: P = %,d producers x %,d consumers, %,d MiB of %d-byte records,"
                                + " %s network memory, %d gate pages, %d tasks at a time, %s"
                                + " hybrid consumers%n",
                        result.setup().parallelism(),
                        result.setup().parallelism(),
                        result.setup().bytes() >> 20,
                        result.setup().recordBytes(),
                        ShuffleOptions.bytesText(result.setup().networkMemoryBytes()),
                        result.setup().gatePages(),
                        result.setup().slots(),
                        result.setup().consumers().key())
                + HEADER
                + System.lineSeparator()
                + rows(result, names);
    }

    /**
     * The failure of {@code kind} (null for a limit) in the words of the command: a memory
     * shortfall says what to raise and, for hybrid consumers not in waves where the command can
     * change that, what else to do.
     */
    static String failureText(
            Failure failure,
            @Nullable PartitionKind kind,
            Result result,
            ShuffleChecks.Names names) {
        if (!(failure instanceof Failure.InsufficientMemory insufficient)) {
            return failure.message();
        }
        boolean waves =
                kind != null
                        && kind.isReadableWhileWritten()
                        && !names.waves().isEmpty()
                        && result.setup().consumers() != Consumers.WAVES;
        return String.format(
                Locale.ROOT,
                "%s; raise %s to at least %d to measure it%s",
                failure.message(),
                names.memory(),
                ShuffleChecks.mebibytesCeil(insufficient.requiredMemoryBytes()),
                waves ? ", or attach consumers in waves (" + names.waves() + ")" : "");
    }

    private static void system(
            ObjectNode node,
            @Nullable PartitionKind kind,
            Throughput t,
            Result result,
            ShuffleChecks.Names names) {
        if (t instanceof Throughput.Failed failed) {
            Failure failure = failed.failure();
            node.putNull("write_mb_s");
            node.putNull("read_mb_s");
            node.put("error", failureText(failure, kind, result, names));
            node.put("reason", failure.key());
            if (failure instanceof Failure.InsufficientMemory insufficient
                    && insufficient.requiredMemoryBytes() > 0) {
                node.put("required_memory_bytes", insufficient.requiredMemoryBytes());
            }
            node.put("files", t.files());
            return;
        }
        Throughput.Measured measured = (Throughput.Measured) t;
        node.put("write_mb_s", measured.writeMbPerSecond());
        node.put("read_mb_s", measured.readMbPerSecond());
        node.put("files", t.files());
        Delivered delivered = measured.delivered();
        if (delivered != null) {
            node.put("records", delivered.records());
            node.put("checksum", delivered.checksumHex());
        }
        Throughput.NetworkRead network = measured.network();
        if (network != null) {
            ObjectNode tcp = node.putObject("over_tcp");
            tcp.put("read_mb_s", network.readMbPerSecond());
            tcp.put(
                    "read_ratio_to_in_process",
                    network.readMbPerSecond() / Math.max(1e-9, measured.readMbPerSecond()));
            tcp.put("bytes_sent", network.bytesSent());
            tcp.put("bytes_sent_without_copy", network.bytesSentWithoutCopy());
            tcp.put("bytes_sent_from_files", network.bytesSentFromFiles());
        }
        HybridCounts hybrid = measured.hybrid();
        if (hybrid != null) {
            node.put("disk_write_fraction", hybrid.diskWriteFraction());
            node.put("disk_read_fraction", hybrid.diskReadFraction());
            node.put("memory_read_fraction", hybrid.memoryReadFraction());
            node.put("peak_borrowed_pages", hybrid.peakBorrowedPages());
        }
    }

    /**
     * The line under a kind's row with {@code --transport tcp}: its partitions read again over TCP,
     * the rate against the in-process read of the same run, and the bytes sent without a copy.
     */
    private static void networkRow(
            StringBuilder out,
            String system,
            Throughput.Measured inProcess,
            Throughput.NetworkRead network,
            Result result) {
        out.append(
                String.format(
                        Locale.ROOT,
                        ROW
                                + "   over TCP: %.0f%% of the in-process read, %.0f%% of %,d bytes sent"
                                + " without a copy, %.0f%% as file regions%n",
                        result.setup().parallelism(),
                        system + " tcp",
                        "-",
                        String.format(Locale.ROOT, "%.0f", network.readMbPerSecond()),
                        "-",
                        percent(network.readMbPerSecond(), result.limits().pageCache(), false),
                        "-",
                        percent(network.readMbPerSecond(), result.limits().device(), false),
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        100
                                * network.readMbPerSecond()
                                / Math.max(1e-9, inProcess.readMbPerSecond()),
                        100 * network.withoutCopyFraction(),
                        network.bytesSent(),
                        100 * network.fromFilesFraction()));
    }

    private static void row(
            StringBuilder out,
            String system,
            @Nullable PartitionKind kind,
            Throughput t,
            Result result,
            ShuffleChecks.Names names) {
        if (t instanceof Throughput.Failed failed) {
            Failure failure = failed.failure();
            out.append(
                    String.format(
                            Locale.ROOT,
                            "%-11d %-16s %s: %s%n",
                            result.setup().parallelism(),
                            system,
                            failure instanceof Failure.IoError ? "failed" : "not measured",
                            OneLine.of(failureText(failure, kind, result, names))));
            return;
        }
        Throughput.Measured m = (Throughput.Measured) t;
        HybridCounts hybrid = m.hybrid();
        out.append(
                String.format(
                        Locale.ROOT,
                        ROW + "%n",
                        result.setup().parallelism(),
                        system,
                        String.format(Locale.ROOT, "%.0f", m.writeMbPerSecond()),
                        String.format(Locale.ROOT, "%.0f", m.readMbPerSecond()),
                        percent(m.writeMbPerSecond(), result.limits().pageCache(), true),
                        percent(m.readMbPerSecond(), result.limits().pageCache(), false),
                        percent(m.writeMbPerSecond(), result.limits().device(), true),
                        percent(m.readMbPerSecond(), result.limits().device(), false),
                        m.files(),
                        hybrid == null ? "-" : share(hybrid.diskWriteFraction()),
                        hybrid == null ? "-" : share(hybrid.diskReadFraction()),
                        hybrid == null ? "-" : share(hybrid.memoryReadFraction()),
                        hybrid == null
                                ? "-"
                                : String.format(Locale.ROOT, "%,d", hybrid.peakBorrowedPages())));
    }

    /**
     * {@code value} as a percentage of {@code limit}'s write (or read) rate, or "-" when the limit
     * was not measured.
     */
    private static String percent(double value, Throughput limit, boolean write) {
        if (!(limit instanceof Throughput.Measured measured)) {
            return "-";
        }
        double rate = write ? measured.writeMbPerSecond() : measured.readMbPerSecond();
        return rate <= 0 ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * value / rate);
    }

    /** A fraction as a percentage with one decimal. */
    private static String share(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * fraction);
    }
}
