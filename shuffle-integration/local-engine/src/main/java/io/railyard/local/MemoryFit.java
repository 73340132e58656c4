package io.railyard.local;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import io.railyard.worker.ShuffleEnvironment;

/**
 * Whether a job can ever run on an engine's workers, decided before anything is deployed, from the
 * pages each writer and gate pledges in a worker's network-buffer pool. A job is refused only when
 * it certainly never fits — retrying it would only burn the restart budget on {@code
 * InsufficientNetworkMemoryException}s:
 *
 * <ul>
 *   <li>one task alone on an idle worker: the writers it creates when it is deployed (hybrid and
 *       pipelined partitions, readable while written) and when it starts (its blocking partitions)
 *       plus one gate per input, more than the pages a worker can pledge;
 *   <li>one pipelined region: the writers its tasks create when they are deployed — all at once,
 *       placed round-robin, so some worker holds at least their sum over the workers — more than a
 *       worker can pledge;
 *   <li>one consumer group of partitions readable while written (hybrid, pipelined): each is held
 *       until every consumer of the group has finished, and none can finish before the last
 *       partition of the group exists, so all of them are held at once — their writers' pages over
 *       the workers more than a worker can pledge.
 * </ul>
 *
 * <p>Everything else may fit once other tasks have ended and is left to run: a task that cannot
 * pledge its memory now waits for some to come back ({@code TaskShuffle#start}). O(tasks × edges)
 * for the tasks and groups (the number of subpartitions of each partition), O(topology) for the
 * regions.
 */
final class MemoryFit {
    private final JobGraph graph;
    private final ExecutionTopology topology;
    private final ShuffleWorker worker;
    private final PartitionKind blocking;
    private final int pledgeable;

    private MemoryFit(JobGraph graph, ShuffleWorker worker, PartitionKind blocking) {
        this.graph = graph;
        this.topology = ExecutionTopology.of(graph);
        this.worker = worker;
        this.blocking = blocking;
        this.pledgeable = worker.bufferPool().totalPages() - worker.bufferPool().guaranteedPages();
    }

    /**
     * Checks {@code graph} against an idle worker like {@code worker} (every worker of an engine
     * has the same options), of {@code workers}.
     *
     * @throws IllegalArgumentException if it can never run: one line naming the task or region, the
     *     pages it needs and those a worker can pledge, and the setting to raise
     */
    static void check(JobGraph graph, ShuffleWorker worker, int workers, PartitionKind blocking) {
        MemoryFit fit = new MemoryFit(graph, worker, blocking);
        fit.checkTasks();
        fit.checkRegions(workers);
        fit.checkGroups(workers);
    }

    private void checkTasks() {
        for (int v = 0; v < graph.numJobVertices(); v++) {
            for (int s = 0; s < graph.parallelism(v); s++) {
                long need = deployPages(v, s) + startPages(v, s);
                if (need > pledgeable) {
                    throw new IllegalArgumentException(
                            String.format(
                                    "task %s#%d can never run: its writers and gates pledge %d"
                                            + " pages of a worker's network memory, which can"
                                            + " pledge %d of %d pages; raise %s (now %d MiB) or"
                                            + " lower the parallelism of its consumers",
                                    graph.vertexName(v),
                                    s,
                                    need,
                                    pledgeable,
                                    worker.bufferPool().totalPages(),
                                    ShuffleOptions.TOTAL_MEMORY_KEY,
                                    worker.options().totalMemoryBytes() >> 20));
                }
            }
        }
    }

    private void checkRegions(int workers) {
        PipelinedRegions regions = PipelinedRegions.build(topology);
        var cursor = regions.newTaskRangeCursor();
        for (int r = 0; r < regions.numRegions(); r++) {
            long sum = 0;
            cursor.reset(r);
            while (cursor.next()) {
                int v = graph.vertexOfTask(cursor.start());
                for (int task = cursor.start(); task < cursor.end(); task++) {
                    sum += deployPages(v, task - graph.firstTask(v));
                }
            }
            checkSpread(
                    sum,
                    workers,
                    String.format(
                            "pipelined region %s can never run: its %d tasks are deployed together"
                                    + " and their partitions readable while written",
                            regions.describe(r), regions.numTasks(r)),
                    "make an edge of it BLOCKING");
        }
    }

    private void checkGroups(int workers) {
        for (int g = 0; g < topology.numGroups(); g++) {
            int d = graph.edgeDataSet(topology.edgeOfGroup(g));
            PartitionKind kind = ShuffleEnvironment.kindOf(topology.resultType(g), blocking);
            if (!kind.isReadableWhileWritten()) {
                continue;
            }
            long partitions = topology.partitionRange(g);
            long sum = 0;
            for (int p = PackedRange.start(partitions); p < PackedRange.end(partitions); p++) {
                int index = p - graph.firstPartition(d);
                sum += worker.writerPages(kind, topology.numSubpartitions(d, index));
            }
            checkSpread(
                    sum,
                    workers,
                    String.format(
                            "the %d %s partitions of %s that one consumer reads can never all be"
                                    + " held, as they must until its consumers finish: they",
                            PackedRange.size(partitions),
                            topology.resultType(g),
                            graph.vertexName(graph.producer(d))),
                    "make the edge BLOCKING");
        }
    }

    /**
     * Refuses {@code pages} pledged at once over {@code workers} workers if some worker — one holds
     * at least their share, rounded up — could never pledge its part. {@code what} starts the
     * message ("… pledge N pages"); {@code otherwise} is the last way out it names.
     */
    private void checkSpread(long pages, int workers, String what, String otherwise) {
        long least = (pages + workers - 1) / workers; // some worker holds at least this
        if (least > pledgeable) {
            throw new IllegalArgumentException(
                    String.format(
                            "%s pledge %d pages, at least %d on one of the %d workers, whose"
                                    + " network memory can pledge %d of %d pages; raise %s (now %d"
                                    + " MiB), add workers, or %s",
                            what,
                            pages,
                            least,
                            workers,
                            pledgeable,
                            worker.bufferPool().totalPages(),
                            ShuffleOptions.TOTAL_MEMORY_KEY,
                            worker.options().totalMemoryBytes() >> 20,
                            otherwise));
        }
    }

    /** Pages subtask {@code s} of {@code v} pledges when it is deployed. */
    private long deployPages(int v, int s) {
        long pages = 0;
        for (int k = 0; k < graph.numProducedDataSets(v); k++) {
            int d = graph.producedDataSet(v, k);
            PartitionKind kind = ShuffleEnvironment.kindOf(graph.resultType(d), blocking);
            if (kind.isReadableWhileWritten()) {
                pages += worker.writerPages(kind, topology.numSubpartitions(d, s));
            }
        }
        return pages;
    }

    /** Pages subtask {@code s} of {@code v} pledges when it starts: blocking writers, gates. */
    private long startPages(int v, int s) {
        long pages = (long) graph.numInputEdges(v) * worker.options().gatePages();
        for (int k = 0; k < graph.numProducedDataSets(v); k++) {
            int d = graph.producedDataSet(v, k);
            PartitionKind kind = ShuffleEnvironment.kindOf(graph.resultType(d), blocking);
            if (!kind.isReadableWhileWritten()) {
                pages += worker.writerPages(kind, topology.numSubpartitions(d, s));
            }
        }
        return pages;
    }
}
