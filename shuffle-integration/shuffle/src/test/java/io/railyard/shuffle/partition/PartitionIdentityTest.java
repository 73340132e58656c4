package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.partition.ShuffleHarness.Stream;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A partition created for a scheduler's {@link PartitionId} is named after it, and every way of
 * losing it — file deleted, file corrupt, released — reaches the consumer as a {@link
 * PartitionLostException} carrying that id, so a task failure names the lost partition without
 * parsing a message.
 */
class PartitionIdentityTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder()
                    .pageSizeBytes(512)
                    .totalPages(256)
                    .sortBufferPages(4)
                    .compression(Compression.NONE)
                    .build();
    private static final PartitionId ID = new PartitionId(41, 3);

    @TempDir Path dir;

    enum Loss {
        DELETED,
        CORRUPT,
        RELEASED
    }

    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"SORT", "HASH"})
    void blockingPartition_lostInAnyWay_failsTheReaderWithItsId(PartitionKind kind)
            throws Exception {
        for (Loss loss : Loss.values()) {
            try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
                Stream stream = ShuffleHarness.randomStream(new SplittableRandom(7), 2, 300, 512);
                BlockingPartition partition =
                        ShuffleHarness.write(
                                (PartitionWriter) worker.createPartition(ID, 2, kind), stream);
                assertThat(partition.id()).isEqualTo(ID);
                assertThat(partition.name()).isEqualTo("p41.a3");
                CountDownLatch resume = ShuffleHarness.parkIoThread(worker);
                InputGate opened;
                try {
                    opened = worker.openGate("c", List.of(partition), 1);
                    lose(partition, loss); // after the gate opened, before the IO thread reads
                } finally {
                    resume.countDown();
                }

                try (InputGate gate = opened) {
                    assertThatThrownBy(() -> ShuffleHarness.drain(gate))
                            .as("%s %s", kind, loss)
                            .isInstanceOfSatisfying(
                                    PartitionLostException.class,
                                    e -> assertThat(e.partitionId()).isEqualTo(ID));
                }
                partition.release();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"HYBRID_FULL", "HYBRID_SELECTIVE", "PIPELINED"})
    void hybridPartition_released_failsTheReaderWithItsId(PartitionKind mode) throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            HybridPartitionWriter writer = ShuffleHarness.hybrid(worker, ID, 2, mode);
            HybridPartition partition = writer.partition();
            try (InputGate gate = worker.openGate("c", List.of(partition), 0)) {
                partition.release();
                assertThatThrownBy(() -> ShuffleHarness.drain(gate))
                        .isInstanceOfSatisfying(
                                PartitionLostException.class,
                                e -> assertThat(e.partitionId()).isEqualTo(ID));
            } finally {
                writer.close();
            }
        }
    }

    private static void lose(BlockingPartition partition, Loss loss) throws IOException {
        switch (loss) {
            case DELETED -> {
                for (Path file : partition.files()) {
                    Files.delete(file);
                }
            }
            case CORRUPT -> {
                for (Path file : partition.files()) {
                    try (RandomAccessFile raw = new RandomAccessFile(file.toFile(), "rw")) {
                        long at = raw.length() - 10; // the last frame's payload
                        raw.seek(at);
                        int b = raw.read();
                        raw.seek(at);
                        raw.write(b ^ 1);
                    }
                }
            }
            case RELEASED -> partition.release();
        }
    }
}
