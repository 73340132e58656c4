package io.railyard.failover;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.RegionOracle;
import io.railyard.topology.JobGraph;
import io.railyard.topology.NaiveConnections;
import io.railyard.topology.RandomJobGraphs;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PartitionRelease} on random job graphs, tasks finishing in random order and the regions of
 * random tasks restarting, against a model over every task-level connection and the regions of the
 * independent {@link RegionOracle}: after every event, the partitions released (and not re-armed
 * since) are exactly those whose every consumer task's region has finished, each released once.
 */
class PartitionReleasePropertyTest {

    static LongStream seeds() {
        return LongStream.range(9000, 9300);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void releases_areSafeEagerAndExactlyOnce(long seed) {
        new Run(RandomJobGraphs.generate(seed), new SplittableRandom(seed)).execute();
    }

    private static final class Run {
        private final JobGraph graph;
        private final PipelinedRegions regions;
        private final int[] oracleRegionOf; // per task: its region under RegionOracle
        private final int numOracleRegions;
        private final SplittableRandom random;
        private final List<List<Integer>> consumerTasks = new ArrayList<>(); // per partition
        private final BitSet finished = new BitSet();
        private final BitSet released = new BitSet();
        private final PartitionRelease release;
        private @Nullable BitSet finishedRegions; // cache, valid for finishedRegionsOf
        private int finishedRegionsOf;
        private int version; // bumped whenever the finished tasks change

        Run(JobGraph graph, SplittableRandom random) {
            this.graph = graph;
            this.regions = PipelinedRegions.build(ExecutionTopology.of(graph));
            this.oracleRegionOf = RegionOracle.regionOfTask(graph);
            this.numOracleRegions = IntStream.of(oracleRegionOf).max().orElse(-1) + 1;
            this.random = random;
            for (int p = 0; p < graph.numPartitions(); p++) {
                consumerTasks.add(new ArrayList<>());
            }
            NaiveConnections.forEach(
                    graph,
                    (edge, partition, consumer) -> consumerTasks.get(partition).add(consumer));
            this.release = new PartitionRelease(regions, this::onRelease);
        }

        private void onRelease(int from, int to) {
            assertThat(from).isLessThan(to);
            assertThat(graph.dataSetOfPartition(from)).isEqualTo(graph.dataSetOfPartition(to - 1));
            for (int p = from; p < to; p++) {
                assertThat(released.get(p)).as("partition %s released twice", p).isFalse();
                assertThat(releasable(p)).as("partition %s released too early", p).isTrue();
                released.set(p);
            }
        }

        void execute() {
            int restarts = 0;
            while (finished.cardinality() < graph.numTasks()) {
                if (restarts < 6 && random.nextInt(8) == 0) {
                    restartRegionOf(random.nextInt(graph.numTasks()));
                    restarts++;
                } else {
                    finishRandomUnfinishedTask();
                }
                check();
            }
        }

        private void finishRandomUnfinishedTask() {
            int task = finished.nextClearBit(random.nextInt(graph.numTasks()));
            if (task >= graph.numTasks()) {
                task = finished.nextClearBit(0);
            }
            finished.set(task);
            version++;
            release.onTaskFinished(task);
            if (random.nextInt(10) == 0) {
                release.onTaskFinished(task); // a duplicate event changes nothing
            }
        }

        /** Restarts the region of {@code failed}: the oracle's in the model, the SUT's in it. */
        private void restartRegionOf(int failed) {
            for (int task = 0; task < graph.numTasks(); task++) {
                if (oracleRegionOf[task] == oracleRegionOf[failed]) {
                    finished.clear(task);
                }
            }
            version++;
            int region = regions.regionOf(failed);
            release.onRegionsRestarted(region, region);
            for (int p = released.nextSetBit(0); p >= 0; p = released.nextSetBit(p + 1)) {
                if (!releasable(p)) {
                    released.clear(p); // re-armed: it will be released again later
                }
            }
        }

        private void check() {
            for (int p = 0; p < graph.numPartitions(); p++) {
                assertThat(released.get(p))
                        .as("partition %s released (releasable: %s)", p, releasable(p))
                        .isEqualTo(releasable(p));
            }
        }

        private boolean releasable(int p) {
            int d = graph.dataSetOfPartition(p);
            if (!graph.resultType(d).isReleasedByScheduler() || consumerTasks.get(p).isEmpty()) {
                return false;
            }
            for (int consumer : consumerTasks.get(p)) {
                if (!regionFinished(oracleRegionOf[consumer])) {
                    return false;
                }
            }
            return true;
        }

        private boolean regionFinished(int region) {
            if (finishedRegions == null || finishedRegionsOf != version) {
                finishedRegions = new BitSet();
                finishedRegions.set(0, numOracleRegions);
                for (int task = finished.nextClearBit(0);
                        task < graph.numTasks();
                        task = finished.nextClearBit(task + 1)) {
                    finishedRegions.clear(oracleRegionOf[task]);
                }
                finishedRegionsOf = version;
            }
            return finishedRegions.get(region);
        }
    }
}
