package io.railyard.regions;

import io.railyard.topology.JobGraph;
import io.railyard.topology.NaiveConnections;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jgrapht.Graph;
import org.jgrapht.alg.connectivity.ConnectivityInspector;
import org.jgrapht.alg.connectivity.KosarajuStrongConnectivityInspector;
import org.jgrapht.graph.DefaultDirectedGraph;
import org.jgrapht.graph.DefaultEdge;
import org.jgrapht.graph.SimpleGraph;

/**
 * The independent oracle for regions, on the expanded task graph: connected components over every
 * connection that must be consumed pipelined, then strongly connected components of those
 * components over the other connections, each merged. The result is the finest partition of the
 * tasks in which pipelined connections stay inside and the regions form a DAG.
 *
 * <p>Shared with the modules above through this module's test-jar, so that their oracles need not
 * trust the {@link PipelinedRegions} under test. Uses JGraphT, which a user of the test-jar must
 * have on its test class path; O(connections), small graphs only.
 */
public final class RegionOracle {
    private RegionOracle() {}

    /** The oracle's regions of {@code graph}, each a sorted set of task ids. */
    public static Set<Set<Integer>> regions(JobGraph graph) {
        Graph<Integer, DefaultEdge> pipelined = new SimpleGraph<>(DefaultEdge.class);
        for (int t = 0; t < graph.numTasks(); t++) {
            pipelined.addVertex(t);
        }
        List<int[]> others = new ArrayList<>();
        NaiveConnections.forEach(
                graph,
                (e, p, consumer) -> {
                    int producer = NaiveConnections.producerTask(graph, p);
                    if (graph.edgeResultType(e).mustBePipelinedConsumed()) {
                        if (producer != consumer) {
                            pipelined.addEdge(producer, consumer);
                        }
                    } else {
                        others.add(new int[] {producer, consumer});
                    }
                });
        List<Set<Integer>> components = new ConnectivityInspector<>(pipelined).connectedSets();
        Map<Integer, Integer> componentOf = new HashMap<>();
        for (int c = 0; c < components.size(); c++) {
            for (int t : components.get(c)) {
                componentOf.put(t, c);
            }
        }
        Graph<Integer, DefaultEdge> quotient = new DefaultDirectedGraph<>(DefaultEdge.class);
        for (int c = 0; c < components.size(); c++) {
            quotient.addVertex(c);
        }
        for (int[] connection : others) {
            quotient.addEdge(componentOf.get(connection[0]), componentOf.get(connection[1]));
        }
        Set<Set<Integer>> regions = new java.util.HashSet<>();
        for (Set<Integer> scc :
                new KosarajuStrongConnectivityInspector<>(quotient).stronglyConnectedSets()) {
            Set<Integer> region = new TreeSet<>();
            for (int c : scc) {
                region.addAll(components.get(c));
            }
            regions.add(region);
        }
        return regions;
    }

    /**
     * The region of every task under the oracle, as an array indexed by task id; regions are
     * numbered {@code 0, 1, ...} in no particular order (compare memberships, not ids).
     */
    public static int[] regionOfTask(JobGraph graph) {
        int[] regionOf = new int[graph.numTasks()];
        int region = 0;
        for (Set<Integer> tasks : regions(graph)) {
            for (int task : tasks) {
                regionOf[task] = region;
            }
            region++;
        }
        return regionOf;
    }

    /** Railyard's regions in the same form as {@link #regions(JobGraph)}. */
    public static Set<Set<Integer>> regions(PipelinedRegions regions) {
        Set<Set<Integer>> result = new java.util.HashSet<>();
        TaskRangeCursor cursor = regions.newTaskRangeCursor();
        for (int r = 0; r < regions.numRegions(); r++) {
            Set<Integer> region = new TreeSet<>();
            for (cursor.reset(r); cursor.next(); ) {
                for (int t = cursor.start(); t < cursor.end(); t++) {
                    region.add(t);
                }
            }
            result.add(region);
        }
        return result;
    }
}
