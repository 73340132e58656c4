package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.format.CorruptPartitionFileException;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.FrameContext;
import io.railyard.shuffle.format.FrameHeader;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.topology.PartitionId;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A data server's walk of a blocking partition's file: runs of whole, checked frames that open to
 * exactly the records written, within the sender's budgets; the file outlives a release while a run
 * is in flight; a frame that breaks the format stops the walk, naming the file and offset.
 */
class SectionReaderTest {
    private static final int N = 3;
    private static final int PAGE = 1024;
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder()
                    .pageSizeBytes(PAGE)
                    .sortBufferPages(2)
                    .writeBatchPages(1)
                    .totalPages(64)
                    .build(); // LZ4: compressible records are stored compressed

    @TempDir Path dir;

    /** Record {@code i} of subpartition {@code s}: 10 to 209 bytes, compressible. */
    private static byte[] record(int s, int i) {
        byte[] record = new byte[10 + (i * 37 + s) % 200];
        for (int b = 0; b < record.length; b++) {
            record[b] = (byte) (s * 7 + b / 16);
        }
        return record;
    }

    private static BlockingPartition write(ShuffleWorker worker, PartitionKind kind)
            throws Exception {
        try (PartitionWriter writer = ShuffleHarness.blocking(worker, kind, 0, N)) {
            for (int i = 0; i < 600; i++) {
                for (int s = 0; s < N; s++) {
                    writer.emit(ByteBuffer.wrap(record(s, i)), s);
                }
            }
            return writer.finish();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"SORT", "HASH"})
    void runs_areWholeFrames_openingToTheRecordsWritten(PartitionKind kind) throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            BlockingPartition partition = write(worker, kind);
            if (kind == PartitionKind.SORT) {
                assertThat(partition.regionCount()).as("regions").isGreaterThan(1);
            }
            FrameCodec codec = new FrameCodec(OPTIONS);
            long frameBytes = 0;
            for (int s = 0; s < N; s++) {
                List<byte[]> read = new ArrayList<>();
                long stored = 0;
                long payload = 0;
                try (SectionReader reader = worker.openSections(partition, s)) {
                    long total = reader.bytesLeft();
                    ByteArrayOutputStream opened = new ByteArrayOutputStream();
                    while (reader.hasNext()) {
                        assertThat(reader.next(FrameHeader.BYTES, PAGE))
                                .as("a run no frame fits")
                                .isNull();
                        SectionReader.Run run = reader.next(2 * PAGE, PAGE);
                        assertThat(run).isNotNull();
                        assertThat(run.length()).isLessThanOrEqualTo(2 * PAGE);
                        assertThat(run.payloadBytes()).isLessThanOrEqualTo(PAGE);
                        opened.write(open(codec, run, partition.id()));
                        stored += run.length();
                        payload += run.payloadBytes();
                        run.sent();
                    }
                    assertThat(reader.isDone()).isTrue();
                    assertThat(reader.bytesLeft()).isZero();
                    assertThat(stored).as("bytes of the runs").isEqualTo(total);
                    assertThat(payload).isEqualTo(opened.size());
                    assertThat(stored).as("compressed on disk").isLessThan(payload);
                    new RecordDecoder(1)
                            .decode(
                                    0,
                                    ByteBuffer.wrap(opened.toByteArray()),
                                    (c, r) -> {
                                        byte[] copy = new byte[r.remaining()];
                                        r.get(copy);
                                        read.add(copy);
                                    });
                }
                assertThat(read).hasSize(600);
                for (int i = 0; i < 600; i++) {
                    assertThat(read.get(i)).as("record %s of %s", i, s).isEqualTo(record(s, i));
                }
                frameBytes += stored;
            }
            assertThat(frameBytes).isEqualTo(partition.frameBytes());
            assertThat(worker.stats().bytesRead()).as("counted as read").isEqualTo(frameBytes);
            partition.release();
        }
    }

    /** The frames of {@code run}, read from its file and opened: their payloads, in order. */
    private static byte[] open(FrameCodec codec, SectionReader.Run run, PartitionId id)
            throws Exception {
        ByteBuffer bytes = ByteBuffer.allocate(run.length());
        while (bytes.hasRemaining()) {
            run.channel().read(bytes, run.position() + bytes.position());
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        FrameHeader header = new FrameHeader();
        FrameContext at = new FrameContext();
        int frames = 0;
        for (int p = 0; p < run.length(); frames++) {
            header.wrap(bytes, p);
            at.at(id, "the run", run.position() + p);
            int length = codec.frameLength(header, at);
            ByteBuffer stored = bytes.duplicate();
            stored.limit(p + length).position(p + FrameHeader.BYTES);
            ByteBuffer payload = ByteBuffer.allocate(PAGE);
            codec.open(header, stored, payload, at);
            out.write(payload.array(), 0, payload.limit());
            p += length;
        }
        assertThat(frames).isEqualTo(run.frames());
        return out.toByteArray();
    }

    @Test
    void aRelease_waitsForTheRunsInFlight_beforeItClosesTheFile() throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            BlockingPartition partition = write(worker, PartitionKind.SORT);
            SectionReader reader = worker.openSections(partition, 1);
            assertThat(reader.hasNext()).isTrue();
            SectionReader.Run run = reader.next(PAGE, PAGE);
            assertThat(run).isNotNull();
            FileChannel file = run.channel();
            partition.release();
            assertThat(file.isOpen()).as("the file, while a run is in flight").isTrue();
            ByteBuffer first = ByteBuffer.allocate(FrameHeader.BYTES);
            assertThat(file.read(first, run.position())).isEqualTo(FrameHeader.BYTES);
            assertThatThrownBy(reader::hasNext)
                    .isInstanceOf(PartitionLostException.class)
                    .hasMessageContaining("released");
            reader.close();
            assertThat(file.isOpen()).as("the file, until the run is sent").isTrue();
            run.sent();
            assertThat(file.isOpen()).as("the file, once the run was sent").isFalse();
        }
    }

    @Test
    void aFrameOfAnotherLane_stopsTheWalk_namingTheFileAndOffset() throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            BlockingPartition partition = write(worker, PartitionKind.HASH);
            Path file = partition.dataFile(2);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.allocate(4).putInt(0, 1), 4); // lane 1, not 2
            }
            try (SectionReader reader = worker.openSections(partition, 2)) {
                assertThat(reader.hasNext()).isTrue();
                assertThatThrownBy(() -> reader.next(PAGE, PAGE))
                        .isInstanceOfSatisfying(
                                CorruptPartitionFileException.class,
                                e -> {
                                    assertThat(e.partitionId()).isEqualTo(partition.id());
                                    assertThat(e.file()).isEqualTo(file.toString());
                                    assertThat(e.offset()).isZero();
                                })
                        .hasMessageContaining("frame of lane 1 in a section of subpartition 2");
            }
            partition.release();
        }
    }

    @Test
    void aHybridPartition_isRefused_byName() throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            HybridPartitionWriter writer =
                    ShuffleHarness.hybrid(
                            worker, new PartitionId(0, 0), 1, PartitionKind.HYBRID_FULL);
            ResultPartition partition = writer.readablePartition().orElseThrow();
            assertThat(SectionReader.reads(partition)).isFalse();
            assertThatThrownBy(() -> worker.openSections(partition, 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'p0.a0' is not a finished blocking partition");
            writer.finish();
            partition.release();
        }
    }
}
