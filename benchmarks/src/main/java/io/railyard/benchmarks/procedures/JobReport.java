package io.railyard.benchmarks.procedures;

import io.railyard.deployment.BlobKey;
import io.railyard.deployment.OffloadOptions;
import io.railyard.failover.PartitionAvailability;
import io.railyard.failover.RegionFailover;
import io.railyard.failover.RestartSet;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.simulation.ShuffleMode;
import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.ResultPartitionType;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What an operator wants to know about a job before running it ({@code inspect --report}): its
 * vertices and edges, its consumer groups, its pipelined regions and the largest restart set — the
 * blast radius of one task failure — with the job's own exchanges and with every exchange that need
 * not be pipelined made BLOCKING or HYBRID_FULL, what deploying it ships to a number of workers,
 * and the JobManager heap it needs beside Flink's. Everything but the heap is computed on the job
 * itself by the library's own structures; the heap is an estimate from measured bytes per task
 * ({@link #RAILYARD_FIXED_BYTES}, {@link #RAILYARD_BYTES_PER_TASK}, {@link #FLINK_BYTES_PER_TASK}).
 *
 * <p>Costs: the regions and groups O(topology); the largest restart set one failover per region
 * (each O(the restart set's regions and groups)); the deployment every task's descriptor encoded
 * once and decoded once, each group encoded once — what a JobManager does to deploy the job.
 *
 * @param vertices every job vertex, in the graph's order
 * @param edges every edge, in the graph's order
 * @param consumerGroups consumer groups of the whole job
 * @param failover regions and the largest restart set, as declared, all blocking, all hybrid
 * @param deployment what deploying every task ships
 * @param heap the JobManager heap, estimated
 */
public record JobReport(
        List<Vertex> vertices,
        List<Edge> edges,
        int consumerGroups,
        List<Failover> failover,
        Deployment deployment,
        Heap heap) {

    /** Workers a report deploys to unless told otherwise, as the report's deployment rows. */
    public static final int DEFAULT_WORKERS = DeployProcedures.WORKERS;

    /** Railyard's JobManager core at no tasks, measured with JOL (RESULTS.md). */
    public static final long RAILYARD_FIXED_BYTES = 65 << 10;

    /**
     * Railyard's JobManager core per task: the slope of its retained size between P = 1,000 and P =
     * 100,000 on the BLOCKING reference job (68.9 KiB, 101.8 KiB and 431.3 KiB for 2,000, 20,000
     * and 200,000 tasks; RESULTS.md, "Memory").
     */
    public static final double RAILYARD_BYTES_PER_TASK = 1.87;

    /**
     * Flink 2.1's initialised execution graph per task, measured with JOL on the BLOCKING reference
     * job at P = 10,000 (55.5 MiB for 20,000 tasks; RESULTS.md, "Memory").
     */
    public static final double FLINK_BYTES_PER_TASK = 2_907;

    /**
     * A job vertex: its name, parallelism, input edges, and the pipelined regions (as declared) its
     * tasks are in.
     */
    public record Vertex(String name, int parallelism, int inputs, int regions) {}

    /**
     * An edge.
     *
     * @param groups its consumer groups
     * @param connections the task-level connections those groups stand for
     */
    public record Edge(
            String producer,
            String consumer,
            DistributionPattern pattern,
            ResultPartitionType type,
            int groups,
            long connections) {}

    /**
     * The regions under one shuffle mode, and the largest restart set with every partition that can
     * be read again available.
     *
     * @param largestRegion a task of the largest region
     * @param largestRestartWhenFails a task whose failure restarts the most tasks
     */
    public record Failover(
            ShuffleMode mode,
            int regions,
            int largestRegionTasks,
            String largestRegion,
            int largestRestartTasks,
            String largestRestartWhenFails) {}

    /**
     * What deploying every task once ships, each task on one of {@code workers} workers at random
     * (seeded; the placement of the report's deployment rows).
     *
     * @param descriptorBytes every task's descriptor
     * @param largestDescriptorBytes the largest task descriptor
     * @param offloadedGroups groups whose descriptors went to the blob store
     * @param offloadedBytes those blobs, each once
     * @param fetchedBytes the blobs each worker fetches, once per worker that reads them
     * @param workersReached workers that run a task
     * @param meanWorkerBytes descriptors and blobs a worker that runs a task receives, on average
     * @param maxWorkerBytes the most one worker receives
     */
    public record Deployment(
            int workers,
            long descriptorBytes,
            int largestDescriptorBytes,
            int offloadedGroups,
            long offloadedBytes,
            long fetchedBytes,
            int workersReached,
            double meanWorkerBytes,
            long maxWorkerBytes) {}

    /** The JobManager heap for the job's scheduling state, estimated for both systems. */
    public record Heap(long railyardBytes, long flinkBytes) {}

    /**
     * The report of {@code graph} deployed to {@code workers} workers.
     *
     * @throws IllegalArgumentException if {@code workers} is out of the worker table's range
     */
    public static JobReport of(JobGraph graph, int workers) {
        ExecutionTopology topology = ExecutionTopology.of(graph);
        int[] regionsOfVertex = regionsOfVertex(graph, PipelinedRegions.build(topology));
        List<Vertex> vertices = new ArrayList<>();
        for (int v = 0; v < graph.numJobVertices(); v++) {
            vertices.add(
                    new Vertex(
                            graph.vertexName(v),
                            graph.parallelism(v),
                            graph.numInputEdges(v),
                            regionsOfVertex[v]));
        }
        List<Edge> edges = new ArrayList<>();
        for (int e = 0; e < graph.numEdges(); e++) {
            long connections = 0;
            for (int g = 0; g < topology.numGroups(e); g++) {
                connections += topology.numConnections(topology.firstGroup(e) + g);
            }
            edges.add(
                    new Edge(
                            graph.vertexName(graph.edgeProducer(e)),
                            graph.vertexName(graph.edgeConsumer(e)),
                            graph.edgePattern(e),
                            graph.edgeResultType(e),
                            topology.numGroups(e),
                            connections));
        }
        List<Failover> failover = new ArrayList<>();
        Failover declared = failover(ShuffleMode.AS_DECLARED, graph);
        failover.add(declared);
        for (ShuffleMode mode : List.of(ShuffleMode.BLOCKING, ShuffleMode.HYBRID_FULL)) {
            JobGraph rewritten = mode.apply(graph);
            failover.add(
                    sameTypes(graph, rewritten)
                            ? withMode(declared, mode) // the same graph: the same answers
                            : failover(mode, rewritten));
        }
        long tasks = graph.numTasks();
        Heap heap =
                new Heap(
                        RAILYARD_FIXED_BYTES + Math.round(RAILYARD_BYTES_PER_TASK * tasks),
                        Math.round(FLINK_BYTES_PER_TASK * tasks));
        return new JobReport(
                vertices,
                edges,
                topology.numGroups(),
                failover,
                deployment(topology, workers),
                heap);
    }

    /** For each job vertex, the regions holding its tasks. O(regions × their task ranges). */
    private static int[] regionsOfVertex(JobGraph graph, PipelinedRegions regions) {
        int[] count = new int[graph.numJobVertices()];
        int[] counted = new int[graph.numJobVertices()]; // the last region counted, plus one
        var cursor = regions.newTaskRangeCursor();
        for (int r = 0; r < regions.numRegions(); r++) {
            cursor.reset(r);
            while (cursor.next()) {
                int v = graph.vertexOfTask(cursor.start());
                if (counted[v] != r + 1) {
                    count[v]++;
                    counted[v] = r + 1;
                }
            }
        }
        return count;
    }

    private static boolean sameTypes(JobGraph a, JobGraph b) {
        for (int e = 0; e < a.numEdges(); e++) {
            if (a.edgeResultType(e) != b.edgeResultType(e)) {
                return false;
            }
        }
        return true;
    }

    private static Failover withMode(Failover f, ShuffleMode mode) {
        return new Failover(
                mode,
                f.regions(),
                f.largestRegionTasks(),
                f.largestRegion(),
                f.largestRestartTasks(),
                f.largestRestartWhenFails());
    }

    private static Failover failover(ShuffleMode mode, JobGraph graph) {
        return failover(mode, graph, true);
    }

    /**
     * The regions of {@code graph} and its largest restart set. With {@code byClass}, one region of
     * each class stands for the others: regions holding the same number of tasks of the same
     * vertices, all of whose edges are ALL_TO_ALL, have restart sets of one size — the first step
     * of the failover from any of them reaches every task of every neighbouring vertex, so the rest
     * of the closure is the same (JobReportTest checks this against every region on random graphs).
     * A 20,000 × 20,000 × 20,000 blocking job then takes one failover per vertex instead of one per
     * task.
     */
    static Failover failover(ShuffleMode mode, JobGraph graph, boolean byClass) {
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));
        RegionFailover restarts =
                new RegionFailover(RegionInputs.of(regions), PartitionAvailability.all());
        RestartSet into = new RestartSet();
        Map<List<Integer>, Integer> sizeOfClass = new HashMap<>();
        int largest = 0;
        int largestRegion = 0;
        int largestRestart = 0;
        int restartTask = 0;
        var cursor = regions.newTaskRangeCursor();
        for (int r = 0; r < regions.numRegions(); r++) {
            cursor.reset(r);
            List<Integer> key = new ArrayList<>(); // vertex, tasks, vertex, tasks, ...
            boolean allToAll = true;
            int first = -1;
            while (cursor.next()) {
                first = first < 0 ? cursor.start() : first;
                int v = graph.vertexOfTask(cursor.start());
                key.add(v);
                key.add(cursor.end() - cursor.start());
                allToAll &= onlyAllToAll(graph, v);
            }
            if (regions.numTasks(r) > largest) {
                largest = regions.numTasks(r);
                largestRegion = first;
            }
            Integer known = byClass && allToAll ? sizeOfClass.get(key) : null;
            int size;
            if (known != null) {
                size = known;
            } else {
                restarts.tasksToRestart(first, into);
                size = into.numTasks();
                if (byClass && allToAll) {
                    sizeOfClass.put(key, size);
                }
            }
            if (size > largestRestart) {
                largestRestart = size;
                restartTask = first;
            }
        }
        return new Failover(
                mode,
                regions.numRegions(),
                largest,
                graph.taskName(largestRegion),
                largestRestart,
                graph.taskName(restartTask));
    }

    /** Whether every edge into or out of job vertex {@code v} is ALL_TO_ALL. O(its edges). */
    private static boolean onlyAllToAll(JobGraph graph, int v) {
        for (int k = 0; k < graph.numInputEdges(v); k++) {
            if (graph.edgePattern(graph.inputEdge(v, k)) != DistributionPattern.ALL_TO_ALL) {
                return false;
            }
        }
        for (int k = 0; k < graph.numProducedDataSets(v); k++) {
            int d = graph.producedDataSet(v, k);
            for (int c = 0; c < graph.numConsumerEdges(d); c++) {
                if (graph.edgePattern(graph.consumerEdge(d, c)) != DistributionPattern.ALL_TO_ALL) {
                    return false;
                }
            }
        }
        return true;
    }

    private static Deployment deployment(ExecutionTopology topology, int workers) {
        Arrivals arrivals = new Arrivals(workers);
        DeployProcedures.deployAllTo(
                topology,
                new RandomPlacement(topology.jobGraph(), workers, DeployProcedures.SEED),
                OffloadOptions.DEFAULT,
                arrivals);
        return arrivals.deployment();
    }

    /** What each worker receives during the report's "deploy all". */
    private static final class Arrivals implements DeployProcedures.Receiver {
        private final long[] perWorker;
        private final BitSet reached;
        private final Map<BlobKey, Integer> offloaded = new HashMap<>();
        private long descriptorBytes;
        private long fetched;
        private int largestDescriptor;

        Arrivals(int workers) {
            perWorker = new long[workers];
            reached = new BitSet(workers);
        }

        @Override
        public void descriptor(int task, int worker, byte[] bytes) {
            reached.set(worker);
            perWorker[worker] += bytes.length;
            descriptorBytes += bytes.length;
            largestDescriptor = Math.max(largestDescriptor, bytes.length);
        }

        @Override
        public void blob(int worker, BlobKey key, int bytes) {
            offloaded.put(key, bytes);
            perWorker[worker] += bytes;
            fetched += bytes;
        }

        Deployment deployment() {
            long max = 0;
            for (int w = reached.nextSetBit(0); w >= 0; w = reached.nextSetBit(w + 1)) {
                max = Math.max(max, perWorker[w]);
            }
            long offloadedBytes = 0;
            for (int size : offloaded.values()) {
                offloadedBytes += size;
            }
            int n = reached.cardinality();
            return new Deployment(
                    perWorker.length,
                    descriptorBytes,
                    largestDescriptor,
                    offloaded.size(),
                    offloadedBytes,
                    fetched,
                    n,
                    n == 0 ? 0 : (descriptorBytes + fetched) / (double) n,
                    max);
        }
    }
}
