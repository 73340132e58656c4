package io.railyard.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@code scripts/flink-process-cluster.sh} on this module's test class path: a Flink
 * JobManager and two TaskManagers as separate JVMs on loopback, Railyard's plugin configured, a
 * word count whose TaskManager is killed with SIGKILL mid-job. The script exits 0 only if the
 * counts are exact and a TaskManager was killed; it stops its processes whatever happens.
 */
class FlinkProcessClusterTest {
    @TempDir Path work;

    @Test
    void aWordCount_survivesATaskManagerKilledMidJob_exactly() throws Exception {
        Path script =
                Path.of("../../scripts/flink-process-cluster.sh").toAbsolutePath().normalize();
        Path log = work.resolve("script.log");
        String classPath =
                System.getProperty(
                        "surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder builder =
                new ProcessBuilder("bash", script.toString(), work.resolve("cluster").toString())
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile());
        builder.environment().put("RAILYARD_FLINK_CLASSPATH", classPath);
        builder.environment()
                .put(
                        "JAVA",
                        System.getProperty("java.home")
                                + File.separator
                                + "bin"
                                + File.separator
                                + "java");
        builder.environment().put("TIMEOUT_SECONDS", "150");
        Process process = builder.start();

        boolean ended = process.waitFor(180, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(ended).as("the script ended within 180 s; its output:%n%s", output).isTrue();
        assertThat(process.exitValue()).as("its exit code; its output:%n%s", output).isZero();
        assertThat(output)
                .contains("killed TaskManager pid")
                .contains("exact: 997 words, 2000000 records");
    }
}
