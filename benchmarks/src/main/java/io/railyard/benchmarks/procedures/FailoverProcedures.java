package io.railyard.benchmarks.procedures;

import io.railyard.benchmarks.procedures.ReferenceJobs.Shape;
import io.railyard.failover.PartitionRelease;
import io.railyard.failover.PartitionTracker;
import io.railyard.failover.RegionFailover;
import io.railyard.failover.RestartSet;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.topology.JobGraph;

/**
 * The procedures "tasks to restart" and "partition release", shared by their JMH benchmarks, the
 * benchmarks' test twins and the scale report, so that all three measure the same work.
 */
public final class FailoverProcedures {
    private FailoverProcedures() {}

    /** Which task fails in which job shape. */
    public enum Failure {
        /** A source task of the blocking job: it and every sink restart (P + 1 tasks). */
        BLOCKING_SOURCE(Shape.BLOCKING, true),
        /** A sink task of the blocking job, its inputs available: it alone restarts. */
        BLOCKING_SINK(Shape.BLOCKING, false),
        /** Any task of the pipelined job: the one region, all 2P tasks, restarts. */
        PIPELINED_ANY(Shape.PIPELINED, true),
        /** A source task of the hybrid-full job: it and every sink restart. */
        HYBRID_FULL_SOURCE(Shape.HYBRID_FULL, true),
        /** A first-vertex task of the pointwise chain: its regions and their consumers restart. */
        POINTWISE_CHAIN_SOURCE(Shape.POINTWISE_CHAIN, true);

        private final Shape shape;
        private final boolean source;

        Failure(Shape shape, boolean source) {
            this.shape = shape;
            this.source = source;
        }

        /** The job shape. */
        public Shape shape() {
            return shape;
        }

        /** The failing task: the middle subtask of the first or of the last job vertex. */
        public int failedTask(JobGraph graph) {
            int v = source ? 0 : graph.numJobVertices() - 1;
            return graph.task(v, graph.parallelism(v) / 2);
        }
    }

    /**
     * The state of a job in which every task has finished once, so every re-consumable partition is
     * available, and a failover that answers into one reused {@link RestartSet}: after the first
     * call, a call allocates nothing.
     */
    public static final class Restart {
        private final RegionFailover failover;
        private final RestartSet result = new RestartSet();
        private final int failedTask;

        /** Prepares the failover for {@code failure} over {@code regions}. O(tasks + groups). */
        public Restart(PipelinedRegions regions, Failure failure) {
            JobGraph graph = regions.topology().jobGraph();
            PartitionTracker tracker = new PartitionTracker(graph);
            for (int p = 0; p < graph.numPartitions(); p++) {
                tracker.onPartitionFinished(p);
            }
            this.failover = new RegionFailover(RegionInputs.of(regions), tracker);
            this.failedTask = failure.failedTask(graph);
        }

        /** The measured step: computes the tasks to restart; returns how many. */
        public int tasksToRestart() {
            failover.tasksToRestart(failedTask, result);
            return result.numTasks();
        }

        /** The last answer. */
        public RestartSet result() {
            return result;
        }
    }

    /**
     * A job whose tasks have all finished except those of its last job vertex. {@link
     * #finishSinks()} is the measured step: the sinks finish one by one, their regions finish, and
     * the groups they read become releasable.
     */
    public static final class Release {
        private final PartitionRelease release;
        private final int firstSink;
        private final int endSink;
        private int releasedPartitions;

        /** Prepares the state over {@code regions}. O(tasks + groups). */
        public Release(PipelinedRegions regions) {
            JobGraph graph = regions.topology().jobGraph();
            this.release =
                    new PartitionRelease(regions, (from, to) -> releasedPartitions += to - from);
            int sinks = graph.numJobVertices() - 1;
            this.firstSink = graph.firstTask(sinks);
            this.endSink = firstSink + graph.parallelism(sinks);
            for (int task = 0; task < firstSink; task++) {
                release.onTaskFinished(task);
            }
        }

        /** Finishes every sink task; returns the partitions released since construction. */
        public int finishSinks() {
            for (int task = firstSink; task < endSink; task++) {
                release.onTaskFinished(task);
            }
            return releasedPartitions;
        }
    }
}
