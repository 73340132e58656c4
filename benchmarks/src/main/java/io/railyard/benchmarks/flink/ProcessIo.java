package io.railyard.benchmarks.flink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The bytes this process passed to write and read system calls so far, from Linux's {@code
 * /proc/self/io} ({@code wchar}, {@code rchar}): files, pipes and sockets alike, whether or not the
 * page cache absorbed them. Not thread-safe to interpret across processes; O(1) file read.
 */
final class ProcessIo {
    private static final Path IO = Path.of("/proc/self/io");

    private ProcessIo() {}

    /**
     * {@code {written, read}} bytes so far; {@code {0, 0}} where the file does not exist or cannot
     * be read (not Linux), so that a difference of two readings is 0 there.
     */
    static long[] read() {
        long written = 0;
        long read = 0;
        try {
            for (String line : Files.readAllLines(IO)) {
                if (line.startsWith("wchar:")) {
                    written = Long.parseLong(line.substring(6).trim());
                } else if (line.startsWith("rchar:")) {
                    read = Long.parseLong(line.substring(6).trim());
                }
            }
        } catch (IOException | NumberFormatException e) {
            return new long[2];
        }
        return new long[] {written, read};
    }
}
