package io.railyard.shuffle.partition;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.partition.ShuffleHarness.Stream;
import io.railyard.shuffle.partition.ShuffleHarness.Totals;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One hybrid partition read at once by gates of two workers, each served by its own IO thread,
 * while the producer writes (what the local engine does when a consumer runs on another worker than
 * its producer): every reader gets exactly its records. Reading a resident region once moved the
 * position of its shared page buffers, so two IO threads corrupted each other's frames.
 */
class HybridManyWorkersTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder()
                    .pageSizeBytes(4096)
                    .totalPages(256)
                    .compression(Compression.NONE)
                    .build();
    private static final int SUBPARTITIONS = 4;

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"HYBRID_FULL", "HYBRID_SELECTIVE", "PIPELINED"})
    void gatesOfTwoWorkers_readOnePartitionAtOnce_exactly(PartitionKind mode) throws Exception {
        for (int round = 0; round < 10; round++) {
            try (ShuffleWorker a = new ShuffleWorker(OPTIONS, dir.resolve("a" + round));
                    ShuffleWorker b = new ShuffleWorker(OPTIONS, dir.resolve("b" + round))) {
                Stream stream =
                        ShuffleHarness.randomStream(
                                new SplittableRandom(round), SUBPARTITIONS, 3_000, 4096);
                HybridPartitionWriter writer =
                        ShuffleHarness.hybrid(a, ShuffleHarness.id(0), SUBPARTITIONS, mode);
                List<InputGate> gates = new ArrayList<>();
                List<CompletableFuture<List<List<byte[]>>>> reads = new ArrayList<>();
                for (int s = 0; s < SUBPARTITIONS; s++) {
                    ShuffleWorker reader = s % 2 == 0 ? a : b;
                    InputGate gate = reader.openGate("c" + s, List.of(writer.partition()), s);
                    gates.add(gate);
                    reads.add(
                            CompletableFuture.supplyAsync(
                                    () -> {
                                        try {
                                            return ShuffleHarness.drain(gate);
                                        } catch (Exception e) {
                                            throw new IllegalStateException(e);
                                        }
                                    }));
                }
                ResultPartition partition =
                        ShuffleHarness.writeAll(writer, stream, 20, new Totals(SUBPARTITIONS));
                for (int s = 0; s < SUBPARTITIONS; s++) {
                    ShuffleHarness.assertRecords(
                            reads.get(s).get(60, TimeUnit.SECONDS).get(0),
                            stream.expected(s),
                            "round " + round + ", subpartition " + s);
                    gates.get(s).close();
                }
                partition.release();
            }
        }
    }
}
