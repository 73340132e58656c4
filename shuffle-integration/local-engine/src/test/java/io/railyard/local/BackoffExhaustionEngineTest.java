package io.railyard.local;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.deployment.OffloadOptions;
import io.railyard.failover.JobFailedException;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import io.railyard.worker.TaskCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reliability row 13, end to end on the local engine: a sink that throws on every attempt, after
 * reading its inputs (so their partitions, pages and offloaded descriptors are in use), exhausts
 * the restart back-off — fixed delay and failure rate. The job ends FAILED with a {@link
 * JobFailedException} whose cause chain holds the sink's exception and its root cause; every
 * partition was released by failover (none left for the engine to release), no page is in use, no
 * partition file is left, and the blob store holding every group's descriptors is empty.
 */
class BackoffExhaustionEngineTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(512).build();
    private static final OffloadOptions OFFLOAD_EVERY_GROUP = new OffloadOptions(true, 1, 1, true);

    @TempDir Path dir;

    /** Each policy allows two restarts; the third failure fails the job. */
    static Stream<Arguments> policies() {
        return Stream.of(
                Arguments.of("fixed delay", "maxAttempts = 2"),
                Arguments.of("failure rate", "maxFailuresPerWindow = 2"));
    }

    private static RestartBackoffPolicy policy(String name) {
        return name.equals("fixed delay")
                ? RestartBackoffPolicy.fixedDelay(2, Duration.ofMillis(1))
                : RestartBackoffPolicy.failureRate(
                        2, Duration.ofMinutes(10), Duration.ofMillis(1), Clock.systemUTC());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void aSinkThatKeepsThrowing_failsTheJobWithItsException_andLeavesNothing(
            String name, String setting) throws Exception {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 4)
                        .addVertex("sink", 4)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .build();
        ForwardingJob job = ForwardingJob.of(graph, 2_000, 64, 13);
        AtomicInteger sinkAttempts = new AtomicInteger();
        TaskCode.Factory throwing =
                (vertex, subtask, attempt) -> {
                    TaskCode code = job.create(vertex, subtask, attempt);
                    if (vertex != 1 || subtask != 0) {
                        return code;
                    }
                    return Steps.first(
                            context -> sinkAttempts.incrementAndGet(),
                            Steps.whenDone(
                                    code, // reads every input to its end
                                    tally -> {
                                        throw new UncheckedIOException(
                                                "sink#0 attempt " + attempt + " cannot commit",
                                                new IOException("commit store unreachable"));
                                    }));
                };

        try (LocalEngine engine = new LocalEngine(dir, 2, 4, OPTIONS, PartitionKind.SORT)) {
            JobResult result =
                    engine.run(graph, throwing, policy(name), TIMEOUT, OFFLOAD_EVERY_GROUP);

            assertThat(result.outcome()).isInstanceOf(JobResult.Failed.class);
            assertThat(((JobResult.Failed) result.outcome()).cause())
                    .isInstanceOf(JobFailedException.class)
                    .hasMessageContaining("sink#0 (attempt 2)")
                    .hasMessageContaining(setting)
                    .hasRootCauseInstanceOf(IOException.class)
                    .hasRootCauseMessage("commit store unreachable")
                    .cause()
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessage("sink#0 attempt 2 cannot commit");
            assertThat(sinkAttempts).hasValue(3);
            assertThat(result.stats().restarts()).isEqualTo(2);
            assertThat(result.leaks().partitions())
                    .as("partitions failover did not release")
                    .isZero();
            assertThat(result.leaks().pages()).as("pages in use").isZero();
            assertThat(result.leaks().files()).as("partition files").isZero();
            assertThat(result.leaks().blobs()).as("blobs in the store").isZero();
        }
        try (Stream<Path> left = Files.walk(dir)) {
            assertThat(left.filter(Files::isRegularFile)).as("files after close").isEmpty();
        }
    }
}
