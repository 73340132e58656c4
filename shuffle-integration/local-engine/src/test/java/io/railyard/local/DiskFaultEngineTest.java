package io.railyard.local;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import io.railyard.worker.TaskCode;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Faults of a real {@code run} on the local engine: a disk that fills up while the job writes its
 * blocking partitions (an in-memory file system with a size limit), and failures that arrive while
 * an earlier failure's restart waits out a non-zero delay.
 */
class DiskFaultEngineTest {
    @TempDir Path dir;

    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(512).build();

    /**
     * 2 MiB of disk for a job writing about 6 MiB of partitions: every attempt of the sources fails
     * with the file system's "out of disk space", restarted after 20 ms each until the back-off
     * gives up. The job fails with that cause in its chain, and its partial files, pages and
     * partitions are all gone — the disk is as empty as before the job.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = PartitionKind.class,
            names = {"SORT", "HASH"})
    void aDiskThatFillsUp_failsTheJobWithItsCause_andLeavesNothing(PartitionKind blocking)
            throws Exception {
        JobGraph graph = twoByTwo();
        ForwardingJob job = ForwardingJob.of(graph, 25_000, 128, 11);
        try (FileSystem disk =
                Jimfs.newFileSystem(
                        Configuration.unix().toBuilder().setMaxSize(2L << 20).build())) {
            Path parent = Files.createDirectories(disk.getPath("/scratch"));
            try (LocalEngine engine = new LocalEngine(parent, 2, 2, OPTIONS, blocking)) {
                JobResult result =
                        engine.run(
                                graph,
                                job,
                                RestartBackoffPolicy.fixedDelay(2, Duration.ofMillis(20)),
                                Duration.ofMinutes(1));

                assertThat(result.outcome()).isInstanceOf(JobResult.Failed.class);
                assertThat(((JobResult.Failed) result.outcome()).cause())
                        .hasStackTraceContaining("out of disk space");
                assertThat(result.stats().restarts()).isEqualTo(2);
                assertThat(result.leaks().isClean()).as("%s", result.leaks()).isTrue();
            }
            try (Stream<Path> left = Files.walk(parent)) {
                assertThat(left.filter(Files::isRegularFile)).as("files after close").isEmpty();
            }
        }
    }

    /**
     * Sink#1 fails while the restart of sink#0's failure waits out its 300 ms delay: both decisions
     * are taken and run, each after its own delay, and the job ends exact.
     */
    @Test
    void aFailureWhileARestartWaits_isRestartedToo_andTheJobEndsExact() throws Exception {
        JobGraph graph = twoByTwo();
        ForwardingJob job = ForwardingJob.of(graph, 2_000, 32, 5);
        CountDownLatch firstFailed = new CountDownLatch(1);
        TaskCode.Factory code =
                (vertex, subtask, attempt) -> {
                    TaskCode real = job.create(vertex, subtask, attempt);
                    if (vertex != 1 || attempt != 0) {
                        return real;
                    }
                    return context -> {
                        if (subtask == 0) {
                            firstFailed.countDown();
                            throw new IllegalStateException("sink#0 fails first");
                        }
                        assertThat(firstFailed.await(30, TimeUnit.SECONDS)).isTrue();
                        Thread.sleep(50); // well inside sink#0's 300 ms restart delay
                        throw new IllegalStateException("sink#1 fails while it waits");
                    };
                };
        try (LocalEngine engine = new LocalEngine(dir, 2, 2, OPTIONS, PartitionKind.SORT)) {
            JobResult result =
                    engine.run(
                            graph,
                            code,
                            RestartBackoffPolicy.fixedDelay(5, Duration.ofMillis(300)),
                            Duration.ofMinutes(1));

            assertThat(result.outcome()).isEqualTo(JobResult.FINISHED);
            assertThat(result.committedTotal()).isEqualTo(job.expectedReceived()[1]);
            assertThat(result.stats().restarts()).isEqualTo(2);
            assertThat(result.leaks().isClean()).as("%s", result.leaks()).isTrue();
        }
    }

    /** source (2) → sink (2), ALL_TO_ALL, BLOCKING. */
    private static JobGraph twoByTwo() {
        return JobGraph.builder()
                .addVertex("source", 2)
                .addVertex("sink", 2)
                .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                .build();
    }
}
