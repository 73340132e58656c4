package io.railyard.local;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.deployment.OffloadOptions;
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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reliability row 15 for real: the engine offloads every group to its file blob store, and just
 * before the first sink is deployed every stored blob is damaged — a byte flipped, or the file
 * deleted. The sinks that read it fail (the store deletes a corrupt blob on its first read), the
 * JobManager drops the groups cached under that key, and their restarts offload them again: the job
 * ends exact, and no blob, file or page is left. Without the drop, every restart named the deleted
 * blob again until the back-off gave up.
 */
class BadBlobEngineTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(512).build();
    private static final OffloadOptions OFFLOAD_EVERY_GROUP = new OffloadOptions(true, 1, 1, true);

    @TempDir Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"corrupt", "missing"})
    void aGroupBlobAWorkerFindsBad_isOffloadedAgain_andTheJobEndsExact(String damage)
            throws Exception {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 4)
                        .addVertex("sink", 4)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .build();
        ForwardingJob job = ForwardingJob.of(graph, 2_000, 64, 13);
        AtomicBoolean damaged = new AtomicBoolean();
        try (LocalEngine engine = new LocalEngine(dir, 2, 4, OPTIONS, PartitionKind.SORT)) {
            Path blobs = engine.blobStore().root().resolve("blobs");
            TaskCode.Factory code =
                    (vertex, subtask, attempt) -> {
                        // Runs as the worker takes the descriptor, before it reads the blob.
                        if (vertex == 1 && damaged.compareAndSet(false, true)) {
                            assertThat(damage(blobs, damage)).as("blobs damaged").isPositive();
                        }
                        return job.create(vertex, subtask, attempt);
                    };

            JobResult result =
                    engine.run(
                            graph,
                            code,
                            RestartBackoffPolicy.fixedDelay(10, Duration.ofMillis(1)),
                            Duration.ofMinutes(1),
                            OFFLOAD_EVERY_GROUP);

            assertThat(result.outcome()).isEqualTo(JobResult.FINISHED);
            assertThat(result.committedTotal()).isEqualTo(job.expectedReceived()[1]);
            assertThat(result.stats().restarts()).as("the sinks that read it").isPositive();
            assertThat(result.leaks().isClean()).as("%s", result.leaks()).isTrue();
            assertThat(blobFiles(blobs)).as("blobs after the job").isEmpty();
        }
    }

    /** Flips a byte of, or deletes, every stored blob; how many. */
    private static int damage(Path blobs, String how) {
        List<Path> files = blobFiles(blobs);
        for (Path file : files) {
            try {
                if (how.equals("missing")) {
                    Files.delete(file);
                } else {
                    byte[] bytes = Files.readAllBytes(file);
                    bytes[bytes.length / 2] ^= 0x10;
                    Files.write(file, bytes);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files.size();
    }

    private static List<Path> blobFiles(Path blobs) {
        try (Stream<Path> walk = Files.walk(blobs)) {
            return walk.filter(Files::isRegularFile).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
