package io.railyard.topology;

/**
 * The task-level connections of a job graph, expanded one by one the way Flink's execution graph
 * builder loops: an independent oracle for property tests in every module (shipped in the
 * test-jar). O(connections); only for small graphs.
 */
public final class NaiveConnections {
    /**
     * Receives one connection: partition {@code partition} of edge {@code edge}'s dataset is read
     * by task {@code consumer}.
     */
    @FunctionalInterface
    public interface Connection {
        /** Called once per connection. */
        void accept(int edge, int partition, int consumer);
    }

    private NaiveConnections() {}

    /** Calls {@code action} for every task-level connection of {@code graph}. */
    public static void forEach(JobGraph graph, Connection action) {
        for (int e = 0; e < graph.numEdges(); e++) {
            int dataSet = graph.edgeDataSet(e);
            int consumer = graph.edgeConsumer(e);
            int producers = graph.numPartitions(dataSet);
            int consumers = graph.parallelism(consumer);
            for (int i = 0; i < producers; i++) {
                for (int j = 0; j < consumers; j++) {
                    if (connected(graph.edgePattern(e), producers, consumers, i, j)) {
                        action.accept(
                                e, graph.firstPartition(dataSet) + i, graph.task(consumer, j));
                    }
                }
            }
        }
    }

    /** The producer task of partition {@code p}. */
    public static int producerTask(JobGraph graph, int p) {
        return graph.task(graph.producer(graph.dataSetOfPartition(p)), graph.partitionIndex(p));
    }

    private static boolean connected(
            DistributionPattern pattern, int producers, int consumers, int partition, int subtask) {
        if (pattern == DistributionPattern.ALL_TO_ALL) {
            return true;
        }
        if (producers >= consumers) {
            int start = subtask * producers / consumers;
            int end = (subtask + 1) * producers / consumers;
            return partition >= start && partition < end;
        }
        int start = (partition * consumers + producers - 1) / producers;
        int end = ((partition + 1) * consumers + producers - 1) / producers;
        return subtask >= start && subtask < end;
    }
}
