package io.railyard.regions.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.TaskRangeCursor;
import io.railyard.topology.JobGraph;
import io.railyard.topology.NaiveConnections;
import io.railyard.topology.RandomJobGraphs;
import io.railyard.topology.ResultPartitionType;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scheduling strategy driven by random task completions and restarts on random job graphs,
 * checked against a model that applies the consumption rules to every task-level connection.
 */
class RegionSchedulingPropertyTest {
    private static final RandomJobGraphs.Shape SMALL = new RandomJobGraphs.Shape(10, 24);

    static LongStream seeds() {
        return LongStream.range(5000, 5200);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomRuns_areSafeEagerAndComplete(long seed) {
        new Run(RandomJobGraphs.generate(seed, SMALL), new Random(seed), true).execute();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomRunsOnLargerGraphs_areSafeAndComplete(long seed) {
        new Run(RandomJobGraphs.generate(seed + 1000), new Random(seed), false).execute();
    }

    @Test
    void randomGraphs_exerciseGroupsPartlyProducedInsideTheirConsumerRegion() {
        int graphsWithCrossGroups = 0;
        for (long seed = 5000; seed < 5200; seed++) {
            PipelinedRegions regions =
                    PipelinedRegions.build(ExecutionTopology.of(RandomJobGraphs.generate(seed)));
            graphsWithCrossGroups += RegionInputs.of(regions).numCrossEntries() > 0 ? 1 : 0;
        }
        assertThat(graphsWithCrossGroups).isPositive();
    }

    /** An input connection of a region: its producer task and whether it is hybrid. */
    private record Input(int producerTask, boolean hybrid) {}

    /** One randomized run: the strategy, a model of what has happened, and the checks. */
    private static final class Run {
        private static final int MAX_RESTARTS = 4;

        private final JobGraph graph;
        private final Random random;
        private final boolean checkEagerness;
        private final PipelinedRegions regions;
        private final TestingRegionDeployer deployer = new TestingRegionDeployer();
        private final RegionSchedulingStrategy strategy;
        private final List<List<Input>> inputsOfRegion = new ArrayList<>();
        private final List<IntArrayList> consumerRegionsOf = new ArrayList<>();
        private final BitSet deployed = new BitSet();
        private final BitSet finished = new BitSet();
        private final int[] attempts;
        private final int[] deploys;
        private final IntArrayList running = new IntArrayList();

        Run(JobGraph graph, Random random, boolean checkEagerness) {
            this.graph = graph;
            this.random = random;
            this.checkEagerness = checkEagerness;
            this.regions = PipelinedRegions.build(ExecutionTopology.of(graph));
            this.strategy = new RegionSchedulingStrategy(RegionInputs.of(regions), deployer);
            this.attempts = new int[regions.numRegions()];
            this.deploys = new int[regions.numRegions()];
            for (int r = 0; r < regions.numRegions(); r++) {
                inputsOfRegion.add(new ArrayList<>());
                consumerRegionsOf.add(new IntArrayList());
            }
            NaiveConnections.forEach(graph, this::addConnection);
            deployer.setOnDeploy(this::checkDeploy);
        }

        private void addConnection(int e, int p, int consumer) {
            ResultPartitionType type = graph.edgeResultType(e);
            int producer = NaiveConnections.producerTask(graph, p);
            int from = regions.regionOf(producer);
            int to = regions.regionOf(consumer);
            if (!type.mustBePipelinedConsumed() && from != to) {
                inputsOfRegion.get(to).add(new Input(producer, type.isHybrid()));
                consumerRegionsOf.get(from).add(to);
            }
        }

        void execute() {
            strategy.startScheduling();
            afterEvent();
            int restarts = 0;
            while (!running.isEmpty()) {
                if (restarts < MAX_RESTARTS && random.nextInt(10) == 0) {
                    restart(randomDeployedRegion());
                    restarts++;
                } else {
                    int index = random.nextInt(running.size());
                    int task = running.getInt(index);
                    running.set(index, running.getInt(running.size() - 1));
                    running.removeInt(running.size() - 1);
                    finished.set(task);
                    strategy.onTaskFinished(task);
                }
                afterEvent();
            }
            for (int r = 0; r < regions.numRegions(); r++) {
                assertThat(deployed.get(r)).as("region %s is deployed at the end", r).isTrue();
                assertThat(deploys[r]).as("deploys of region %s", r).isEqualTo(attempts[r] + 1);
            }
            assertThat(finished.cardinality()).isEqualTo(graph.numTasks());
        }

        private boolean consumable(Input input) {
            return input.hybrid()
                    ? deployed.get(regions.regionOf(input.producerTask()))
                    : finished.get(input.producerTask());
        }

        private void checkDeploy(int region) {
            assertThat(deployed.get(region)).as("region %s deployed twice", region).isFalse();
            for (Input input : inputsOfRegion.get(region)) {
                assertThat(consumable(input))
                        .as("region %s deployed before its input %s", region, input)
                        .isTrue();
            }
            deployed.set(region);
            deploys[region]++;
            TaskRangeCursor cursor = regions.newTaskRangeCursor();
            for (cursor.reset(region); cursor.next(); ) {
                for (int task = cursor.start(); task < cursor.end(); task++) {
                    running.add(task);
                }
            }
        }

        private void afterEvent() {
            assertThat(deployer.takeDeployed()).as("topological order").isSorted();
            if (!checkEagerness) {
                return;
            }
            for (int r = 0; r < regions.numRegions(); r++) {
                if (!deployed.get(r)) {
                    boolean ready = inputsOfRegion.get(r).stream().allMatch(this::consumable);
                    assertThat(ready).as("region %s is schedulable but waits", r).isFalse();
                }
            }
        }

        /** A deployed region, running or finished, so that consumed outputs get re-armed too. */
        private int randomDeployedRegion() {
            int[] candidates = deployed.stream().toArray();
            return candidates[random.nextInt(candidates.length)];
        }

        /** Restarts region {@code failed} and everything downstream of it. */
        private void restart(int failed) {
            BitSet restart = new BitSet();
            ArrayDeque<Integer> queue = new ArrayDeque<>();
            queue.add(failed);
            while (!queue.isEmpty()) {
                int r = queue.poll();
                if (!restart.get(r)) {
                    restart.set(r);
                    consumerRegionsOf.get(r).forEach(queue::add);
                }
            }
            for (int r = restart.nextSetBit(0); r >= 0; r = restart.nextSetBit(r + 1)) {
                if (deployed.get(r)) {
                    attempts[r]++;
                    deployed.clear(r);
                }
            }
            running.removeIf(t -> restart.get(regions.regionOf(t)));
            for (int t = 0; t < graph.numTasks(); t++) {
                if (restart.get(regions.regionOf(t))) {
                    finished.clear(t);
                }
            }
            strategy.restartRegions(restart.stream().toArray());
        }
    }
}
