package io.railyard.shuffle.partition;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.railyard.shuffle.AllocationMeter;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The producer's data-path promise ({@link PartitionWriter#emit}: no allocation), spills and frame
 * writes included, to subpartitions beyond the boxed-integer cache. With LZ4 it holds for the
 * native library only (the pure-Java fallback allocates a hash table per frame, as {@link
 * FrameCodec} says), so those cases are skipped without it. Measured in bytes, never in time.
 */
class PartitionWriterAllocationTest {
    // Enough for every subpartition file to have been written: the JDK allocates a channel's
    // interrupt handler at its first write (once per file, ~18 bytes, not per record).
    private static final int WARM_UP = 50_000;
    private static final int CALLS = 10_000;
    private static final int SUBPARTITIONS = 300;

    @TempDir Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"SORT, NONE", "SORT, LZ4", "HASH, NONE", "HASH, LZ4"})
    void emit_afterWarmUp_allocatesNothing(PartitionKind kind, Compression compression)
            throws Exception {
        assumeTrue(
                compression == Compression.NONE
                        || LZ4Factory.fastestInstance() != LZ4Factory.fastestJavaInstance(),
                "the native LZ4 library is not available here");
        ShuffleOptions options =
                ShuffleOptions.builder()
                        .pageSizeBytes(4096)
                        .totalPages(512)
                        .sortBufferPages(16)
                        .compression(compression)
                        .build();
        try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
            PartitionWriter writer =
                    kind == PartitionKind.SORT
                            ? ShuffleHarness.blocking(worker, PartitionKind.SORT, 0, SUBPARTITIONS)
                            : ShuffleHarness.blocking(worker, PartitionKind.HASH, 0, SUBPARTITIONS);
            byte[] bytes = new byte[100];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) (i % 5); // compressible: LZ4 stores frames compressed
            }
            ByteBuffer record = ByteBuffer.wrap(bytes);
            long allocated =
                    AllocationMeter.measureLeastOfThree(
                            WARM_UP, CALLS, i -> writer.emit(record.clear(), i % SUBPARTITIONS));
            AllocationMeter.assertBelowOneBytePerCall(
                    "PartitionWriter.emit " + kind + " " + compression, allocated, CALLS);
            writer.finish().release();
        }
    }
}
