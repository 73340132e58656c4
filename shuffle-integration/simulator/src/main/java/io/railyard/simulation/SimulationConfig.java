package io.railyard.simulation;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.List;
import java.util.Map;

/**
 * What a {@link JobSimulator} run assumes about the cluster and the tasks. Immutable; build with
 * {@link #builder(int)}.
 *
 * @param slots the slots in the cluster, at least 1; a task holds one from its start to its end
 * @param slotsPerWorker slots per worker, in {@code [1, slots]} (for charts only: the model does
 *     not place tasks, so only the total counts)
 * @param work the work distribution of every job vertex not in {@code vertexWork}
 * @param vertexWork work distributions by job vertex name
 * @param skews hot subtasks, at most one entry per job vertex
 * @param taskOverhead work every task has on top of its sample, in {@code [0, 1e9]}: the fixed cost
 *     of a task (deployment, start-up) that does not shrink when the parallelism grows
 * @param failRate the probability that a task attempt fails, in {@code [0, 1]}; a failing attempt
 *     fails after a uniformly drawn fraction of its work has passed in its slot
 * @param maxRestarts restarts allowed before the job fails ({@code >= 1}); each is immediate
 * @param seed the seed of the work samples and the failures
 */
public record SimulationConfig(
        int slots,
        int slotsPerWorker,
        WorkDistribution work,
        Map<String, WorkDistribution> vertexWork,
        List<Skew> skews,
        double taskOverhead,
        double failRate,
        int maxRestarts,
        long seed) {
    /** The most slots a simulation takes (the simulator keeps a few bytes per slot). */
    public static final int MAX_SLOTS = 1 << 24;

    /** Checks the arguments and copies the collections. */
    public SimulationConfig {
        if (slots < 1 || slots > MAX_SLOTS) {
            throw new IllegalArgumentException(
                    "slots must be in [1, " + MAX_SLOTS + "], was " + slots);
        }
        if (slotsPerWorker < 1 || slotsPerWorker > slots) {
            throw new IllegalArgumentException(
                    "slots per worker must be in [1, " + slots + "], was " + slotsPerWorker);
        }
        if (!(taskOverhead >= 0 && taskOverhead <= WorkDistribution.MAX_WORK)) {
            throw new IllegalArgumentException(
                    "the task overhead must be in [0, 1e9], was " + taskOverhead);
        }
        if (!(failRate >= 0 && failRate <= 1)) {
            throw new IllegalArgumentException("the fail rate must be in [0, 1], was " + failRate);
        }
        if (maxRestarts < 1) {
            throw new IllegalArgumentException("max restarts must be >= 1, was " + maxRestarts);
        }
        vertexWork = ImmutableMap.copyOf(vertexWork);
        skews = ImmutableList.copyOf(skews);
        for (int i = 0; i < skews.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (skews.get(i).vertex().equals(skews.get(j).vertex())) {
                    throw new IllegalArgumentException(
                            "vertex '" + skews.get(i).vertex() + "' is skewed twice");
                }
            }
        }
    }

    /**
     * A builder: 1 slot per worker, constant work 1, no skew, no overhead, no failures, 1,000
     * restarts, seed 1.
     */
    public static Builder builder(int slots) {
        return new Builder(slots);
    }

    /** This configuration with {@code slots} slots (and at most that many per worker). */
    public SimulationConfig withSlots(int slots) {
        return new SimulationConfig(
                slots,
                Math.min(slotsPerWorker, slots),
                work,
                vertexWork,
                skews,
                taskOverhead,
                failRate,
                maxRestarts,
                seed);
    }

    /** The work distribution of the job vertex named {@code vertex}. */
    public WorkDistribution workOf(String vertex) {
        return vertexWork.getOrDefault(vertex, work);
    }

    /** Builds a {@link SimulationConfig}; not thread-safe. */
    public static final class Builder {
        private final int slots;
        private int slotsPerWorker = 1;
        private WorkDistribution work = new WorkDistribution.Constant(1);
        private final ImmutableMap.Builder<String, WorkDistribution> vertexWork =
                ImmutableMap.builder();
        private final ImmutableList.Builder<Skew> skews = ImmutableList.builder();
        private double taskOverhead;
        private double failRate;
        private int maxRestarts = 1000;
        private long seed = 1;

        private Builder(int slots) {
            this.slots = slots;
        }

        /** Slots per worker (charts only). */
        public Builder slotsPerWorker(int value) {
            this.slotsPerWorker = value;
            return this;
        }

        /** The work of every vertex without its own distribution. */
        public Builder work(WorkDistribution value) {
            this.work = value;
            return this;
        }

        /** The work of the job vertex named {@code vertex}. */
        public Builder work(String vertex, WorkDistribution value) {
            vertexWork.put(vertex, value);
            return this;
        }

        /** Adds hot subtasks. */
        public Builder skew(Skew value) {
            skews.add(value);
            return this;
        }

        /** Work every task has on top of its sample (not scaled by a parallelism sweep). */
        public Builder taskOverhead(double value) {
            this.taskOverhead = value;
            return this;
        }

        /** The probability that a task attempt fails. */
        public Builder failRate(double value) {
            this.failRate = value;
            return this;
        }

        /** Restarts allowed before the job fails. */
        public Builder maxRestarts(int value) {
            this.maxRestarts = value;
            return this;
        }

        /** The seed of work samples and failures. */
        public Builder seed(long value) {
            this.seed = value;
            return this;
        }

        /**
         * The configuration.
         *
         * @throws IllegalArgumentException if an argument is out of range (see the record)
         */
        public SimulationConfig build() {
            return new SimulationConfig(
                    slots,
                    slotsPerWorker,
                    work,
                    vertexWork.buildOrThrow(),
                    skews.build(),
                    taskOverhead,
                    failRate,
                    maxRestarts,
                    seed);
        }
    }
}
