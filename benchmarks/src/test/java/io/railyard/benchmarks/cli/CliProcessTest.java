package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line as a separate process (ARCHITECTURE.md, reliability rows 31 and 36): stopped
 * with SIGTERM mid-run it deletes its files; killed with SIGKILL, the next run sweeps what it left
 * and nothing else; without {@code -Djdk.attach.allowAttachSelf} JOL's warnings stay off stdout;
 * and a command that loads Flink prints no SLF4J banner on stderr (the no-op binding is on the
 * class path).
 */
@EnabledOnOs(OS.LINUX)
class CliProcessTest {
    private static final long TIMEOUT_SECONDS = 120;

    @TempDir Path dir;

    @Test
    void sigterm_duringShuffle_deletesEverythingTheRunCreated() throws Exception {
        Path shuffle = Files.createDirectories(dir.resolve("shuffle"));
        Process child = start(shuffleArgs(shuffle));
        awaitPartitionFiles(child, shuffle);

        child.destroy(); // SIGTERM: the shutdown hook deletes the run directory

        assertThat(child.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(entries(shuffle)).as("left in --dir after SIGTERM").isEmpty();
    }

    @Test
    void sigkill_thenTheNextRunSweepsWhatTheKilledRunLeft_andNothingElse() throws Exception {
        Path shuffle = Files.createDirectories(dir.resolve("shuffle"));
        Files.createDirectories(shuffle.resolve("someone-elses-dir"));
        Files.writeString(shuffle.resolve("railyard-shuffle-lookalike.data"), "not ours");
        Process child = start(shuffleArgs(shuffle));
        awaitPartitionFiles(child, shuffle);

        child.destroyForcibly(); // SIGKILL: no hook runs
        assertThat(child.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(entries(shuffle)).as("left by the killed run").hasSize(3);

        CliRun.of("shuffle", "--parallelism", "1", "--bytes-mib", "1", "--dir", shuffle.toString())
                .succeeded();

        assertThat(entries(shuffle))
                .containsExactlyInAnyOrder("someone-elses-dir", "railyard-shuffle-lookalike.data");
    }

    @Test
    void sigterm_duringRun_deletesTheEnginesDirectory() throws Exception {
        Path files = Files.createDirectories(dir.resolve("run"));
        Process child = start(runArgs(files));
        awaitEngineFiles(child, files);

        child.destroy(); // SIGTERM: the engine's shutdown hook deletes its directory

        assertThat(child.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(entries(files)).as("left in --dir after SIGTERM").isEmpty();
    }

    @Test
    void sigkill_duringRun_thenTheNextEngineSweepsWhatItLeft_andNothingElse() throws Exception {
        Path files = Files.createDirectories(dir.resolve("run"));
        Files.createDirectories(files.resolve("railyard-local-lookalike"));
        Process child = start(runArgs(files));
        awaitEngineFiles(child, files);

        child.destroyForcibly(); // SIGKILL: no hook runs
        assertThat(child.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(entries(files)).as("left by the killed run").hasSize(2);

        Path job = Files.writeString(dir.resolve("small.json"), job(2));
        CliRun.of("run", "--job", job.toString(), "--records", "10", "--dir", files.toString())
                .succeeded();

        assertThat(entries(files))
                .as("a directory without Railyard's marker is not ours")
                .containsExactly("railyard-local-lookalike");
    }

    /** A two-vertex all-to-all BLOCKING job of parallelism {@code p}. */
    private static String job(int p) {
        return "{\"vertices\":[{\"name\":\"a\",\"parallelism\":"
                + p
                + "},{\"name\":\"b\",\"parallelism\":"
                + p
                + "}],\"edges\":[{\"source\":\"a\",\"target\":\"b\","
                + "\"pattern\":\"ALL_TO_ALL\",\"type\":\"BLOCKING\"}]}";
    }

    /** A run long enough to be killed while it writes: 8 × 8, 64 M records of 64 bytes. */
    private String[] runArgs(Path files) throws IOException {
        Path job = Files.writeString(dir.resolve("long.json"), job(8));
        return new String[] {
            "run", "--job", job.toString(), "--records", "8000000", "--dir", files.toString()
        };
    }

    /** Waits until the engine has written files below its directory (more than its marker). */
    private void awaitEngineFiles(Process child, Path files) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (System.nanoTime() < deadline) {
            assertThat(child.isAlive())
                    .as("child still running; stderr: %s", read(dir.resolve("stderr")))
                    .isTrue();
            if (filesBelow(files) >= 2) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no engine files within " + TIMEOUT_SECONDS + " s");
    }

    private static long filesBelow(Path files) throws IOException {
        try (Stream<Path> walk = Files.walk(files)) {
            return walk.filter(p -> p.getNameCount() > files.getNameCount() + 2)
                    .filter(Files::isRegularFile)
                    .count();
        } catch (java.io.UncheckedIOException e) {
            return 0; // a file vanished during the walk: look again
        }
    }

    @Test
    void memory_withoutAttachSelf_keepsStdoutToTheTable() throws Exception {
        Path json = dir.resolve("memory.json");
        Process child =
                start(
                        "memory",
                        "--parallelism",
                        "10",
                        "--running-parallelism",
                        "20",
                        "--json",
                        json.toString());

        assertThat(child.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        String out = read(dir.resolve("stdout"));
        assertThat(child.exitValue())
                .as("exit code; stderr: %s", read(dir.resolve("stderr")))
                .isZero();
        assertThat(out)
                .startsWith("shape")
                .doesNotContainIgnoringCase("warning")
                .doesNotContain("Error while accessing"); // JOL's, on walking a Thread
        // header, a row per shape; a blank line, the running table's title, header and row;
        // "JSON written"
        assertThat(out.lines()).hasSize(1 + 5 + 1 + 3 + 1);
        assertThat(new ObjectMapper().readTree(json.toFile()).path("rows").size()).isEqualTo(5);
    }

    @Test
    void flinkCommand_printsNoSlf4jBanner() throws Exception {
        // The quickest command whose Flink classes log: without a binding, SLF4J 1.7 announces
        // "Failed to load class org.slf4j.impl.StaticLoggerBinder" on stderr.
        Process child = start("heap-probe", "--system", "flink", "--parallelism", "10");

        assertThat(child.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        String err = read(dir.resolve("stderr"));
        assertThat(child.exitValue()).as("exit code; stderr: %s", err).isZero();
        assertThat(read(dir.resolve("stdout"))).startsWith("flink lifecycle");
        assertThat(err.lines()).as("stderr").noneMatch(line -> line.startsWith("SLF4J:"));
    }

    private static String[] shuffleArgs(Path shuffle) {
        return new String[] {
            "shuffle", "--parallelism", "200", "--bytes-mib", "256", "--dir", shuffle.toString()
        };
    }

    /** Starts {@code Main args} in a child JVM, stdout and stderr to files in {@link #dir}. */
    private Process start(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx512m");
        // The child keeps its temporary files where this JVM does (the build's test-tmp): one
        // killed by a test cannot delete what it put there.
        command.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Main.class.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectOutput(dir.resolve("stdout").toFile())
                .redirectError(dir.resolve("stderr").toFile())
                .start();
    }

    /** Waits until the run has created partition files (not just its limit file). */
    private void awaitPartitionFiles(Process child, Path shuffle) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (System.nanoTime() < deadline) {
            assertThat(child.isAlive())
                    .as("child still running; stderr: %s", read(dir.resolve("stderr")))
                    .isTrue();
            if (partitionFiles(shuffle) >= 20) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no partition files within " + TIMEOUT_SECONDS + " s");
    }

    private static long partitionFiles(Path shuffle) throws IOException {
        try (Stream<Path> files = Files.walk(shuffle, 3)) {
            return files.filter(p -> p.getNameCount() > shuffle.getNameCount() + 1)
                    .filter(p -> p.getParent().getFileName().toString().startsWith("sort"))
                    .count();
        } catch (java.io.UncheckedIOException e) {
            return 0; // a file vanished during the walk: look again
        }
    }

    private static List<String> entries(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(p -> p.getFileName().toString()).toList();
        }
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }
}
