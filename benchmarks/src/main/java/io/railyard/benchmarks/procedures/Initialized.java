package io.railyard.benchmarks.procedures;

import io.railyard.deployment.DeploymentDescriptors;
import io.railyard.deployment.InMemoryBlobStore;
import io.railyard.deployment.JobId;
import io.railyard.deployment.OffloadOptions;
import io.railyard.failover.FailoverHandler;
import io.railyard.failover.ReleaseListener;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import io.railyard.topology.JobGraph;
import java.time.Duration;

/**
 * Everything Railyard's JobManager holds for the reference job once it is initialised and before it
 * starts: job graph, topology and groups, regions, the scheduling strategy's counters, the failover
 * handler (partition availability, release counters, attempts) and the descriptor cache. The
 * procedure "initialization" builds it; its retained size is the report's {@code
 * memory.initialized}. Flink's counterpart is its initialised execution graph.
 *
 * @param strategy the scheduling strategy (reaches the regions, topology and job graph)
 * @param failover the failover handler
 * @param descriptors the deployment descriptor cache (and the shuffle descriptors it reads)
 */
public record Initialized(
        RegionSchedulingStrategy strategy,
        FailoverHandler failover,
        DeploymentDescriptors descriptors) {

    /** Initialises the reference job at {@code parallelism}. O(tasks + groups). */
    public static Initialized of(int parallelism) {
        return of(ReferenceJobs.reference(parallelism));
    }

    /** Initialises {@code graph}. O(tasks + groups). */
    public static Initialized of(JobGraph graph) {
        ExecutionTopology topology = ExecutionTopology.of(graph);
        RegionInputs inputs = RegionInputs.of(PipelinedRegions.build(topology));
        RegionSchedulingStrategy strategy =
                new RegionSchedulingStrategy(inputs, new RegionProcedures.CountingDeployer());
        FailoverHandler failover =
                new FailoverHandler(
                        inputs,
                        strategy,
                        RestartBackoffPolicy.fixedDelay(3, Duration.ofSeconds(1)),
                        new IgnoringReleaseListener());
        DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        new JobId(0, graph.numTasks()),
                        topology,
                        new RandomPlacement(graph, DeployProcedures.WORKERS, 1),
                        new InMemoryBlobStore(),
                        OffloadOptions.DEFAULT);
        return new Initialized(strategy, failover, descriptors);
    }

    /** Releases nothing (a named class: JOL cannot walk lambdas' hidden classes). */
    private static final class IgnoringReleaseListener implements ReleaseListener {
        @Override
        public void release(int from, int to) {}
    }
}
