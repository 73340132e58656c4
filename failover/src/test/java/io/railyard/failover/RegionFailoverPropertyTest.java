package io.railyard.failover;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.topology.JobGraph;
import io.railyard.topology.RandomJobGraphs;
import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link RegionFailover} against {@link RestartOracle} (the FLIP-1 rules over every task-level
 * connection and JGraphT's regions) on random job graphs (every pattern and type, P up to 64), for
 * random failed tasks and random partition availability, with one reused {@link RestartSet} per
 * graph so that stale contents would show.
 */
class RegionFailoverPropertyTest {

    static LongStream seeds() {
        return LongStream.range(7000, 7300);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void restartSets_equalTheOracle(long seed) {
        JobGraph graph = RandomJobGraphs.generate(seed);
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));
        RestartOracle oracle = new RestartOracle(graph);
        SplittableRandom random = new SplittableRandom(seed);
        BitSet available = new BitSet();
        PartitionAvailability availability =
                (from, to) -> Math.min(to, available.nextClearBit(from));
        RegionFailover failover = new RegionFailover(RegionInputs.of(regions), availability);
        RestartSet reused = new RestartSet();
        for (int round = 0; round < 12; round++) {
            randomize(available, graph.numPartitions(), round, random);
            int failed = random.nextInt(graph.numTasks());

            failover.tasksToRestart(failed, reused);

            int[] expected = oracle.tasksToRestart(failed, available::get);
            assertThat(reused.toTaskArray())
                    .as("round %s, failed %s", round, failed)
                    .containsExactly(expected);
            checkShape(reused, graph, regions);
            assertThat(failover.marksCleared()).as("round %s: marks left set", round).isTrue();
            int[] listed = reused.regions();
            for (int i = 0; i < listed.length; i++) {
                assertThat(reused.region(i))
                        .as("round %s, region %s", round, i)
                        .isEqualTo(listed[i]);
            }
        }
    }

    /** The seeds reach the run path: vertices whose subtasks are consecutive singleton regions. */
    @org.junit.jupiter.api.Test
    void seeds_exerciseSingletonRegionRuns() {
        long seedsWithRuns =
                seeds().filter(
                                seed -> {
                                    JobGraph graph = RandomJobGraphs.generate(seed);
                                    PipelinedRegions regions =
                                            PipelinedRegions.build(ExecutionTopology.of(graph));
                                    return IntStream.range(0, graph.numJobVertices())
                                            .anyMatch(
                                                    v ->
                                                            regions.singletonRegionBase(v) >= 0
                                                                    && graph.parallelism(v) > 1);
                                })
                        .count();

        assertThat(seedsWithRuns).isGreaterThan(30);
    }

    /** Round 0: all available; round 1: none; then a random share. */
    private static void randomize(BitSet available, int n, int round, SplittableRandom random) {
        available.clear();
        double share = round == 0 ? 1 : round == 1 ? 0 : random.nextDouble();
        for (int p = 0; p < n; p++) {
            if (random.nextDouble() < share) {
                available.set(p);
            }
        }
    }

    /** Ranges ascending, disjoint, maximal per vertex; regions ascending and exactly those hit. */
    private static void checkShape(RestartSet set, JobGraph graph, PipelinedRegions regions) {
        for (int i = 0; i < set.numRanges(); i++) {
            int start = set.rangeStart(i);
            int end = set.rangeEnd(i);
            assertThat(start).isLessThan(end);
            assertThat(graph.vertexOfTask(start)).isEqualTo(set.rangeVertex(i));
            assertThat(graph.vertexOfTask(end - 1)).isEqualTo(set.rangeVertex(i));
            if (i > 0) {
                assertThat(set.rangeEnd(i - 1)).isLessThanOrEqualTo(start);
                if (set.rangeEnd(i - 1) == start) {
                    assertThat(set.rangeVertex(i - 1)).isNotEqualTo(set.rangeVertex(i));
                }
            }
        }
        int[] tasks = set.toTaskArray();
        assertThat(set.numTasks()).isEqualTo(tasks.length);
        int[] expectedRegions =
                IntStream.of(tasks).map(regions::regionOf).distinct().sorted().toArray();
        assertThat(set.regions()).containsExactly(expectedRegions);
        for (int task : tasks) {
            assertThat(set.contains(task)).isTrue();
        }
        int[] iterated = new int[tasks.length];
        var iterator = set.taskIterator();
        for (int i = 0; i < tasks.length; i++) {
            iterated[i] = iterator.nextInt();
        }
        assertThat(iterator.hasNext()).isFalse();
        assertThat(iterated).containsExactly(tasks);
    }
}
