package io.railyard.failover;

import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import it.unimi.dsi.fastutil.longs.LongArrays;
import java.util.Arrays;
import java.util.NoSuchElementException;
import java.util.PrimitiveIterator;
import java.util.function.IntConsumer;

/**
 * The tasks to restart after a failure, stored compactly: the restarted regions in ascending id
 * order, and their tasks as maximal ranges of task ids, ascending, each within one job vertex. A
 * job vertex restarted entirely is one range, however large its parallelism.
 *
 * <p>Filled by {@link RegionFailover#tasksToRestart(int, RestartSet)}, which reuses the arrays:
 * once they have grown to a job's largest answer, refilling allocates nothing. Reads are O(1)
 * except {@link #contains(int)} (O(log ranges)) and the task listings (O(tasks)). Not thread-safe.
 */
public final class RestartSet {
    private int[] regions = new int[8];
    private int numRegions;
    private long[] ranges = new long[8]; // PackedRange, sorted by start after finish()
    private int[] rangeVertex = new int[8];
    private int numRanges;
    private int numTasks;

    /** An empty set. */
    public RestartSet() {}

    /** The number of tasks to restart. O(1). */
    public int numTasks() {
        return numTasks;
    }

    /** Whether there is nothing to restart. O(1). */
    public boolean isEmpty() {
        return numTasks == 0;
    }

    /** The number of regions to restart. O(1). */
    public int numRegions() {
        return numRegions;
    }

    /** The {@code i}-th region to restart, ascending by id. O(1). */
    public int region(int i) {
        checkElementIndex(i, numRegions, "region index");
        return regions[i];
    }

    /** The regions to restart, ascending, as a new array (for the scheduling strategy). */
    public int[] regions() {
        return Arrays.copyOf(regions, numRegions);
    }

    /** The number of task ranges. O(1). */
    public int numRanges() {
        return numRanges;
    }

    /** The first task of range {@code i}. O(1). */
    public int rangeStart(int i) {
        checkElementIndex(i, numRanges, "range index");
        return PackedRange.start(ranges[i]);
    }

    /** One past the last task of range {@code i}. O(1). */
    public int rangeEnd(int i) {
        checkElementIndex(i, numRanges, "range index");
        return PackedRange.end(ranges[i]);
    }

    /** The job vertex of range {@code i}. O(1). */
    public int rangeVertex(int i) {
        checkElementIndex(i, numRanges, "range index");
        return rangeVertex[i];
    }

    /** Whether task {@code task} is to be restarted. O(log ranges). */
    public boolean contains(int task) {
        int low = 0;
        int high = numRanges - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (PackedRange.end(ranges[mid]) <= task) {
                low = mid + 1;
            } else if (PackedRange.start(ranges[mid]) > task) {
                high = mid - 1;
            } else {
                return true;
            }
        }
        return false;
    }

    /** Calls {@code action} for every task, ascending. O(tasks). */
    public void forEachTask(IntConsumer action) {
        for (int i = 0; i < numRanges; i++) {
            for (int task = PackedRange.start(ranges[i]);
                    task < PackedRange.end(ranges[i]);
                    task++) {
                action.accept(task);
            }
        }
    }

    /** An iterator over the tasks, ascending. O(1) per task. */
    public PrimitiveIterator.OfInt taskIterator() {
        return new PrimitiveIterator.OfInt() {
            private int range;
            private int next = numRanges == 0 ? 0 : PackedRange.start(ranges[0]);

            @Override
            public boolean hasNext() {
                return range < numRanges;
            }

            @Override
            public int nextInt() {
                if (!hasNext()) {
                    throw new NoSuchElementException("no more tasks in " + RestartSet.this);
                }
                int task = next++;
                if (next == PackedRange.end(ranges[range]) && ++range < numRanges) {
                    next = PackedRange.start(ranges[range]);
                }
                return task;
            }
        };
    }

    /** The tasks, ascending, as a new array. O(tasks). */
    public int[] toTaskArray() {
        int[] tasks = new int[numTasks];
        int[] n = {0};
        forEachTask(task -> tasks[n[0]++] = task);
        return tasks;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("RestartSet{tasks=").append(numTasks);
        text.append(", regions=").append(numRegions).append(", ranges=[");
        int shown = Math.min(numRanges, 16);
        for (int i = 0; i < shown; i++) {
            text.append(i == 0 ? "" : ", ").append(PackedRange.toString(ranges[i]));
        }
        if (shown < numRanges) {
            text.append(", … ").append(numRanges - shown).append(" more");
        }
        return text.append("]}").toString();
    }

    void clear() {
        numRegions = 0;
        numRanges = 0;
        numTasks = 0;
    }

    void addRegion(int region) {
        if (numRegions == regions.length) {
            regions = Arrays.copyOf(regions, 2 * regions.length);
        }
        regions[numRegions++] = region;
    }

    /** Adds non-empty {@code [start, end)} of job vertex {@code v}, disjoint from the others. */
    void addRange(int v, int start, int end) {
        if (numRanges == ranges.length) {
            ranges = Arrays.copyOf(ranges, 2 * ranges.length);
            rangeVertex = Arrays.copyOf(rangeVertex, 2 * rangeVertex.length);
        }
        ranges[numRanges] = PackedRange.of(start, end);
        rangeVertex[numRanges++] = v;
        numTasks += end - start;
    }

    /** Sorts the ranges by start (in place) and merges neighbours within one job vertex. */
    void finish(JobGraph graph) {
        boolean sorted = true;
        for (int i = 1; i < numRanges && sorted; i++) {
            sorted = ranges[i - 1] < ranges[i];
        }
        if (!sorted) {
            LongArrays.quickSort(ranges, 0, numRanges);
            for (int i = 0; i < numRanges; i++) {
                rangeVertex[i] = graph.vertexOfTask(PackedRange.start(ranges[i]));
            }
        }
        int kept = 0;
        for (int i = 0; i < numRanges; i++) {
            if (kept > 0
                    && PackedRange.end(ranges[kept - 1]) == PackedRange.start(ranges[i])
                    && rangeVertex[kept - 1] == rangeVertex[i]) {
                ranges[kept - 1] =
                        PackedRange.of(
                                PackedRange.start(ranges[kept - 1]), PackedRange.end(ranges[i]));
            } else {
                ranges[kept] = ranges[i];
                rangeVertex[kept++] = rangeVertex[i];
            }
        }
        numRanges = kept;
    }
}
