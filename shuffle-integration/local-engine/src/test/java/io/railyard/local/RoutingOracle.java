package io.railyard.local;

import io.railyard.topology.JobGraph;
import io.railyard.topology.NaiveConnections;
import io.railyard.worker.Tally;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What each task of a {@link ForwardingJob} must receive, key by key: the records the sources
 * generate ({@link ForwardingJob#forEachGenerated}) followed hop by hop through the connections of
 * the expanded graph as the independent {@link NaiveConnections} lists them — not through the
 * engine's consumer groups, descriptors or writers. The routing rule, as the job's documentation
 * states it: a task forwards every record it receives (a source, every record it generates) to each
 * of its outputs, keyed by the record's first four bytes (big-endian); a record with key {@code k}
 * in partition {@code i} of a dataset reaches, through each consumer edge of the dataset, the
 * {@code floorMod(k, n)}-th of the {@code n} consumer subtasks that read partition {@code i} on
 * that edge, in subtask order (every consumer subtask on an all-to-all edge).
 *
 * <p>Keys are drawn at random, so most keys are one record's; a per-key tally (records and their
 * checksum) tells exactly which records reached a task. Small graphs only: O(records × paths).
 */
final class RoutingOracle {
    private final JobGraph graph;
    private final List<Map<Integer, Tally>> byTask = new ArrayList<>(); // key -> tally, per task

    /** The oracle of {@code job} on {@code graph}. */
    RoutingOracle(JobGraph graph, ForwardingJob job) {
        this.graph = graph;
        for (int t = 0; t < graph.numTasks(); t++) {
            byTask.add(new HashMap<>());
        }
        List<List<int[]>> readers = readers(graph);
        for (int v = 0; v < graph.numJobVertices(); v++) { // ids are topologically ordered
            if (graph.numInputEdges(v) == 0) {
                for (int s = 0; s < graph.parallelism(v); s++) {
                    Map<Integer, Tally> generated = byTask.get(graph.task(v, s));
                    job.forEachGenerated(
                            v, s, record -> generated.merge(key(record), one(record), Tally::plus));
                }
            }
            for (int k = 0; k < graph.numInputEdges(v); k++) {
                route(graph.inputEdge(v, k), readers.get(graph.inputEdge(v, k)));
            }
        }
    }

    /**
     * Every record the producer's tasks received goes to the reader of its key on edge {@code e}.
     */
    private void route(int e, List<int[]> readersOfPartition) {
        int producer = graph.edgeProducer(e);
        for (int i = 0; i < graph.parallelism(producer); i++) {
            int[] readers = readersOfPartition.get(i);
            for (Map.Entry<Integer, Tally> entry : byTask.get(graph.task(producer, i)).entrySet()) {
                int reader = readers[Math.floorMod(entry.getKey(), readers.length)];
                byTask.get(graph.task(graph.edgeConsumer(e), reader))
                        .merge(entry.getKey(), entry.getValue(), Tally::plus);
            }
        }
    }

    /** Per edge, per partition index of its dataset, the consumer subtasks that read it, sorted. */
    private static List<List<int[]>> readers(JobGraph graph) {
        List<List<List<Integer>>> readers = new ArrayList<>();
        for (int e = 0; e < graph.numEdges(); e++) {
            List<List<Integer>> ofEdge = new ArrayList<>();
            for (int i = 0; i < graph.parallelism(graph.edgeProducer(e)); i++) {
                ofEdge.add(new ArrayList<>());
            }
            readers.add(ofEdge);
        }
        NaiveConnections.forEach(
                graph,
                (edge, partition, consumer) ->
                        readers.get(edge)
                                .get(graph.partitionIndex(partition))
                                .add(graph.subtaskIndex(consumer)));
        return readers.stream()
                .map(
                        ofEdge ->
                                ofEdge.stream()
                                        .map(r -> r.stream().mapToInt(s -> s).sorted().toArray())
                                        .toList())
                .toList();
    }

    /** What task {@code task} must receive (a source: generate), per key. */
    Map<Integer, Tally> expected(int task) {
        return byTask.get(task);
    }

    /** All that task {@code task} must receive (a source: generate), every key together. */
    Tally expectedTotal(int task) {
        return byTask.get(task).values().stream().reduce(Tally.ZERO, Tally::plus);
    }

    /** The key of {@code record}: its first four bytes, big-endian, whatever its byte order. */
    static int key(ByteBuffer record) {
        int key = record.getInt(record.position());
        return record.order() == ByteOrder.BIG_ENDIAN ? key : Integer.reverseBytes(key);
    }

    /** The tally of {@code record} alone. */
    static Tally one(ByteBuffer record) {
        return new Tally(1, Tally.hash(record));
    }

    /**
     * The keys whose tallies differ between {@code expected} and {@code actual}, at most {@code
     * limit} of them described (key, expected, actual), then how many differ in all; empty if none.
     */
    static List<String> differences(
            Map<Integer, Tally> expected, Map<Integer, Tally> actual, int limit) {
        TreeSet<Integer> keys = new TreeSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        List<String> differing = new ArrayList<>();
        int count = 0;
        for (int key : keys) {
            Tally want = expected.getOrDefault(key, Tally.ZERO);
            Tally got = actual.getOrDefault(key, Tally.ZERO);
            if (!want.equals(got) && count++ < limit) {
                differing.add(
                        String.format(
                                "key %08x: expected %s record(s), received %s%s",
                                key,
                                want.records(),
                                got.records(),
                                want.records() == got.records() ? " (other bytes)" : ""));
            }
        }
        if (count > limit) {
            differing.add("... " + count + " keys differ in all");
        }
        return differing;
    }
}
