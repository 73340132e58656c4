package io.railyard.benchmarks.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.benchmarks.flink.FlinkSortShuffle;
import io.railyard.benchmarks.procedures.Delivered;
import io.railyard.benchmarks.procedures.ShuffleThroughput;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Consumers;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Failure;
import io.railyard.benchmarks.procedures.ShuffleThroughput.HybridCounts;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Reason;
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
        row(out, "limit", null, result.limit(), result, names);
        row(out, "device", null, result.deviceLimit(), result, names);
        for (PartitionKind kind : ShuffleThroughput.KINDS) {
            Throughput t = result.system(kind);
            if (t != null) {
                row(out, ShuffleThroughput.key(kind), kind, t, result, names);
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
        node.put("parallelism", result.parallelism());
        node.put("bytes", result.bytes());
        node.put("record_bytes", result.recordBytes());
        node.put("slots", result.slots());
        node.put("network_memory_bytes", result.networkMemoryBytes());
        node.put("gate_pages", result.gatePages());
        node.put("consumers", result.consumers().key());
        node.put("producer_mb_s", result.producerBytesPerSecond() / 1e6);
        system(node.putObject("limit"), null, result.limit(), result, names);
        system(node.putObject("device_limit"), null, result.deviceLimit(), result, names);
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
                        result.parallelism(),
                        result.parallelism(),
                        result.bytes() >> 20,
                        result.recordBytes(),
                        ShuffleOptions.bytesText(result.networkMemoryBytes()),
                        result.gatePages(),
                        result.slots(),
                        result.consumers().key())
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
        if (failure.reason() != Reason.INSUFFICIENT_MEMORY) {
            return failure.message();
        }
        boolean waves =
                kind != null
                        && kind.isReadableWhileWritten()
                        && !names.waves().isEmpty()
                        && result.consumers() != Consumers.WAVES;
        return String.format(
                Locale.ROOT,
                "%s; raise %s to at least %d to measure it%s",
                failure.message(),
                names.memory(),
                ShuffleChecks.mebibytesCeil(failure.requiredMemoryBytes()),
                waves ? ", or attach consumers in waves (" + names.waves() + ")" : "");
    }

    private static void system(
            ObjectNode node,
            @Nullable PartitionKind kind,
            Throughput t,
            Result result,
            ShuffleChecks.Names names) {
        Failure failure = t.failure();
        if (failure == null) {
            node.put("write_mb_s", t.writeMbPerSecond());
            node.put("read_mb_s", t.readMbPerSecond());
        } else {
            node.putNull("write_mb_s");
            node.putNull("read_mb_s");
            node.put("error", failureText(failure, kind, result, names));
            node.put("reason", failure.reason().name().toLowerCase(Locale.ROOT));
            if (failure.requiredMemoryBytes() > 0) {
                node.put("required_memory_bytes", failure.requiredMemoryBytes());
            }
        }
        node.put("files", t.files());
        Delivered delivered = t.delivered();
        if (delivered != null) {
            node.put("records", delivered.records());
            node.put("checksum", delivered.checksumHex());
        }
        HybridCounts hybrid = t.hybrid();
        if (hybrid != null) {
            node.put("disk_write_fraction", hybrid.diskWriteFraction());
            node.put("disk_read_fraction", hybrid.diskReadFraction());
            node.put("memory_read_fraction", hybrid.memoryReadFraction());
            node.put("peak_borrowed_pages", hybrid.peakBorrowedPages());
        }
    }

    private static void row(
            StringBuilder out,
            String system,
            @Nullable PartitionKind kind,
            Throughput t,
            Result result,
            ShuffleChecks.Names names) {
        Failure failure = t.failure();
        if (failure != null) {
            out.append(
                    String.format(
                            Locale.ROOT,
                            "%-11d %-16s %s: %s%n",
                            result.parallelism(),
                            system,
                            failure.reason() == Reason.IO_ERROR ? "failed" : "not measured",
                            OneLine.of(failureText(failure, kind, result, names))));
            return;
        }
        HybridCounts hybrid = t.hybrid();
        out.append(
                String.format(
                        Locale.ROOT,
                        ROW + "%n",
                        result.parallelism(),
                        system,
                        String.format(Locale.ROOT, "%.0f", t.writeMbPerSecond()),
                        String.format(Locale.ROOT, "%.0f", t.readMbPerSecond()),
                        percent(t.writeMbPerSecond(), result.limit().writeMbPerSecond()),
                        percent(t.readMbPerSecond(), result.limit().readMbPerSecond()),
                        percent(t.writeMbPerSecond(), result.deviceLimit().writeMbPerSecond()),
                        percent(t.readMbPerSecond(), result.deviceLimit().readMbPerSecond()),
                        t.files(),
                        hybrid == null ? "-" : share(hybrid.diskWriteFraction()),
                        hybrid == null ? "-" : share(hybrid.diskReadFraction()),
                        hybrid == null ? "-" : share(hybrid.memoryReadFraction()),
                        hybrid == null
                                ? "-"
                                : String.format(Locale.ROOT, "%,d", hybrid.peakBorrowedPages())));
    }

    /** {@code value} as a percentage of {@code limit}, or "-" when the limit was not measured. */
    private static String percent(double value, double limit) {
        return Double.isNaN(limit) || limit <= 0
                ? "-"
                : String.format(Locale.ROOT, "%.0f%%", 100 * value / limit);
    }

    /** A fraction as a percentage with one decimal. */
    private static String share(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * fraction);
    }
}
