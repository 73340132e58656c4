package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.testing.LeakDetector;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * ARCHITECTURE.md, Reliability row 27: a hash partition with more subpartitions than the process
 * may open files fails with a clear "too many open files" error that points to the sort-based
 * partition, and leaves nothing behind: no pages, no files, and the child's open file descriptors
 * (read from {@code /proc/self/fd}, not directory entries) back to their baseline. Runs in a child
 * JVM under {@code ulimit -n 128}.
 */
class TooManyFilesTest {
    /** The child: tries a 500-subpartition hash partition and prints the outcome. */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Set<String> before = LeakDetector.descriptors();
        ShuffleOptions options =
                ShuffleOptions.builder().pageSizeBytes(256).totalPages(1024).build();
        try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
            try (PartitionWriter writer =
                    ShuffleHarness.blocking(worker, PartitionKind.HASH, 0, 500)) {
                System.out.println("UNEXPECTED: created " + writer.name());
            } catch (PartitionWriteException e) {
                System.out.println("ERROR: " + e.getMessage());
            }
            System.out.println("PAGES: " + worker.bufferPool().pagesInUse());
        }
        try (var files = Files.list(dir)) {
            System.out.println("FILES: " + files.count());
        }
        Set<String> leaked = new TreeSet<>(LeakDetector.descriptors());
        leaked.removeAll(before);
        System.out.println("DESCRIPTORS: " + before.size() + " before, leaked " + leaked);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void hashPartition_underALowOpenFileLimit_clearErrorAndNothingLeft(@TempDir Path dir)
            throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String command =
                "ulimit -n 128 && exec '"
                        + java
                        + "' -cp '"
                        + System.getProperty("java.class.path")
                        + "' "
                        + TooManyFilesTest.class.getName()
                        + " '"
                        + dir
                        + "'";
        Process process =
                new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
        List<String> lines =
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                        .lines()
                        .toList();
        assertThat(lines)
                .as("child output")
                .anySatisfy(
                        line ->
                                assertThat(line)
                                        .startsWith("ERROR: writing partition 'p0.a0'")
                                        .contains("Too many open files")
                                        .contains("ulimit -n")
                                        .contains("sort-based"));
        assertThat(lines).contains("PAGES: " + IoScheduler.pagesNeeded(ShuffleOptions.DEFAULT));
        assertThat(lines).contains("FILES: 0");
        assertThat(lines)
                .as("open descriptors of the child, from /proc/self/fd")
                .anySatisfy(
                        line ->
                                assertThat(line)
                                        .matches("DESCRIPTORS: [1-9]\\d* before, leaked \\[]"));
    }
}
