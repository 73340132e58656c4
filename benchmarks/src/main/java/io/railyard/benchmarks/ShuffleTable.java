package io.railyard.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.benchmarks.ShuffleThroughput.Result;
import io.railyard.benchmarks.ShuffleThroughput.Throughput;
import java.util.Locale;

/** The text rows of a shuffle throughput result. */
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

    /** Three rows: the limit, sort and hash, with percentages of the limit. */
    static String rows(Result result) {
        StringBuilder out = new StringBuilder();
        row(out, result.parallelism(), "limit", result.limit(), result);
        row(out, result.parallelism(), "device", result.deviceLimit(), result);
        row(out, result.parallelism(), "sort", result.sort(), result);
        row(out, result.parallelism(), "hash", result.hash(), result);
        return out.toString();
    }

    /** The report's {@code "shuffle"} JSON section. */
    static void putJson(ObjectNode node, Result result) {
        node.put("parallelism", result.parallelism());
        node.put("bytes", result.bytes());
        node.put("record_bytes", result.recordBytes());
        node.put("network_memory_bytes", result.networkMemoryBytes());
        ObjectNode limit = node.putObject("limit");
        limit.put("write_mb_s", result.limit().writeMbPerSecond());
        limit.put("read_mb_s", result.limit().readMbPerSecond());
        system(node.putObject("device_limit"), result.deviceLimit());
        system(node.putObject("sort"), result.sort());
        system(node.putObject("hash"), result.hash());
    }

    private static void system(ObjectNode node, Throughput t) {
        if (t.error() == null) {
            node.put("write_mb_s", t.writeMbPerSecond());
            node.put("read_mb_s", t.readMbPerSecond());
        } else {
            node.putNull("write_mb_s");
            node.putNull("read_mb_s");
            node.put("error", t.error());
        }
        node.put("files", t.files());
    }

    /** The text section of the scale report. */
    static String section(Result result) {
        return String.format(
                        Locale.ROOT,
                        "%nshuffle: P = %,d producers x %,d consumers, %,d MiB of %d-byte records,"
                                + " %s network memory, 8 tasks at a time%n",
                        result.parallelism(),
                        result.parallelism(),
                        result.bytes() >> 20,
                        result.recordBytes(),
                        io.railyard.shuffle.ShuffleOptions.bytesText(result.networkMemoryBytes()))
                + HEADER
                + System.lineSeparator()
                + rows(result);
    }

    private static void row(
            StringBuilder out, int parallelism, String system, Throughput t, Result result) {
        Throughput limit = result.limit();
        Throughput device = result.deviceLimit();
        if (t.error() != null) {
            out.append(
                    String.format(
                            Locale.ROOT,
                            "%-11d %-6s failed after %d files: %s%n",
                            parallelism,
                            system,
                            t.files(),
                            t.error()));
            return;
        }
        out.append(
                String.format(
                        Locale.ROOT,
                        "%-11d %-6s %10.0f %10.0f %7.0f%% %7.0f%% %8.0f%% %8.0f%% %9d%n",
                        parallelism,
                        system,
                        t.writeMbPerSecond(),
                        t.readMbPerSecond(),
                        100 * t.writeMbPerSecond() / limit.writeMbPerSecond(),
                        100 * t.readMbPerSecond() / limit.readMbPerSecond(),
                        100 * t.writeMbPerSecond() / device.writeMbPerSecond(),
                        100 * t.readMbPerSecond() / device.readMbPerSecond(),
                        t.files()));
    }
}
