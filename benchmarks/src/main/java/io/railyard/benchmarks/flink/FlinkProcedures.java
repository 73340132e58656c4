package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.BuildTopology;
import io.railyard.benchmarks.procedures.FailoverProcedures;
import io.railyard.benchmarks.procedures.FailoverProcedures.Failure;
import io.railyard.benchmarks.procedures.IdleJobMaster;
import io.railyard.benchmarks.procedures.RegionProcedures;
import io.railyard.topology.JobGraph;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
import org.apache.flink.runtime.executiongraph.ExecutionVertex;
import org.apache.flink.runtime.executiongraph.failover.RestartPipelinedRegionFailoverStrategy;
import org.apache.flink.runtime.executiongraph.failover.partitionrelease.RegionPartitionGroupReleaseStrategy;
import org.apache.flink.runtime.scheduler.SchedulerOperations;
import org.apache.flink.runtime.scheduler.adapter.DefaultExecutionTopology;
import org.apache.flink.runtime.scheduler.strategy.ConsumedPartitionGroup;
import org.apache.flink.runtime.scheduler.strategy.ExecutionVertexID;
import org.apache.flink.runtime.scheduler.strategy.PipelinedRegionSchedulingStrategy;
import org.apache.flink.runtime.scheduler.strategy.SchedulingPipelinedRegion;
import org.apache.flink.runtime.scheduler.strategy.SchedulingTopology;
import org.jspecify.annotations.Nullable;

/**
 * The Flink side of the side-by-side benchmarks: for a Railyard job translated by {@link FlinkJobs}
 * (same vertices, parallelism, patterns and result types), flink-runtime 2.3 doing the work of each
 * Railyard procedure in {@link BuildTopology}, {@link RegionProcedures} and {@link
 * FailoverProcedures} ({@link FlinkDeployment} for "deploy all"). Each method or fixture says which
 * Flink code it runs; the states are built as Flink's own scheduler benchmarks build theirs
 * (org.apache.flink.runtime.scheduler.benchmark), but for any job graph, not only their fixed
 * two-vertex jobs.
 *
 * <p>Flink's graphs need a scheduled executor (their future and IO executor). The caller owns it
 * and shuts it down; one single-thread executor serves any number of graphs, as in Flink's
 * benchmarks. Nothing here is thread-safe: like Flink's scheduler, every call runs on one thread.
 */
public final class FlinkProcedures {
    private FlinkProcedures() {}

    /**
     * Flink's state after job initialization.
     *
     * @param graph the execution graph, with its scheduling topology and pipelined regions
     * @param strategy the region scheduling strategy over it, not started
     */
    public record InitializedGraph(
            DefaultExecutionGraph graph, PipelinedRegionSchedulingStrategy strategy) {}

    /**
     * Flink's job initialization, the twin of Railyard's {@link IdleJobMaster}: builds and
     * initialises the execution graph ({@code DefaultExecutionGraphBuilder}: execution job
     * vertices, execution vertices and their executions, result partitions, consumed partition and
     * consumer vertex groups in the {@code EdgeManager}, the {@code DefaultExecutionTopology} with
     * its logical and execution pipelined regions, the {@code RegionPartitionGroupReleaseStrategy}
     * and the {@code TaskDeploymentDescriptorFactory} with the serialized job information), then
     * constructs the {@code PipelinedRegionSchedulingStrategy} over it. O(tasks + partitions +
     * groups), one object or more per task and per partition.
     */
    public static InitializedGraph initialize(
            FlinkJobs.Translation job, ScheduledExecutorService executor) throws Exception {
        DefaultExecutionGraph graph = FlinkJobs.executionGraph(job, executor);
        PipelinedRegionSchedulingStrategy strategy =
                initScheduling(graph.getSchedulingTopology(), new CountingOperations());
        return new InitializedGraph(graph, strategy);
    }

    /**
     * Flink's region building, the twin of {@link RegionProcedures#buildRegions}: {@code
     * DefaultExecutionTopology.fromExecutionGraph}, which computes the logical pipelined regions of
     * the job graph and then the execution-level regions. Flink cannot compute regions without
     * building the scheduling topology's adapter objects (one per task and per partition), so those
     * are included; Railyard's twin starts from a built {@code ExecutionTopology}.
     */
    public static DefaultExecutionTopology buildRegions(DefaultExecutionGraph graph) {
        return DefaultExecutionTopology.fromExecutionGraph(graph);
    }

