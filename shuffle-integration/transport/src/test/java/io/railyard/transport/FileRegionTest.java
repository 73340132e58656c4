package io.railyard.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.topology.PartitionId;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Finished blocking partitions go out as file regions: the frames as they lie on disk (compressed
 * as stored), opened by the reader into exact records; every byte counted as sent from a file; a
 * frame the reader finds corrupt, or the server finds malformed, and a release mid-stream are the
 * partition's loss, with its id.
 */
class FileRegionTest {
    private static final int PARTITIONS = 4;
    private static final int SUBPARTITIONS = 3;

    @TempDir Path dir;

    /** Records of {@code p}, subpartition {@code s}: 2,000 of 1 to 300 bytes, compressible. */
    private static List<byte[]> compressible(int p, int s) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            byte[] record = new byte[1 + (i * 131 + p * 7 + s) % 300];
            for (int b = 0; b < record.length; b++) {
                record[b] = (byte) (p + s + b / 32);
            }
            out.add(record);
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"SORT", "HASH"})
    void blockingPartitions_goOutAsTheirFramesOnDisk_andOpenToExactRecords(PartitionKind kind)
            throws Exception {
        try (TwoWorkers rig = new TwoWorkers(dir)) { // LZ4, 4 KiB pages
            List<PartitionId> ids = new ArrayList<>();
            long recordBytes = 0;
            for (int p = 0; p < PARTITIONS; p++) {
                int partition = p;
                rig.write(kind, p, SUBPARTITIONS, s -> compressible(partition, s));
                ids.add(new PartitionId(p, 0));
                for (int s = 0; s < SUBPARTITIONS; s++) {
                    recordBytes += compressible(p, s).stream().mapToLong(r -> r.length).sum();
                }
            }
            for (int s = 0; s < SUBPARTITIONS; s++) {
                try (InputGate gate = rig.open("c" + s, ids, s)) {
                    List<List<byte[]>> read = TwoWorkers.drain(gate);
                    for (int p = 0; p < PARTITIONS; p++) {
                        assertThat(read.get(p))
                                .as("partition %s subpartition %s", p, s)
                                .containsExactlyElementsOf(compressible(p, s));
                    }
                }
            }
            DataServer.Stats stats = rig.server.stats();
            assertThat(stats.bytesSentFromFiles())
                    .as("bytes sent as file regions: all but each section's last page or less")
                    .isGreaterThan(stats.bytesSent() * 3 / 4);
            assertThat(rig.client.stats().bytesReceived())
                    .as("bytes on the wire: compressed, as on disk")
                    .isLessThan(recordBytes / 2);
            assertThat(rig.readerPages()).as("reader pages after every gate closed").isZero();
        }
    }

    /**
     * Sections shorter than a page are read into the piece instead (one read each), and the
     * sections of many channels leave in one piece.
     */
    @Test
    void shortSections_areReadIntoPieces_manyChannelsAPiece() throws Exception {
        try (TwoWorkers rig = new TwoWorkers(dir)) {
            List<PartitionId> ids = new ArrayList<>();
            for (int p = 0; p < 40; p++) {
                int partition = p;
                rig.write(PartitionKind.HASH, p, 1, s -> compressible(partition, s).subList(0, 3));
                ids.add(new PartitionId(p, 0));
            }
            try (InputGate gate = rig.open("c", ids, 0)) {
                List<List<byte[]>> read = TwoWorkers.drain(gate);
                for (int p = 0; p < 40; p++) {
                    assertThat(read.get(p))
                            .containsExactlyElementsOf(compressible(p, 0).subList(0, 3));
                }
            }
            DataServer.Stats stats = rig.server.stats();
            assertThat(stats.bytesSent()).isPositive();
            assertThat(stats.bytesSentFromFiles()).isZero();
            assertThat(stats.dataFrames()).as("pieces for 40 sections").isLessThanOrEqualTo(10);
        }
    }

    @Test
    void withFileRegionsOff_theSameRecordsGoThroughAReadingGate() throws Exception {
        try (TwoWorkers rig =
                new TwoWorkers(dir, TransportOptions.DEFAULT.withFileRegions(false))) {
            rig.write(PartitionKind.SORT, 0, 1, s -> compressible(0, s));
            try (InputGate gate = rig.open("c", List.of(new PartitionId(0, 0)), 0)) {
                assertThat(TwoWorkers.drain(gate).get(0))
                        .containsExactlyElementsOf(compressible(0, 0));
            }
            assertThat(rig.server.stats().bytesSent()).isPositive();
            assertThat(rig.server.stats().bytesSentFromFiles()).isZero();
        }
    }

    @Test
    void aPayloadCorruptOnDisk_isFoundByTheReader_asThePartitionsLoss() throws Exception {
        try (TwoWorkers rig = new TwoWorkers(dir)) {
            rig.write(PartitionKind.SORT, 0, 1, s -> compressible(0, s));
            ResultPartition bad = rig.write(PartitionKind.HASH, 1, 1, s -> compressible(1, s));
            flipByte(bad.files().get(0), 40); // in the first frame's payload
            List<PartitionId> ids = List.of(new PartitionId(0, 0), new PartitionId(1, 0));
            try (InputGate gate = rig.open("c", ids, 0)) {
                assertThatThrownBy(() -> TwoWorkers.drain(gate))
                        .isInstanceOfSatisfying(
                                PartitionLostException.class,
                                e -> assertThat(e.partitionId()).isEqualTo(new PartitionId(1, 0)))
                        .hasMessageContaining("checksum mismatch")
                        .hasMessageContaining("at worker " + rig.server.address());
            }
            assertThat(rig.readerPages()).isZero();
        }
    }

    @Test
    void aFrameHeaderCorruptOnDisk_isFoundByTheServer_asThePartitionsLoss() throws Exception {
        try (TwoWorkers rig = new TwoWorkers(dir)) {
            ResultPartition bad = rig.write(PartitionKind.HASH, 0, 1, s -> compressible(0, s));
            flipByte(bad.files().get(0), 0); // the first frame's magic
            try (InputGate gate = rig.open("c", List.of(new PartitionId(0, 0)), 0)) {
                assertThatThrownBy(() -> TwoWorkers.drain(gate))
                        .isInstanceOfSatisfying(
                                PartitionLostException.class,
                                e -> assertThat(e.partitionId()).isEqualTo(new PartitionId(0, 0)))
                        .hasMessageContaining("bad frame magic");
            }
        }
    }

    @Test
    void aReleaseMidStream_isThePartitionsLoss() throws Exception {
        try (TwoWorkers rig = new TwoWorkers(dir)) {
            ResultPartition partition = rig.write(PartitionKind.SORT, 0, 1, 5_000); // ~10 MB
            try (InputGate gate = rig.open("c", List.of(new PartitionId(0, 0)), 0)) {
                gate.availability().get(10, TimeUnit.SECONDS);
                InputGate.Buffer first = gate.poll();
                assertThat(first).isNotNull();
                first.recycle();
                partition.release();
                assertThatThrownBy(() -> TwoWorkers.drain(gate))
                        .isInstanceOfSatisfying(
                                PartitionLostException.class,
                                e -> assertThat(e.partitionId()).isEqualTo(new PartitionId(0, 0)))
                        .hasMessageContaining("released");
            }
            assertThat(rig.readerPages()).isZero();
        }
    }

    private static void flipByte(Path file, long offset) throws Exception {
        try (FileChannel channel =
                FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, offset);
            one.put(0, (byte) (one.get(0) ^ 0x5A));
            channel.write(one.flip(), offset);
        }
    }
}
