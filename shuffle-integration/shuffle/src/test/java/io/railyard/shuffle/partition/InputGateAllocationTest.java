package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.AllocationMeter;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The consumer's data-path promise: polling a queued buffer and recycling it allocate nothing (the
 * page goes back to the pool through {@link io.railyard.shuffle.buffer.BufferOwner#recycle} when
 * its last slice is recycled). Measured in bytes on the consumer thread once the IO thread has
 * queued every buffer, so nothing else runs meanwhile; never in time.
 */
class InputGateAllocationTest {
    private static final int WARM_UP = 2_000;
    private static final int CALLS = 10_000;
    private static final int FRAMES = WARM_UP + CALLS + 100;

    @TempDir Path dir;

    @Test
    void pollAndRecycle_queuedBuffers_allocateNothing() throws Exception {
        ShuffleOptions options =
                ShuffleOptions.builder()
                        .pageSizeBytes(256) // 256 one-byte buffers per page: ~40 pages recycled
                        .totalPages(512)
                        .sortBufferPages(4)
                        .gatePages(64)
                        .compression(Compression.NONE)
                        .build();
        try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
            BlockingPartition partition = tinyFrames(worker);
            try (InputGate gate = worker.openGate("consumer", List.of(partition), 0)) {
                awaitEverythingQueued(worker, partition);
                long bytes =
                        AllocationMeter.measure(
                                WARM_UP,
                                CALLS,
                                i -> {
                                    InputGate.Buffer buffer = gate.poll();
                                    if (buffer == null) {
                                        throw new AssertionError("no buffer at call " + i);
                                    }
                                    buffer.recycle();
                                });
                AllocationMeter.assertBelowOneBytePerCall(
                        "InputGate.poll+Buffer.recycle", bytes, CALLS);
                assertThat(ShuffleHarness.drain(gate).get(0)).hasSize(FRAMES - WARM_UP - CALLS);
            }
            partition.release();
        }
    }

    /**
     * A sort partition of one subpartition whose every frame holds one empty record: alternating
     * broadcast and unicast records end a region each, and a region's lane is one frame.
     */
    private static BlockingPartition tinyFrames(ShuffleWorker worker) throws Exception {
        try (PartitionWriter writer = ShuffleHarness.blocking(worker, PartitionKind.SORT, 0, 1)) {
            for (int i = 0; i < FRAMES; i++) {
                if (i % 2 == 0) {
                    writer.broadcast(ByteBuffer.allocate(0));
                } else {
                    writer.emit(ByteBuffer.allocate(0), 0);
                }
            }
            return writer.finish();
        }
    }

    /** Waits until the IO thread read every frame of the file and finished the channel. */
    private static void awaitEverythingQueued(ShuffleWorker worker, BlockingPartition partition)
            throws InterruptedException {
        for (int i = 0; i < 30_000; i++) {
            ShuffleWorker.ShuffleStats stats = worker.stats();
            if (stats.bytesRead() == partition.frameBytes() && stats.filesOpenForRead() == 0) {
                return;
            }
            Thread.sleep(1);
        }
        throw new AssertionError("the IO thread did not queue the partition: " + worker.stats());
    }
}
