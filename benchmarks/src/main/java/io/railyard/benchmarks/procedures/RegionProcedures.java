package io.railyard.benchmarks.procedures;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.TaskRangeCursor;
import io.railyard.regions.scheduling.RegionDeployer;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import it.unimi.dsi.fastutil.ints.IntArrayList;

/**
 * The procedures "build regions", "init scheduling" and "schedule downstream", shared by their JMH
 * benchmarks, the benchmarks' test twins and the scale report, so that all three measure the same
 * work.
 */
public final class RegionProcedures {
    private RegionProcedures() {}

    /** Builds the pipelined regions of {@code topology}. */
    public static PipelinedRegions buildRegions(ExecutionTopology topology) {
        return PipelinedRegions.build(topology);
    }

    /**
     * Initialises the scheduling strategy: classifies the groups that gate regions and sets up
     * every counter, as Flink's strategy does in its constructor. Nothing is deployed yet.
     */
    public static RegionSchedulingStrategy initScheduling(
            PipelinedRegions regions, RegionDeployer deployer) {
        return new RegionSchedulingStrategy(RegionInputs.of(regions), deployer);
    }

    /** A deployer that only counts what it is asked to deploy. */
    public static final class CountingDeployer implements RegionDeployer {
        private int regions;

        @Override
        public void deploy(int region) {
            regions++;
        }

        /** Regions deployed so far. */
        public int deployedRegions() {
            return regions;
        }
    }

    /**
     * A batch job just before its last source task finishes: the strategy has started and every
     * task deployed at start has finished except one. {@link #finishLastSource()} is the measured
     * step: the consumers of the sources become schedulable and are deployed.
     */
    public static final class Downstream {
        private final RegionSchedulingStrategy strategy;
        private final CountingDeployer deployer = new CountingDeployer();
        private final int lastSource;
        private final int deployedAtStart;

        /** Prepares the state over {@code regions}. O(tasks). */
        public Downstream(PipelinedRegions regions) {
            this.strategy = initScheduling(regions, deployer);
            strategy.startScheduling();
            this.deployedAtStart = deployer.deployedRegions();
            IntArrayList sources = new IntArrayList();
            TaskRangeCursor cursor = regions.newTaskRangeCursor();
            for (int r = 0; r < regions.numRegions(); r++) {
                if (strategy.isScheduled(r)) {
                    for (cursor.reset(r); cursor.next(); ) {
                        for (int task = cursor.start(); task < cursor.end(); task++) {
                            sources.add(task);
                        }
                    }
                }
            }
            this.lastSource = sources.getInt(sources.size() - 1);
            for (int i = 0; i < sources.size() - 1; i++) {
                strategy.onTaskFinished(sources.getInt(i));
            }
        }

        /** Finishes the last source task; returns the regions deployed since the start. */
        public int finishLastSource() {
            strategy.onTaskFinished(lastSource);
            return deployer.deployedRegions() - deployedAtStart;
        }
    }
}
