package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions.Compression;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random single-threaded interleavings of a hybrid partition's producer, readers, IO thread and
 * pool, against an independent model (Reliability invariant 1; rows 19, 23, 24, 29, 34).
 *
 * <p>Steps: produce (records of 0 B to several pages, skewed to one subpartition, broadcast), seal
 * ({@code flush}), attach a reader, let a reader take k frames, make a reader slow, fail a reader,
 * ask for pages back (as the pool's revocation listener does, or by a competing pool owner whose
 * guarantee leaves pages short), run the IO thread's queue, finish; in full mode the IO thread and
 * readers also run in the middle of write-throughs. After every step: the partition's and the
 * pool's invariants; the writer owner's pages are its working pages plus the resident ones; every
 * record a reader took is the next one its subpartition's producer wrote (nothing twice, out of
 * order or to the wrong subpartition); a reader that waits has taken every record sealed so far;
 * reader positions never go back; the counters add up with the frames the readers took and the
 * bytes of the files; in full mode the data file holds every sealed record; in selective mode no
 * frame reaches disk twice and no spilled frame was already consumed. At the end every reader reads
 * to the end and gets exactly its subpartition's records, a selective second attach fails with
 * "partition lost", a full re-attach re-reads from the first record, and release returns every page
 * and deletes both files. Some runs release early, with readers attached and the writer open (row
 * 23).
 */
class HybridModelTest {
    static Stream<Arguments> cases() {
        Stream.Builder<Arguments> cases = Stream.builder();
        IntStream.range(0, 40)
                .forEach(
                        seed -> {
                            // PIPELINED is SELECTIVE plus waiting for consumers, which one thread
                            // cannot drive (PipelinedPartitionTest does).
                            for (PartitionKind mode :
                                    List.of(
                                            PartitionKind.HYBRID_FULL,
                                            PartitionKind.HYBRID_SELECTIVE)) {
                                for (Compression compression : Compression.values()) {
                                    cases.add(Arguments.of(seed, mode, compression, true));
                                    cases.add(Arguments.of(seed, mode, compression, false));
                                }
                            }
                        });
        return cases.build();
    }

    @TempDir static Path root;

    @AfterAll
    static void printCoverage() {
        System.out.println("HybridModelTest covered: " + HybridModel.COVERED);
    }

    @ParameterizedTest(name = "seed {0} {1} {2} minimum budget {3}")
    @MethodSource("cases")
    void randomSteps_deliverEveryRecordExactlyOnce(
            int seed, PartitionKind mode, Compression compression, boolean minimum)
            throws Exception {
        String name = "seed " + seed + " " + mode + " " + compression + " minimum " + minimum;
        long mixed =
                seed * 1_000_003L
                        + (mode == PartitionKind.HYBRID_FULL ? 101 : 0)
                        + (compression == Compression.LZ4 ? 7 : 0)
                        + (minimum ? 1 : 0);
        Path dir = Files.createDirectory(root.resolve(name.replace(' ', '-')));
        HybridModel model =
                new HybridModel(new SplittableRandom(mixed), mode, compression, minimum, dir);
        try {
            model.run();
        } catch (Throwable failure) {
            throw new AssertionError(
                    "HybridModelTest " + name + " failed; " + model.describe(), failure);
        } finally {
            model.closeFiles();
            model.rig.close();
        }
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).as("files left by %s", name).isEmpty();
        }
        Files.delete(dir);
    }
}
