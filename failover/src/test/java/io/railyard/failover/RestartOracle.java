package io.railyard.failover;

import io.railyard.regions.RegionOracle;
import io.railyard.topology.JobGraph;
import io.railyard.topology.NaiveConnections;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * The region failover rules applied to every task-level connection of the expanded task graph, over
 * the regions of the independent {@link RegionOracle} (JGraphT on the same expanded graph), so that
 * nothing of the code under test — not even its {@code PipelinedRegions} — shapes the expected
 * answer: an oracle for {@link RegionFailover}. O(connections) per query; small graphs only.
 */
public final class RestartOracle {
    private final JobGraph graph;
    private final int[] regionOfTask; // the oracle's regions, numbered arbitrarily
    private final List<List<int[]>> inputsOfRegion = new ArrayList<>(); // {producer region, p}
    private final List<BitSet> consumersOfRegion = new ArrayList<>();

    /** The oracle of {@code graph}'s region failover; O(connections). */
    public RestartOracle(JobGraph graph) {
        this.graph = graph;
        this.regionOfTask = RegionOracle.regionOfTask(graph);
        int numRegions = 0;
        for (int region : regionOfTask) {
            numRegions = Math.max(numRegions, region + 1);
        }
        for (int r = 0; r < numRegions; r++) {
            inputsOfRegion.add(new ArrayList<>());
            consumersOfRegion.add(new BitSet());
        }
        NaiveConnections.forEach(
                graph,
                (edge, partition, consumer) -> {
                    int producerRegion =
                            regionOfTask[NaiveConnections.producerTask(graph, partition)];
                    int consumerRegion = regionOfTask[consumer];
                    inputsOfRegion.get(consumerRegion).add(new int[] {producerRegion, partition});
                    consumersOfRegion.get(producerRegion).set(consumerRegion);
                });
    }

    /**
     * The tasks to restart, ascending, when {@code failedTask} fails and the partitions {@code
     * available} accepts can be read again.
     */
    public int[] tasksToRestart(int failedTask, IntPredicate available) {
        BitSet restart = new BitSet();
        ArrayDeque<Integer> work = new ArrayDeque<>();
        int failedRegion = regionOfTask[failedTask];
        restart.set(failedRegion);
        work.add(failedRegion);
        while (!work.isEmpty()) {
            int region = work.poll();
            for (int[] input : inputsOfRegion.get(region)) {
                boolean readable =
                        graph.resultType(graph.dataSetOfPartition(input[1])).isReconsumable()
                                && available.test(input[1]);
                if (!readable && !restart.get(input[0])) {
                    restart.set(input[0]);
                    work.add(input[0]);
                }
            }
            BitSet consumers = consumersOfRegion.get(region);
            for (int c = consumers.nextSetBit(0); c >= 0; c = consumers.nextSetBit(c + 1)) {
                if (!restart.get(c)) {
                    restart.set(c);
                    work.add(c);
                }
            }
        }
        return java.util.stream.IntStream.range(0, graph.numTasks())
                .filter(task -> restart.get(regionOfTask[task]))
                .toArray();
    }
}
