package io.railyard.local;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import io.railyard.transport.OpenResources;
import io.railyard.transport.TransportOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every test of {@link LocalEngineTest}, with every read — of a worker's own partitions too — over
 * TCP through the workers' data servers on loopback ({@code run --transport tcp}); and what only
 * that mode has: the bytes really cross the network stack, and a lost worker's server and sockets
 * really close.
 */
class LocalEngineOverTcpTest extends LocalEngineTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(512).build();

    @Override
    LocalEngine engine(
            Path parent, int workers, int slots, ShuffleOptions options, PartitionKind blocking)
            throws IOException {
        return new LocalEngine(parent, workers, slots, options, blocking, TransportOptions.DEFAULT);
    }

    @Override
    boolean readsAreRepeatable() {
        return false;
    }

    private static JobGraph twoVertices(ResultPartitionType type) {
        return JobGraph.builder()
                .addVertex("source", 4)
                .addVertex("sink", 4)
                .connect("source", "sink", ALL_TO_ALL, type)
                .build();
    }

    @Test
    void everyByteBetweenTasks_crossesTheNetwork() throws Exception {
        JobGraph graph = twoVertices(ResultPartitionType.BLOCKING);
        ForwardingJob job = ForwardingJob.of(graph, 2_000, 64, 3);
        long recordBytes = 4L * 2_000 * 64;
        try (LocalEngine engine = engine(dir, 2, 4, OPTIONS, PartitionKind.SORT)) {
            JobResult result =
                    engine.run(
                            graph, job, RestartBackoffPolicy.noRestart(), Duration.ofSeconds(60));
            assertThat(result.outcome()).isEqualTo(JobResult.FINISHED);
            assertThat(result.committed().get(1)).isEqualTo(job.expectedReceived()[1]);
            long[] network = engine.networkBytes();
            assertThat(network[0])
                    .as("bytes sent by data servers")
                    .isGreaterThanOrEqualTo(recordBytes);
            assertThat(network[1])
                    .as(
                            "of them, bytes not copied: all sent from files (no blocking partition"
                                    + " goes through a reading gate)")
                    .isEqualTo(network[2]);
            assertThat(network[2]).as("sent as file regions").isPositive();
        }
        try (LocalEngine engine = new LocalEngine(dir, 2, 4, OPTIONS, PartitionKind.SORT)) {
            engine.run(graph, job, RestartBackoffPolicy.noRestart(), Duration.ofSeconds(60));
            assertThat(engine.networkBytes()[0]).as("in-process: nothing on the network").isZero();
            assertThat(engine.dataAddress(0)).isNull();
        }
    }

    /**
     * A remote gate with as few pages as the streams it reads (one stream per worker): each
     * stream's page fills and, until the next page of the stream arrived, stayed attached to the
     * stream — so a full, read page was never recycled, no credit was left for the next page, and
     * the job hung (issue 34's property test drew more gate pages than workers to avoid it).
     */
    @ParameterizedTest(name = "{0} workers, gates of {1} pages")
    @CsvSource({"1, 1", "3, 2", "3, 1"})
    void gatesWithNoMorePagesThanStreams_readEverything(int workers, int gatePages)
            throws Exception {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("source", 5)
                        .addVertex("sink", 5)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.PIPELINED)
                        .build();
        ForwardingJob job = ForwardingJob.of(graph, 3_000, 48, 11);
        ShuffleOptions options = OPTIONS.toBuilder().gatePages(gatePages).build();
        try (LocalEngine engine = engine(dir, workers, 10, options, PartitionKind.SORT)) {
            JobResult result =
                    engine.run(
                            graph, job, RestartBackoffPolicy.noRestart(), Duration.ofSeconds(60));

            assertThat(result.outcome()).as("%s", result.outcome()).isEqualTo(JobResult.FINISHED);
            assertThat(result.committed().get(1)).isEqualTo(job.expectedReceived()[1]);
        }
    }

    @Test
    void aLostWorker_closesItsServerForReal_andComesBackOnANewPort() throws Exception {
        JobGraph graph = twoVertices(ResultPartitionType.BLOCKING);
        ForwardingJob job = ForwardingJob.of(graph, 2_000, 64, 17);
        try (LocalEngine engine = engine(dir, 2, 4, OPTIONS, PartitionKind.SORT)) {
            InetSocketAddress before = engine.dataAddress(0);
            assertThat(before).isNotNull();
            JobResult result =
                    engine.run(
                            graph,
                            losingWorker0(engine, job),
                            RestartBackoffPolicy.fixedDelay(5, Duration.ZERO),
                            Duration.ofSeconds(60));
            assertThat(result.outcome()).isEqualTo(JobResult.FINISHED);
            assertThat(result.committed().get(1)).isEqualTo(job.expectedReceived()[1]);
            assertThat(result.stats().restarts()).isPositive();
            InetSocketAddress after = engine.dataAddress(0);
            assertThat(after).isNotNull().isNotEqualTo(before);
            assertThatThrownBy(() -> new Socket(before.getAddress(), before.getPort()).close())
                    .as("the lost worker's old port")
                    .isInstanceOf(IOException.class);
        }
        assertThat(OpenResources.connections()).as("connections after close").isZero();
    }
}