    /** The number of pipelined regions of {@code topology}. O(regions). */
    public static int numRegions(SchedulingTopology topology) {
        int regions = 0;
        for (SchedulingPipelinedRegion ignored : topology.getAllPipelinedRegions()) {
            regions++;
        }
        return regions;
    }

    /**
     * Flink's strategy initialisation, the twin of {@link RegionProcedures#initScheduling}: the
     * {@code PipelinedRegionSchedulingStrategy} constructor, which finds the consumed partition
     * groups produced partly inside their consumer's region, maps every blocking consumed partition
     * group to its consumer regions and every region to the groups it produces, and lists each
     * region's tasks in topological order. Nothing is scheduled.
     */
    public static PipelinedRegionSchedulingStrategy initScheduling(
            SchedulingTopology topology, SchedulerOperations operations) {
        return new PipelinedRegionSchedulingStrategy(operations, topology);
    }

    /**
     * Scheduler operations that only count what Flink's strategy asks to deploy, the twin of {@link
     * RegionProcedures.CountingDeployer}. Flink's strategy asks once per region.
     */
    public static final class CountingOperations implements SchedulerOperations {
        private int regions;
        private int tasks;
        private @Nullable List<ExecutionVertexID> recorded;

        @Override
        public void allocateSlotsAndDeploy(List<ExecutionVertexID> verticesToDeploy) {
            regions++;
            tasks += verticesToDeploy.size();
            if (recorded != null) {
                recorded.addAll(verticesToDeploy);
            }
        }

        /** Regions the strategy asked to deploy so far. */
        public int deployedRegions() {
            return regions;
        }

        /** Tasks the strategy asked to deploy so far. */
        public int deployedTasks() {
            return tasks;
        }

        /** Starts keeping the ids of the tasks asked for, until {@link #stopRecording()}. */
        void startRecording() {
            recorded = new ArrayList<>();
        }

        /** The ids kept since {@link #startRecording()}; stops keeping them. */
        List<ExecutionVertexID> stopRecording() {
            List<ExecutionVertexID> ids = recorded;
            recorded = null;
            return ids == null ? List.of() : ids;
        }
    }

    /**
     * A batch job just before its last source task finishes, the twin of {@link
     * RegionProcedures.Downstream}, built as Flink's {@code
     * SchedulingDownstreamTasksInBatchJobBenchmark} builds it: the region strategy has started, and
     * every task it deployed at start has finished (its blocking partitions marked finished, the
     * strategy told) except the one with the highest task id. {@link #finishLastSource()} is the
     * measured step. (Flink 2.3's benchmark runs its BATCH configuration with the adaptive batch
     * scheduler's {@code VertexwiseSchedulingStrategy}; the region strategy used here is the one
     * that does Railyard's work, and Flink's default for streaming jobs.)
     */
    public static final class Downstream {
        private final PipelinedRegionSchedulingStrategy strategy;
        private final CountingOperations operations = new CountingOperations();
        private final ExecutionVertex lastSource;
        private final int deployedAtStart;

        /**
         * Builds the execution graph of {@code job} and the state. O(tasks + groups) objects; the
         * graph is not shared, as the step changes it.
         */
        public Downstream(FlinkJobs.Translation job, ScheduledExecutorService executor)
                throws Exception {
            DefaultExecutionGraph graph = FlinkJobs.executionGraph(job, executor);
            this.strategy = initScheduling(graph.getSchedulingTopology(), operations);
            operations.startRecording();
            strategy.startScheduling();
            List<ExecutionVertexID> started = operations.stopRecording();
            this.deployedAtStart = operations.deployedRegions();
            int[] sources = new int[started.size()];
            for (int i = 0; i < sources.length; i++) {
                sources[i] = job.task(started.get(i));
            }
            Arrays.sort(sources);
            for (int i = 0; i < sources.length - 1; i++) {
                finish(job.executionVertexIn(graph, sources[i]));
            }
            this.lastSource = job.executionVertexIn(graph, sources[sources.length - 1]);
        }

