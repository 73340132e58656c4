package io.railyard.deployment;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The resumable encoding gives {@link GroupDescriptors#encode}'s bytes whatever the step sizes:
 * every column kind, both codecs (deflated and stored), group sizes from 1 to 100,000 — past {@code
 * Envelope.SAMPLE_BYTES}, so that both outcomes of the deflate sample are stepped too.
 */
class GroupEncodingTest {

    /** source(p) -ALL_TO_ALL-> sink(2): group 0 holds the p source partitions. */
    private static ExecutionTopology group(int partitions) {
        return ExecutionTopology.of(
                JobGraph.builder()
                        .addVertex("source", partitions)
                        .addVertex("sink", 2)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .build());
    }

    /** A placement: random, skewed or round-robin workers, constant or scattered attempts. */
    private static StaticShuffleDescriptors placement(
            JobGraph graph, String kind, int workers, long seed) {
        StaticShuffleDescriptors shuffle =
                kind.startsWith("random")
                        ? StaticShuffleDescriptors.randomPlacement(graph, workers, seed)
                        : kind.startsWith("skewed")
                                ? StaticShuffleDescriptors.skewedPlacement(graph, workers, seed)
                                : new StaticShuffleDescriptors(graph, workers);
        if (kind.endsWith("attempts")) {
            SplittableRandom random = new SplittableRandom(seed);
            for (int task = 0; task < graph.numTasks(); task++) {
                shuffle.setProducerAttempt(task, random.nextInt(4) == 0 ? random.nextInt(9) : 0);
            }
        }
        return shuffle;
    }

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        int[] sizes = {1, 63, 64, 1_000, 20_000, 100_000};
        String[] kinds = {
            "random", "round-robin", "skewed", "random+attempts", "round-robin+attempts"
        };
        int[] workers = {1, 37, 5_000};
        long seed = 11;
        for (int size : sizes) {
            for (String kind : kinds) {
                for (int w : workers) {
                    cases.add(Arguments.of(size, kind, w, seed++));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} partitions, {1} over {2} workers")
    @MethodSource("cases")
    void steppedEncoding_anyStepSizes_givesTheOneShotBytes(
            int size, String kind, int workers, long seed) {
        ExecutionTopology topology = group(size);
        StaticShuffleDescriptors shuffle = placement(topology.jobGraph(), kind, workers, seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (boolean compress : new boolean[] {true, false}) {
            GroupDescriptors.Encoded oneShot =
                    GroupDescriptors.encode(topology, 0, shuffle, compress);
            for (int maxUnits : new int[] {1, 2, 17, 256, Integer.MAX_VALUE, -1}) {
                GroupEncoding encoding = new GroupEncoding(topology, 0, shuffle, compress);
                int steps = 0;
                while (!encoding.isStepped()) {
                    // -1: a random step size each step
                    int units = maxUnits > 0 ? maxUnits : 1 + random.nextInt(300);
                    int done = encoding.step(units);
                    assertThat(done).isBetween(1, units);
                    steps++;
                }
                GroupDescriptors.Encoded stepped = encoding.finish();
                assertThat(stepped.bytes())
                        .as(
                                "%s partitions, compress %s, %s units a step (%s steps)",
                                size, compress, maxUnits, steps)
                        .isEqualTo(oneShot.bytes());
                assertThat(stepped.rawPayloadBytes()).isEqualTo(oneShot.rawPayloadBytes());
                assertThat(stepped.descriptors()).isEqualTo(size);
                assertThat(encoding.finish()).isSameAs(stepped);
                encoding.discard();
            }
        }
    }

    /**
     * The cases above reach both codecs, all four column kinds, and payloads past the deflate
     * sample both deflated and not (else they prove less).
     */
    @Test
    void cases_coverBothCodecsEveryColumnKindAndBothSampleOutcomes() {
        boolean[] codecs = new boolean[2];
        boolean[] kinds = new boolean[4];
        boolean[] longPayloadCodecs = new boolean[2];
        cases().forEach(
                        arguments -> {
                            Object[] a = arguments.get();
                            ExecutionTopology topology = group((int) a[0]);
                            StaticShuffleDescriptors shuffle =
                                    placement(
                                            topology.jobGraph(),
                                            (String) a[1],
                                            (int) a[2],
                                            (long) a[3]);
                            byte[] bytes =
                                    GroupDescriptors.encode(topology, 0, shuffle, true).bytes();
                            codecs[bytes[3]] = true;
                            byte[] raw =
                                    GroupDescriptors.encode(topology, 0, shuffle, false).bytes();
                            if (raw.length > Envelope.SAMPLE_BYTES + 8) {
                                longPayloadCodecs[bytes[3]] = true;
                            }
                            GroupDescriptors decoded = GroupDescriptors.decode(raw);
                            kinds[columnKind(raw, decoded.size())] = true;
                        });
        assertThat(codecs).containsOnly(true);
        assertThat(kinds).containsOnly(true);
        assertThat(longPayloadCodecs).containsOnly(true);
    }

    /** The worker column's kind byte: after the frame header and three varints. */
    private static int columnKind(byte[] raw, int size) {
        int at = 4;
        for (int v = 0; v < 3; v++) {
            while ((raw[at] & 0x80) != 0) {
                at++;
            }
            at++;
        }
        return size == 0 ? 0 : raw[at];
    }

    @Test
    void units_countTheWork_valuesAndDeflatedBytes() {
        ExecutionTopology topology = group(1_600);
        StaticShuffleDescriptors shuffle =
                StaticShuffleDescriptors.randomPlacement(topology.jobGraph(), 300, 5L);
        GroupEncoding raw = new GroupEncoding(topology, 0, shuffle, false);
        long units = 0;
        while (!raw.isStepped()) {
            units += raw.step(1);
        }
        // 100 gather units per column and 100 write units for the workers; connection indexes
        // and attempts are constant (0), written in no unit.
        assertThat(units).isEqualTo(4 * 1_600 / GroupEncoding.VALUES_PER_UNIT);
        GroupEncoding compressed = new GroupEncoding(topology, 0, shuffle, true);
        long deflateUnits = -units;
        while (!compressed.isStepped()) {
            deflateUnits += compressed.step(1);
        }
        int payload = compressed.finish().rawPayloadBytes();
        assertThat(deflateUnits)
                .isEqualTo(
                        (payload + GroupEncoding.DEFLATE_BYTES_PER_UNIT - 1)
                                / GroupEncoding.DEFLATE_BYTES_PER_UNIT);
        // The framed body: the encoding less the header (4), the length varint (2) and the CRC (4).
        int body = compressed.finish().bytes().length - 10;
        assertThat(compressed.finishUnits())
                .isEqualTo(
                        (body + GroupEncoding.FINISH_BYTES_PER_UNIT - 1)
                                / GroupEncoding.FINISH_BYTES_PER_UNIT);
    }

    @Test
    void misuse_isRejected_namingTheGroup() {
        ExecutionTopology topology = group(100);
        StaticShuffleDescriptors shuffle = new StaticShuffleDescriptors(topology.jobGraph(), 3);
        GroupEncoding encoding = new GroupEncoding(topology, 0, shuffle, true);
        assertThatThrownBy(encoding::finish)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("group 0: steps remain before finish()");
        assertThatThrownBy(() -> encoding.step(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxUnits must be >= 1, was 0");
        while (!encoding.isStepped()) {
            encoding.step(Integer.MAX_VALUE);
        }
        assertThatThrownBy(() -> encoding.step(1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("group 0: every step is done, only finish() remains");
    }
}
