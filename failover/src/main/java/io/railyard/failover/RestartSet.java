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
 * order as maximal runs of consecutive ids, and their tasks as maximal ranges of task ids,
 * ascending, each within one job vertex. A job vertex restarted entirely is one range, and its
 * singleton regions one run, however large its parallelism: the 3,000,001 regions a source failure
 * of the 4-stage job restarts at P = 1,000,000 are 3 runs, not 12 MB of ids.
 *
 * <p>Filled by {@link RegionFailover#tasksToRestart(int, RestartSet)}, which reuses the arrays:
 * once they have grown to a job's largest answer, refilling allocates nothing. Reads are O(1)
 * except {@link #region(int)} and {@link #contains(int)} (O(log runs), O(log ranges)) and the
 * listings (O(result)). Not thread-safe.
 */
public final class RestartSet {
    private long[] regionRuns = new long[8]; // PackedRange of region ids, ascending
    private int[] runOffset = new int[8]; // regions before each run
    private int numRuns;
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

    /** The {@code i}-th region to restart, ascending by id. O(log runs). */
    public int region(int i) {
        checkElementIndex(i, numRegions, "region index");
        int low = 0;
        int high = numRuns - 1;
        while (low < high) { // the last run whose offset is <= i
            int mid = (low + high + 1) >>> 1;
            if (runOffset[mid] <= i) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return PackedRange.start(regionRuns[low]) + i - runOffset[low];
    }

    /** The regions to restart, ascending, as a new array. O(regions). */
    public int[] regions() {
        int[] result = new int[numRegions];
        int[] next = {0};
        forEachRegion(region -> result[next[0]++] = region);
        return result;
    }

    /** Calls {@code action} with every region to restart, ascending. O(regions). */
    public void forEachRegion(IntConsumer action) {
        for (int k = 0; k < numRuns; k++) {
            for (int r = PackedRange.start(regionRuns[k]);
                    r < PackedRange.end(regionRuns[k]);
                    r++) {
                action.accept(r);
            }
        }
    }

    /** The number of maximal runs of consecutive region ids. O(1). */
    public int numRegionRuns() {
        return numRuns;
    }

    /** Run {@code k} of region ids, a {@link PackedRange} {@code [first, end)}. O(1). */
    public long regionRun(int k) {
        checkElementIndex(k, numRuns, "region run");
        return regionRuns[k];
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
        numRuns = 0;
        numRegions = 0;
        numRanges = 0;
        numTasks = 0;
    }

    /** Adds regions {@code [from, to)} (non-empty), above every region added before. */
    void addRegions(int from, int to) {
        if (numRuns > 0 && PackedRange.end(regionRuns[numRuns - 1]) == from) {
            regionRuns[numRuns - 1] =
                    PackedRange.of(PackedRange.start(regionRuns[numRuns - 1]), to);
        } else {
            if (numRuns == regionRuns.length) {
                regionRuns = Arrays.copyOf(regionRuns, 2 * regionRuns.length);
                runOffset = Arrays.copyOf(runOffset, 2 * runOffset.length);
            }
            regionRuns[numRuns] = PackedRange.of(from, to);
            runOffset[numRuns++] = numRegions;
        }
        numRegions += to - from;
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
