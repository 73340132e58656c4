package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.partition.ShuffleHarness.Stream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The read path hands decoded buffers over in batches (ARCHITECTURE.md, "Read hand-offs"): what one
 * IO round decodes for a gate reaches the consumer in one hand-off, not one per buffer, and every
 * record still arrives, in order per channel.
 */
class ReadHandOffTest {
    private static final int PRODUCERS = 64;
    private static final int GATE_PAGES = 8;
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder()
                    .pageSizeBytes(4096)
                    .sortBufferPages(2)
                    .readBatchPages(4)
                    .gatePages(GATE_PAGES)
                    .compression(Compression.NONE)
                    .totalPages(64)
                    .build();

    @TempDir Path dir;

    /**
     * A gate of 64 channels, each one small section: its channels are served {@value #GATE_PAGES}
     * per round (one in service per gate page), so the consumer gets its 64 buffers in at most 64 /
     * 8 hand-offs, where handing over each buffer on its own would take 64.
     */
    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"SORT", "HASH"})
    void manySmallChannels_reachTheConsumerInOneHandOffPerRound(PartitionKind kind)
            throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            List<BlockingPartition> partitions = new ArrayList<>();
            List<Stream> streams = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                Stream stream = oneRecord(p);
                streams.add(stream);
                partitions.add(ShuffleHarness.write(worker, kind, p, 1, stream));
            }
            CountDownLatch release = ShuffleHarness.parkIoThread(worker);
            long before = worker.stats().handOffs();
            InputGate gate = worker.openGate("c", partitions, 0); // dispatches while parked
            release.countDown();
            try (gate) {
                List<List<byte[]>> read = ShuffleHarness.drain(gate);
                for (int p = 0; p < PRODUCERS; p++) {
                    ShuffleHarness.assertRecords(
                            read.get(p), streams.get(p).expected(0), "channel " + p);
                }
            }
            long handOffs = worker.stats().handOffs() - before;
            assertThat(handOffs)
                    .as("hand-offs for %d one-buffer channels", PRODUCERS)
                    .isPositive()
                    .isLessThanOrEqualTo(PRODUCERS / GATE_PAGES);
            for (BlockingPartition partition : partitions) {
                partition.release();
            }
        }
    }

    /**
     * A round's buffers for a gate whose channels are still in the IO thread's hands wait for the
     * next round instead of waking the consumer for a few kilobytes; the IO thread wakes it before
     * it idles. The test acts as the IO thread while that thread is parked.
     */
    @Test
    void wakeUp_waitsWhileMoreIsComing_andComesBeforeTheIoThreadIdles() throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            List<BlockingPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                partitions.add(
                        ShuffleHarness.write(worker, PartitionKind.SORT, p, 1, oneRecord(p)));
            }
            CountDownLatch release = ShuffleHarness.parkIoThread(worker);
            try (LocalInputGate gate = (LocalInputGate) worker.openGate("c", partitions, 0)) {
                try {
                    assertThat(gate.poll()).as("nothing read yet: it opens its sessions").isNull();
                    ChannelReader channel = partitions.get(0).readers.iterator().next();
                    LocalBuffer buffer = gate.tryTake(channel.index, 100);
                    assertThat(buffer).isNotNull();
                    gate.round().deliver(buffer);

                    assertThat(gate.publish(false)).as("handed over").isTrue();
                    assertThat(gate.availability())
                            .as("woken while %d channels are in service", GATE_PAGES)
                            .isNotDone();
                    gate.publish(true);
                    assertThat(gate.availability()).as("woken before the IO thread idles").isDone();
                    InputGate.Buffer polled = gate.poll();
                    assertThat(polled).isSameAs(buffer);
                    polled.recycle();
                } finally {
                    release.countDown();
                }
            }
            for (BlockingPartition partition : partitions) {
                partition.release();
            }
        }
    }

    private static Stream oneRecord(int producer) {
        byte[] record = new byte[100];
        for (int i = 0; i < record.length; i++) {
            record[i] = (byte) (producer * 31 + i);
        }
        return new Stream(new int[] {0}, new byte[][] {record});
    }
}