        /**
         * Finishes the last source task: marks its blocking partitions finished ({@code
         * ExecutionVertex.finishPartitionsIfNeeded}) and reports it to {@code
         * PipelinedRegionSchedulingStrategy.onExecutionStateChange}, which schedules the consumer
         * regions that became ready. Returns the regions deployed since the start.
         */
        public int finishLastSource() {
            finish(lastSource);
            return operations.deployedRegions() - deployedAtStart;
        }

        private void finish(ExecutionVertex vertex) {
            vertex.finishPartitionsIfNeeded();
            strategy.onExecutionStateChange(vertex.getID(), ExecutionState.FINISHED);
        }
    }

    /**
     * The state of {@link FailoverProcedures.Restart} in Flink, as Flink's {@code
     * RegionToRestartIn*JobBenchmark}s build it: every task has left state CREATED (Flink's
     * strategy leaves CREATED tasks out of its answer; here all are RUNNING) and every
     * re-consumable partition is available. The measured step is {@code
     * RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart}.
     */
    public static final class Restart {
        private final RestartPipelinedRegionFailoverStrategy strategy;
        private final ExecutionVertexID failedTask;

        // Made once, outside the measured step; Flink only looks into it for partition errors.
        private final Exception cause = new Exception("side-by-side: task failed");

        /** Builds the execution graph of {@code job} and the failover for {@code failure}. */
        public Restart(
                FlinkJobs.Translation job, ScheduledExecutorService executor, Failure failure)
                throws Exception {
            DefaultExecutionGraph graph = FlinkJobs.executionGraph(job, executor);
            for (ExecutionVertex vertex : graph.getAllExecutionVertices()) {
                vertex.getCurrentExecutionAttempt().transitionState(ExecutionState.RUNNING);
            }
            // Availability as Railyard's twin has it: every partition is there; Flink applies
            // the type rule (only BLOCKING and HYBRID_FULL are re-consumable) itself.
            this.strategy =
                    new RestartPipelinedRegionFailoverStrategy(
                            graph.getSchedulingTopology(), partition -> true);
            this.failedTask = job.executionVertex(failure.failedTask(job.railyard()));
        }

        /** The tasks to restart, as Flink answers: a new set per call. */
        public Set<ExecutionVertexID> tasksNeedingRestart() {
            return strategy.getTasksNeedingRestart(failedTask, cause);
        }

        /** The measured step: computes the tasks to restart; returns how many. */
        public int tasksToRestart() {
            return tasksNeedingRestart().size();
        }
    }

    /**
     * The state of {@link FailoverProcedures.Release} in Flink: a fresh {@code
     * RegionPartitionGroupReleaseStrategy} (over a fresh scheduling topology, as the strategy
     * registers itself with its topology) that has been told every task finished except those of
     * the last job vertex. {@link #finishSinks()} is the measured step.
     *
     * <p>Flink's {@code PartitionReleaseInBatchJobBenchmark} reaches the same strategy through
     * {@code ExecutionGraph.updateState}, which also moves every sink's execution to FINISHED and
     * the job towards its end; this fixture calls the strategy directly, the work Railyard's twin
     * does, so Flink's number here is a lower bound of that path.
     */
    public static final class Release {
        private final RegionPartitionGroupReleaseStrategy strategy;
        private final ExecutionVertexID[] sinks;

        /** Prepares the state over {@code graph}, the execution graph of {@code job}. */
        public Release(FlinkJobs.Translation job, DefaultExecutionGraph graph) {
            this.strategy = new RegionPartitionGroupReleaseStrategy(buildRegions(graph));
            JobGraph railyard = job.railyard();
            int firstSink = railyard.firstTask(railyard.numJobVertices() - 1);
            for (int task = 0; task < firstSink; task++) {
                strategy.vertexFinished(job.executionVertex(task));
            }
            this.sinks = new ExecutionVertexID[railyard.numTasks() - firstSink];
            for (int i = 0; i < sinks.length; i++) {
                sinks[i] = job.executionVertex(firstSink + i);
            }
        }

        /**
         * Reports every sink finished to {@code
         * RegionPartitionGroupReleaseStrategy.vertexFinished}; returns the partitions of the
         * consumed partition groups it released.
         */
        public int finishSinks() {
            int released = 0;
            for (ExecutionVertexID sink : sinks) {
                for (ConsumedPartitionGroup group : strategy.vertexFinished(sink)) {
                    released += group.size();
                }
            }
            return released;
        }
    }
}
