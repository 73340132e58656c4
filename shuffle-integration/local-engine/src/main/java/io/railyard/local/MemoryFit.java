package io.railyard.local;

import io.railyard.groups.ExecutionTopology;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.JobGraph;
import io.railyard.worker.ShuffleEnvironment;

/**
 * Whether a job can ever run on an engine's workers, decided before anything is deployed, from the
 * pages each writer and gate pledges in a worker's network-buffer pool. A job is refused only when
 * it certainly never fits — retrying it would only burn the restart budget on {@code
 * InsufficientNetworkMemoryException}s: one task alone on an idle worker, whose writers (those made
 * at its deployment, readable while written, and at its start, blocking) and gates pledge more than
 * the pages a worker can pledge.
 *
 * <p>Everything else may fit once other tasks have ended and is left to run: a task that cannot
 * pledge its memory now waits for some to come back ({@code TaskShuffle#tryStart}), and a producer
 * that cannot make its partition readable while written at its deployment makes it when it starts.
 * So a pipelined region, or a group of hybrid partitions one consumer reads, need not fit at once:
 * a writer holds its guarantee only while it writes (a finished one lowers it to 0, its data in
 * borrowed pages the pool can ask back), and a pipelined producer whose consumers are not all
 * running goes on as selective after a bounded wait. (Until the tasks became cooperative, both were
 * refused when their writers' sum did not fit: the 10,000 × 10,000 pipelined job was one.) O(tasks
 * × edges).
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
