package io.railyard.benchmarks.procedures;

import io.railyard.simulation.JobSimulator;
import io.railyard.simulation.ShuffleMode;
import io.railyard.simulation.SimulationConfig;
import io.railyard.simulation.Skew;
import io.railyard.simulation.WorkDistribution;
import io.railyard.topology.JobGraph;
import org.openjdk.jol.info.GraphLayout;

/**
 * The jobs the simulator is measured on ({@code simulate}, issue 15): the reference job and a
 * 4-stage job, with log-normal work (mean 10, sigma 0.5), as many slots as the parallelism, and in
 * the 4-stage job one subtask of {@code b} with 34 times the mean work.
 */
public final class SimulatedJobs {
    private SimulatedJobs() {}

    /** The two shapes. */
    public enum Shape {
        /** {@code source -> sink}, ALL_TO_ALL: P^2 connections, 2P tasks. */
        REFERENCE,
        /**
         * {@code a -> b} ALL_TO_ALL, {@code b -> c} POINTWISE, {@code c -> d} ALL_TO_ALL: 4P tasks.
         */
        FOUR_STAGE;

        /** This shape at parallelism {@code parallelism}, every edge of type {@code mode}. */
        public JobGraph job(int parallelism, ShuffleMode mode) {
            JobGraph graph =
                    switch (this) {
                        case REFERENCE -> ReferenceJobs.reference(parallelism);
                        case FOUR_STAGE -> fourStage(parallelism);
                    };
            return mode.apply(graph);
        }

        /** The simulation settings of this shape at parallelism {@code parallelism}. */
        public SimulationConfig config(int parallelism) {
            SimulationConfig.Builder builder =
                    SimulationConfig.builder(parallelism)
                            .work(new WorkDistribution.LogNormal(10, 0.5));
            if (this == FOUR_STAGE) {
                builder.skew(new Skew("b", 1, 34));
            }
            return builder.build();
        }
    }

    /** {@link ReferenceJobs#fourStage(int)}. */
    public static JobGraph fourStage(int p) {
        return ReferenceJobs.fourStage(p);
    }

    /**
     * The bytes a simulator of {@code shape} at {@code parallelism} retains after its run (JOL: its
     * topology, regions, scheduler, failover, per-task and per-group columns and the trace of every
     * attempt), and before it, as {@code {before, after}}.
     */
    public static long[] retainedBytes(Shape shape, int parallelism, ShuffleMode mode) {
        JobSimulator simulator =
                JobSimulator.of(shape.job(parallelism, mode), shape.config(parallelism));
        long before = GraphLayout.parseInstance(simulator).totalSize();
        simulator.run();
        return new long[] {before, GraphLayout.parseInstance(simulator).totalSize()};
    }
}
