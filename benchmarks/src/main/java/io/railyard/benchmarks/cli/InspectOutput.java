package io.railyard.benchmarks.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.railyard.benchmarks.inspect.JobFile;
import io.railyard.failover.PartitionAvailability;
import io.railyard.failover.RegionFailover;
import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.topology.JobGraph;
import it.unimi.dsi.fastutil.ints.IntArrays;
import java.io.FilterWriter;
import java.io.IOException;
import java.io.Writer;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON that {@code inspect} prints: {@code {"regions":[[…],…]}} plus {@code "restart":[…]} when
 * a task failed, every list in plain {@link String} order.
 *
 * <h2>Design notes</h2>
 *
 * Regions are disjoint and task names unique, so ordering regions by their sorted task lists
 * element by element is ordering them by their smallest task name. One sort of all task names (task
 * ids sorted by name) therefore gives both orders: walking it, a region's rank is the order in
 * which it first appears, and a stable bucketing by rank lays every region's names out sorted in
 * one array. The regions are views of slices of that array, serialised by Jackson straight to the
 * writer, so nothing per region is retained and the document is never held as a string. Memory is
 * the task names (at most {@link JobFile#MAX_TASKS} strings of at most {@link
 * JobFile#MAX_TASK_NAME_CHARS} characters together) and a few int arrays of T.
 *
 * <p>O(T log T) string comparisons for T tasks, plus building regions and one failover.
 */
final class InspectOutput {
    private static final ObjectMapper JSON = new ObjectMapper();

    private InspectOutput() {}

    /**
     * Writes the document for {@code graph} to {@code out} without closing it; with the restart set
     * of {@code failedTask} unless it is negative.
     */
    static void write(
            JobGraph graph, int failedTask, PartitionAvailability availability, Writer out)
            throws IOException {
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));
        String[] names = new String[graph.numTasks()];
        for (int task = 0; task < names.length; task++) {
            names[task] = graph.taskName(task);
        }
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("regions", sortedRegions(regions, names));
        if (failedTask >= 0) {
            int[] tasks =
                    new RegionFailover(RegionInputs.of(regions), availability)
                            .tasksToRestart(failedTask)
                            .toTaskArray();
            List<String> restart = new ArrayList<>(tasks.length);
            for (int task : tasks) {
                restart.add(names[task]);
            }
            restart.sort(null);
            document.put("restart", restart);
        }
        JSON.writeValue(new Unclosed(out), document);
    }

    /** The regions in output order, each its task names in order, as views of one array. */
    private static List<List<String>> sortedRegions(PipelinedRegions regions, String[] names) {
        int[] byName = new int[names.length];
        for (int task = 0; task < byName.length; task++) {
            byName[task] = task;
        }
        IntArrays.mergeSort(byName, (a, b) -> names[a].compareTo(names[b]));
        int[] rank = new int[regions.numRegions()];
        Arrays.fill(rank, -1);
        int[] regionOf = new int[names.length];
        int ranked = 0;
        for (int task : byName) {
            regionOf[task] = regions.regionOf(task);
            if (rank[regionOf[task]] < 0) {
                rank[regionOf[task]] = ranked++;
            }
        }
        int[] start = new int[ranked + 1];
        for (int region = 0; region < rank.length; region++) {
            start[rank[region] + 1] = regions.numTasks(region);
        }
        for (int r = 0; r < ranked; r++) {
            start[r + 1] += start[r];
        }
        int[] next = Arrays.copyOf(start, ranked);
        String[] laidOut = new String[names.length];
        for (int task : byName) {
            laidOut[next[rank[regionOf[task]]]++] = names[task];
        }
        List<String> all = Arrays.asList(laidOut);
        return new AbstractList<>() {
            @Override
            public List<String> get(int r) {
                return all.subList(start[r], start[r + 1]);
            }

            @Override
            public int size() {
                return start.length - 1;
            }
        };
    }

    /** The caller's writer with {@code close()} reduced to {@code flush()}: Jackson closes. */
    private static final class Unclosed extends FilterWriter {
        Unclosed(Writer out) {
            super(out);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}
