package io.railyard.benchmarks.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Failure;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Kind;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Reason;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Result;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Throughput;
import io.railyard.shuffle.ShuffleOptions;
import java.util.Locale;
import java.util.Map;

/**
 * A shuffle throughput result as text rows and as JSON. A failure is written in the words of the
 * command that ran it: a memory shortfall names that command's memory option and the value that
 * would fit.
 */
final class ShuffleTable {
    static final String HEADER =
            String.format(
                    Locale.ROOT,
                    "%-11s %-6s %10s %10s %8s %8s %9s %9s %9s",
                    "parallelism",
                    "system",
                    "write MB/s",
                    "read MB/s",
                    "write %",
                    "read %",
                    "w % dev",
                    "r % dev",
                    "files");

    private ShuffleTable() {}

    /** Four rows: the page-cache limit, the device limit, sort and hash, with percentages. */
    static String rows(Result result, ShuffleChecks.Names names) {
        StringBuilder out = new StringBuilder();
        row(out, "limit", result.limit(), result, names);
        row(out, "device", result.deviceLimit(), result, names);
        for (Map.Entry<Kind, Throughput> system : result.systems().entrySet()) {
            row(out, system.getKey().key(), system.getValue(), result, names);
        }
        return out.toString();
    }

    /**
     * One run as JSON (the report's {@code "shuffle"} section, an element of {@code shuffle}'s).
     */
    static void putJson(ObjectNode node, Result result, ShuffleChecks.Names names) {
        node.put("parallelism", result.parallelism());
        node.put("bytes", result.bytes());
        node.put("record_bytes", result.recordBytes());
        node.put("slots", result.slots());
        node.put("network_memory_bytes", result.networkMemoryBytes());
        system(node.putObject("limit"), result.limit(), names);
        system(node.putObject("device_limit"), result.deviceLimit(), names);
        for (Map.Entry<Kind, Throughput> system : result.systems().entrySet()) {
            system(node.putObject(system.getKey().key()), system.getValue(), names);
        }
    }

    /** The text section of the scale report. */
    static String section(Result result, ShuffleChecks.Names names) {
        return String.format(
                        Locale.ROOT,
                        "%nshuffle: P = %,d producers x %,d consumers, %,d MiB of %d-byte records,"
                                + " %s network memory, %d tasks at a time%n",
                        result.parallelism(),
                        result.parallelism(),
                        result.bytes() >> 20,
                        result.recordBytes(),
                        ShuffleOptions.bytesText(result.networkMemoryBytes()),
                        result.slots())
                + HEADER
                + System.lineSeparator()
                + rows(result, names);
    }

    /** The failure of {@code t} in the words of the command, or null if it has numbers. */
    static String failureText(Failure failure, ShuffleChecks.Names names) {
        if (failure.reason() != Reason.INSUFFICIENT_MEMORY) {
            return failure.message();
        }
        return String.format(
                Locale.ROOT,
                "%s; raise %s to at least %d to measure it",
                failure.message(),
                names.memory(),
                ShuffleChecks.mebibytesCeil(failure.requiredMemoryBytes()));
    }

    private static void system(ObjectNode node, Throughput t, ShuffleChecks.Names names) {
        Failure failure = t.failure();
        if (failure == null) {
            node.put("write_mb_s", t.writeMbPerSecond());
            node.put("read_mb_s", t.readMbPerSecond());
        } else {
            node.putNull("write_mb_s");
            node.putNull("read_mb_s");
            node.put("error", failureText(failure, names));
            node.put("reason", failure.reason().name().toLowerCase(Locale.ROOT));
            if (failure.requiredMemoryBytes() > 0) {
                node.put("required_memory_bytes", failure.requiredMemoryBytes());
            }
        }
        node.put("files", t.files());
    }

    private static void row(
            StringBuilder out,
            String system,
            Throughput t,
            Result result,
            ShuffleChecks.Names names) {
        Failure failure = t.failure();
        if (failure != null) {
            out.append(
                    String.format(
                            Locale.ROOT,
                            "%-11d %-6s %s: %s%n",
                            result.parallelism(),
                            system,
                            failure.reason() == Reason.IO_ERROR ? "failed" : "not measured",
                            OneLine.of(failureText(failure, names))));
            return;
        }
        out.append(
                String.format(
                        Locale.ROOT,
                        "%-11d %-6s %10.0f %10.0f %8s %8s %9s %9s %9d%n",
                        result.parallelism(),
                        system,
                        t.writeMbPerSecond(),
                        t.readMbPerSecond(),
                        percent(t.writeMbPerSecond(), result.limit().writeMbPerSecond()),
                        percent(t.readMbPerSecond(), result.limit().readMbPerSecond()),
                        percent(t.writeMbPerSecond(), result.deviceLimit().writeMbPerSecond()),
                        percent(t.readMbPerSecond(), result.deviceLimit().readMbPerSecond()),
                        t.files()));
    }

    /** {@code value} as a percentage of {@code limit}, or "-" when the limit was not measured. */
    private static String percent(double value, double limit) {
        return Double.isNaN(limit) || limit <= 0
                ? "-"
                : String.format(Locale.ROOT, "%.0f%%", 100 * value / limit);
    }
}
