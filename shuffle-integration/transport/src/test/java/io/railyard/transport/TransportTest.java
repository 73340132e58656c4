package io.railyard.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.deployment.JobSecret;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.partition.HybridPartitionWriter;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Partitions read over TCP: exact records, credit, and each typed failure. */
class TransportTest {
    private static final int PAGE = TwoWorkers.OPTIONS.pageSizeBytes();

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"SORT", "HASH"})
    void blockingPartitions_readOverTcp_exactlyAsWritten(PartitionKind kind) throws Exception {
        try (TwoWorkers rig = new TwoWorkers(dir)) {
            List<PartitionId> ids = new ArrayList<>();
            for (int p = 0; p < 5; p++) {
                rig.write(kind, p, 3, 400);
                ids.add(new PartitionId(p, 0));
            }
            for (int s = 0; s < 3; s++) {
                try (InputGate gate = rig.open("c" + s, ids, s)) {
                    List<List<byte[]>> read = TwoWorkers.drain(gate);
                    for (int p = 0; p < 5; p++) {
                        assertThat(read.get(p))
                                .as("partition %s subpartition %s", p, s)
                                .containsExactlyElementsOf(TwoWorkers.records(p, s, 400));
                    }
                }
            }
            assertThat(rig.server.stats().bytesSent()).isPositive();
            DataServer.Stats stats = rig.server.stats();
            assertThat(stats.bytesSentFromFiles())
                    .as("bytes sent as file regions (all but sections' short tails)")
                    .isGreaterThan(stats.bytesSent() * 9 / 10);
            assertThat(rig.client.stats().connectionsMade()).as("one connection").isEqualTo(1);
            assertThat(rig.readerPages()).as("reader pages after every gate closed").isZero();
        }
    }

    /**
     * One gate whose channels read different subpartitions, of one partition and of others: what a
     * Flink consumer of a range of subpartitions opens. One stream per subpartition.
     */
    @Test
    void aGateOfSeveralSubpartitions_readsEachAsItsChannel() throws Exception {
        try (TwoWorkers rig = new TwoWorkers(dir)) {
            rig.write(PartitionKind.SORT, 0, 4, 300);
            rig.write(PartitionKind.SORT, 1, 4, 300);
            List<PartitionId> ids =
                    List.of(
                            new PartitionId(0, 0),
                            new PartitionId(0, 0),
                            new PartitionId(1, 0),
                            new PartitionId(1, 0));
            int[] subpartitions = {1, 2, 2, 3};
            List<java.net.InetSocketAddress> servers =
                    java.util.Collections.nCopies(4, rig.server.address());
            try (InputGate gate =
                    rig.client.openGate(
                            "ranges", servers, ids, subpartitions, TwoWorkers.JOB, rig.secret)) {
                List<List<byte[]>> read = TwoWorkers.drain(gate);
                for (int c = 0; c < 4; c++) {
                    assertThat(read.get(c))
                            .as("channel %s", c)
                            .containsExactlyElementsOf(
                                    TwoWorkers.records(
                                            ids.get(c).partition(), subpartitions[c], 300));
                }
            }
            assertThat(rig.server.stats().streams()).as("a stream per subpartition").isEqualTo(3);
            assertThat(rig.readerPages()).as("reader pages after the gate closed").isZero();
        }
    }

    /**
     * An address of no interface of this host (TEST-NET-3): the bind fails, and the server's event
     * loop and opener threads go with it — the leak detector fails the test otherwise (Netty
     * rethrows the bind's checked {@code BindException} unchecked, past a catch of runtime
     * exceptions, which left the loop running).
     */
    @Test
    void aServerThatCannotBind_failsNamingTheAddress_andLeavesNoThreadBehind() {
        TransportOptions options = TransportOptions.DEFAULT.withAddress("203.0.113.7", 0);

        assertThatThrownBy(() -> DataServer.start(options, 4096))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot start the data server on 203.0.113.7:0");
    }

    @Test
    void aConsumerThatDoesNotPoll_holdsNoMoreThanItsGatePages() throws Exception {
        try (TwoWorkers rig = new TwoWorkers(dir)) {
            rig.write(PartitionKind.SORT, 0, 1, 5_000);
            try (InputGate gate = rig.open("stalled", List.of(new PartitionId(0, 0)), 0)) {
                gate.availability().get(10, TimeUnit.SECONDS);
                Thread.sleep(300); // time to overrun its credit, if it could
                int pages = TwoWorkers.OPTIONS.gatePages();
                assertThat(gate.pagesInUse()).isLessThanOrEqualTo(pages);
                assertThat(rig.client.stats().bytesReceived())
                        .as("bytes received while the consumer polls nothing")
                        .isLessThanOrEqualTo((long) pages * TwoWorkers.OPTIONS.pageSizeBytes());
                assertThat(TwoWorkers.drain(gate).get(0))
                        .containsExactlyElementsOf(TwoWorkers.records(0, 0, 5_000));
            }
        }
    }

    /**
     * Credit goes only where data waits: a stream whose producer paused after a page must not hold
     * the gate's pages as credit while another stream has data queued (the gate would starve it for
     * good; with a pipelined producer that waits for this very consumer, the job deadlocks).
     */
    @Test
    void aPausedStream_holdsNoCreditThatABusyStreamNeeds() throws Exception {
        try (TwoWorkers rig = new TwoWorkers(dir);
                DataServer second = DataServer.start(TransportOptions.DEFAULT, PAGE)) {
            second.serve(TwoWorkers.JOB, rig.secret, rig.registry, rig.producer);
            PartitionId paused = new PartitionId(0, 0);
            HybridPartitionWriter pausing =
                    (HybridPartitionWriter)
                            rig.producer.createPartition(paused, 1, PartitionKind.HYBRID_SELECTIVE);
            List<byte[]> first = TwoWorkers.records(0, 0, 20);
            for (byte[] record : first) {
                pausing.emit(ByteBuffer.wrap(record), 0);
            }
            pausing.flush(); // readable now; the producer then pauses
            rig.registry.register(paused, pausing.readablePartition().orElseThrow(), () -> false);
            rig.write(PartitionKind.SORT, 1, 1, 5_000); // many times the gate's pages
            PartitionId busy = new PartitionId(1, 0);
            try (InputGate gate =
                    rig.client.openGate(
                            "c",
                            List.of(rig.server.address(), second.address()),
                            List.of(paused, busy),
                            0,
                            TwoWorkers.JOB,
                            rig.secret)) {
                List<List<byte[]>> read =
                        TwoWorkers.drainUntil(gate, got -> got.get(1).size() == 5_000);
                assertThat(read.get(1))
                        .as("the busy stream, read in full while the other one pauses")
                        .containsExactlyElementsOf(TwoWorkers.records(1, 0, 5_000));
                assertThat(read.get(0)).containsExactlyElementsOf(first);
                pausing.finish();
                assertThat(TwoWorkers.drain(gate).get(0)).isEmpty();
            }
            assertThat(rig.readerPages()).isZero();
        }
    }

    @Test
    void aReleasedPartition_isLost_withItsId() throws Exception {
        try (TwoWorkers rig = new TwoWorkers(dir)) {
            rig.write(PartitionKind.SORT, 0, 1, 10);
            rig.write(PartitionKind.SORT, 1, 1, 10);
            rig.registry.release(new PartitionId(1, 0));
            try (InputGate gate =
                    rig.open("c", List.of(new PartitionId(0, 0), new PartitionId(1, 0)), 0)) {
                assertThatThrownBy(() -> TwoWorkers.drain(gate))
                        .isInstanceOf(PartitionLostException.class)
                        .satisfies(
                                e ->
                                        assertThat(((PartitionLostException) e).partitionId())
                                                .isEqualTo(new PartitionId(1, 0)))
                        .hasMessageContaining("released");
            }
            assertThat(rig.readerPages()).isZero();
        }
    }

    @Test
    void aWrongSecret_isRefused_countedAndTyped() throws Exception {
        try (TwoWorkers rig = new TwoWorkers(dir)) {
            rig.write(PartitionKind.SORT, 0, 1, 10);
            try (InputGate gate =
                    rig.client.openGate(
                            "intruder",
                            List.of(rig.server.address()),
                            List.of(new PartitionId(0, 0)),
                            0,
                            TwoWorkers.JOB,
                            JobSecret.random())) {
                assertThatThrownBy(() -> TwoWorkers.drain(gate))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("refused")
                        .hasMessageContaining("wrong proof");
            }
            assertThat(rig.server.stats().refused()).isEqualTo(1);
            assertThat(rig.server.stats().streams()).as("streams opened").isZero();
        }
    }

    @Test
    void anUnreachableWorker_isALostPartition_afterBoundedRetries() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
        TransportOptions options = TransportOptions.DEFAULT.withRetries(3, Duration.ofMillis(20));
        try (TwoWorkers rig = new TwoWorkers(dir, options)) {
            long start = System.nanoTime();
            try (InputGate gate =
                    rig.client.openGate(
                            "c",
                            List.of(
                                    new InetSocketAddress(
                                            InetAddress.getLoopbackAddress(), closedPort)),
                            List.of(new PartitionId(4, 1)),
                            0,
                            TwoWorkers.JOB,
                            rig.secret)) {
                assertThatThrownBy(() -> TwoWorkers.drain(gate))
                        .isInstanceOf(PartitionLostException.class)
                        .hasMessageContaining("cannot be reached after 3 attempts");
            }
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(10));
        }
    }

    @Test
    void aWorkerThatComesUpDuringTheRetries_isReached() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        TransportOptions options = TransportOptions.DEFAULT.withRetries(8, Duration.ofMillis(100));
        try (TwoWorkers rig = new TwoWorkers(dir, options)) {
            rig.write(PartitionKind.SORT, 0, 1, 100);
            try (InputGate gate =
                    rig.client.openGate(
                            "c",
                            List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)),
                            List.of(new PartitionId(0, 0)),
                            0,
                            TwoWorkers.JOB,
                            rig.secret)) {
                Thread.sleep(250); // the first attempts are refused
                try (DataServer late =
                        DataServer.start(
                                options.withAddress("127.0.0.1", port),
                                TwoWorkers.OPTIONS.pageSizeBytes())) {
                    late.serve(TwoWorkers.JOB, rig.secret, rig.registry, rig.producer);
                    assertThat(TwoWorkers.drain(gate).get(0))
                            .containsExactlyElementsOf(TwoWorkers.records(0, 0, 100));
                }
            }
        }
    }

    @Test
    void aSilentPeer_isFoundByTheHeartbeatTimeout() throws Exception {
        TransportOptions options =
                TransportOptions.DEFAULT.withHeartbeats(
                        Duration.ofMillis(100), Duration.ofMillis(500));
        try (ServerSocket silent = new ServerSocket(0);
                TwoWorkers rig = new TwoWorkers(dir, options)) {
            try (InputGate gate =
                    rig.client.openGate(
                            "c",
                            List.of(
                                    new InetSocketAddress(
                                            InetAddress.getLoopbackAddress(),
                                            silent.getLocalPort())),
                            List.of(new PartitionId(0, 0)),
                            0,
                            TwoWorkers.JOB,
                            rig.secret)) {
                try (Socket accepted = silent.accept()) {
                    assertThat(accepted.isConnected()).as("accepted, then silent").isTrue();
                    assertThatThrownBy(() -> TwoWorkers.drain(gate))
                            .isInstanceOf(PartitionLostException.class)
                            .hasMessageContaining("lost");
                }
            }
        }
    }

    @Test
    void aServerThatCloses_failsItsReaders_asALostWorker() throws Exception {
        try (TwoWorkers rig = new TwoWorkers(dir)) {
            rig.write(PartitionKind.SORT, 0, 1, 5_000);
            try (InputGate gate = rig.open("c", List.of(new PartitionId(0, 0)), 0)) {
                gate.availability().get(10, TimeUnit.SECONDS);
                rig.server.close();
                assertThatThrownBy(() -> TwoWorkers.drain(gate))
                        .isInstanceOf(PartitionLostException.class)
                        .hasMessageContaining("lost");
            }
            assertThat(rig.readerPages()).isZero();
        }
    }

    @Test
    void aCancelledReader_freesWhatTheServerHeldForIt() throws Exception {
        try (TwoWorkers rig = new TwoWorkers(dir)) {
            rig.write(PartitionKind.SORT, 0, 1, 5_000);
            int writerPages = rig.producer.bufferPool().pagesInUse();
            InputGate gate = rig.open("c", List.of(new PartitionId(0, 0)), 0);
            gate.availability().get(10, TimeUnit.SECONDS);
            assertThat(rig.server.stats().openStreams()).isEqualTo(1);
            gate.close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((rig.server.stats().openStreams() > 0
                            || rig.producer.bufferPool().pagesInUse() > writerPages)
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(rig.server.stats().openStreams()).isZero();
            assertThat(rig.producer.bufferPool().pagesInUse()).isEqualTo(writerPages);
            assertThat(rig.readerPages()).isZero();
        }
    }
}
