package io.railyard.shuffle;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.testing.LeakDetector.KeepsFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ShuffleDirectory#deleteOnExit()} in a real JVM exit (ARCHITECTURE.md, Reliability row 31):
 * a child JVM that is terminated (SIGTERM) deletes its directory even while one of its threads is
 * still creating files there; one that is killed (SIGKILL) cannot, and the next {@link
 * ShuffleDirectory#sweepStale} deletes what it left. See {@code TooManyFilesTest} for the same
 * child-JVM pattern.
 */
@EnabledOnOs({OS.LINUX, OS.MAC})
@KeepsFiles("each child process writes its log there")
class ShuffleDirectoryExitTest {
    @TempDir Path parent;

    // Where the child's output goes: Process.destroy() closes the pipes, so a file keeps what the
    // child prints while it exits (its shutdown hook reports a failure on stderr).
    @TempDir Path logs;

    private Process startChild() throws IOException {
        String java =
                ProcessHandle.current()
                        .info()
                        .command()
                        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        return new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        ShuffleDirectoryChild.class.getName(),
                        parent.toString())
                .redirectErrorStream(true)
                .redirectOutput(logs.resolve("child.log").toFile())
                .start();
    }

    private List<String> childOutput() throws IOException {
        return Files.readAllLines(logs.resolve("child.log"), StandardCharsets.UTF_8);
    }

    /** Waits for the child's "ready" line; returns its directory. */
    private Path awaitReady(Process child) throws IOException, InterruptedException {
        while (true) {
            for (String line : childOutput()) {
                if (line.startsWith("ready ")) {
                    return Path.of(line.substring("ready ".length()));
                }
            }
            if (child.waitFor(10, TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the child ended before it was ready: " + childOutput());
            }
        }
    }

    @Test
    void terminatedChild_shutdownHookDeletesItsDirectory() throws Exception {
        Process child = startChild();
        Path directory = awaitReady(child);
        assertThat(directory.resolve("job/partition/p4.data")).exists();

        child.destroy(); // SIGTERM: shutdown hooks run

        assertThat(child.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(childOutput()).as("child output").containsExactly("ready " + directory);
        assertThat(parent).isEmptyDirectory();
    }

    @Test
    void killedChild_directoryLeftBehind_sweptByTheNextProcess() throws Exception {
        Process child = startChild();
        Path directory = awaitReady(child);

        child.destroyForcibly(); // SIGKILL: no hook runs

        assertThat(child.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(directory.resolve(ShuffleDirectory.MARKER_FILE)).exists();
        assertThat(directory.resolve("job/partition/p0.data")).exists();
        assertThat(ShuffleDirectory.sweepStale(parent)).containsExactly(directory);
        assertThat(parent).isEmptyDirectory();
    }
}
