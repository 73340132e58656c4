package io.railyard.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.deployment.WorkerTable;
import io.railyard.failover.FailureHandling;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.jobmaster.JobMaster;
import io.railyard.jobmaster.WorkerGateway;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import io.railyard.topology.ResultPartitionType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two code samples of README.md, compiled and run: each sample is the code between its {@code
 * // README <name>} markers below, and the README must show exactly those lines.
 */
class ReadmeSamplesTest {
    private static final Path README = Path.of("../../README.md");
    private static final Path THIS_FILE =
            Path.of("src/test/java/io/railyard/local/ReadmeSamplesTest.java");

    @TempDir Path directory;

    @Test
    void localEngineSample_runsTheJob_exactly() throws Exception {
        // README local-engine
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 4)
                        .addVertex("sink", 4)
                        .connect(
                                "source",
                                "sink",
                                DistributionPattern.ALL_TO_ALL,
                                ResultPartitionType.BLOCKING)
                        .build();
        // Sources generate 10,000 records of 64 bytes each, every task forwards, sinks count.
        ForwardingJob job = ForwardingJob.of(graph, 10_000, 64, 42);
        JobResult result;
        // 2 workers x 4 slots in this process; BLOCKING results as sort-based partitions.
        try (LocalEngine engine =
                new LocalEngine(directory, 2, 4, ShuffleOptions.DEFAULT, PartitionKind.SORT)) {
            RestartBackoffPolicy restarts = RestartBackoffPolicy.fixedDelay(3, Duration.ZERO);
            result = engine.run(graph, job, restarts, Duration.ofMinutes(1));
        }
        System.out.println(
                result.outcome() + ": " + result.committedTotal().records() + " records");
        // README end
        assertThat(result.outcome()).isEqualTo(JobResult.FINISHED);
        assertThat(result.committedTotal()).isEqualTo(job.expectedReceived()[1]);
        assertThat(result.committedTotal().records()).isEqualTo(40_000);
        assertThat(result.leaks().isClean()).as("%s", result.leaks()).isTrue();
    }

    @Test
    void embedSample_deploysRestartsAndReleases_throughYourGateway() throws Exception {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 2)
                        .addVertex("sink", 2)
                        .connect(
                                "source",
                                "sink",
                                DistributionPattern.ALL_TO_ALL,
                                ResultPartitionType.BLOCKING)
                        .build();
        // README embed-jobmaster
        Queue<TaskDeploymentDescriptor> sent = new ArrayDeque<>();
        List<PartitionId> released = new ArrayList<>();
        List<FailureHandling> undeployed = new ArrayList<>(); // decisions on failed deploys
        // Your transport to your workers; this one keeps what it would send.
        class MyGateway implements WorkerGateway {
            @Override
            public void deploy(int worker, byte[] descriptor) {
                sent.add(TaskDeploymentDescriptor.decode(descriptor)); // as a worker reads it
            }

            @Override
            public void cancel(int worker, int task, int attempt) {}

            @Override
            public void releasePartition(int worker, PartitionId partition) {
                released.add(partition);
            }
        }
        WorkerTable workers = new WorkerTable(List.of("w0:6121", "w1:6121"));
        JobMaster master =
                JobMaster.builder(graph, workers, new MyGateway(), (t, a, h) -> undeployed.add(h))
                        .restartPolicy(RestartBackoffPolicy.fixedDelay(3, Duration.ZERO))
                        .build(); // this thread is its main thread from now on
        master.start(); // deploys the sources through the gateway
        // Then, on the same thread, as your workers report each attempt's end:
        FailureHandling handling = master.onTaskFailed(0, 0, new IOException("disk gone"));
        if (handling instanceof FailureHandling.Restart restart) {
            master.restart(restart); // after restart.delayMillis()
        }
        while (!sent.isEmpty()) {
            TaskDeploymentDescriptor task = sent.remove();
            master.onTaskFinished(task.task(), task.attempt()); // deploys what can run now
        }
        // README end
        // The failure restarts source#0 and the sinks, and source#1 too: it had not finished, so
        // the restarted sinks' input from it is re-produced. The stopped attempts' partitions go
        // at once, the new ones once both sinks finished.
        assertThat(released)
                .containsExactly(
                        new PartitionId(0, 0),
                        new PartitionId(1, 0),
                        new PartitionId(0, 1),
                        new PartitionId(1, 1));
        assertThat(master.isJobFailed()).isFalse();
        assertThat(undeployed).as("this gateway's deploys do not fail").isEmpty();
        assertThat(master.attempt(0)).isEqualTo(1);
        assertThat(master.attempt(3)).as("a sink").isEqualTo(1);
    }

    @Test
    void theReadme_showsExactlyTheseSamples() throws IOException {
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        String source = Files.readString(THIS_FILE, StandardCharsets.UTF_8);
        for (String name : List.of("local-engine", "embed-jobmaster")) {
            assertThat(javaBlocks(readme))
                    .as("README.md must show the sample '%s' as this test runs it", name)
                    .contains(sample(source, name));
        }
    }

    /** The lines between {@code // README name} and {@code // README end}, unindented. */
    private static String sample(String source, String name) {
        Matcher m =
                Pattern.compile(
                                "// README " + Pattern.quote(name) + "\n(.*?)\n\\s*// README end",
                                Pattern.DOTALL)
                        .matcher(source);
        assertThat(m.find()).as("sample '%s' in this file", name).isTrue();
        return unindent(m.group(1));
    }

    /** Every ```java block of {@code markdown}, each unindented. */
    private static List<String> javaBlocks(String markdown) {
        Matcher m = Pattern.compile("```java\n(.*?)\n```", Pattern.DOTALL).matcher(markdown);
        List<String> blocks = new ArrayList<>();
        while (m.find()) {
            blocks.add(unindent(m.group(1)));
        }
        return blocks;
    }

    private static String unindent(String lines) {
        int indent =
                lines.lines()
                        .filter(line -> !line.isBlank())
                        .mapToInt(line -> line.length() - line.stripLeading().length())
                        .min()
                        .orElse(0);
        return lines.lines()
                .map(line -> line.length() >= indent ? line.substring(indent) : line.strip())
                .collect(Collectors.joining("\n"));
    }
}
