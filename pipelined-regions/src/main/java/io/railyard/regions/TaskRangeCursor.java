package io.railyard.regions;

import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.topology.PackedRange;
import io.railyard.topology.RangeTable;

/**
 * A reusable cursor over the tasks of one region, as ascending-within-piece ranges of task ids.
 *
 * <pre>{@code
 * TaskRangeCursor cursor = regions.newTaskRangeCursor();   // once
 * for (cursor.reset(region); cursor.next(); ) {
 *     for (int task = cursor.start(); task < cursor.end(); task++) { ... }
 * }
 * }</pre>
 *
 * <p>Visiting a region is O(number of ranges + pre-regions merged into it) and allocates nothing.
 * Each pre-region costs a lookup of its block and each range of a pointwise table block one of its
 * job vertex ({@link io.railyard.topology.RangeTable#indexOf(int)}): O(1) for up to 512 blocks or
 * vertices of comparable size, O(log V) at worst (there are at most V blocks). Every range lies
 * within one job vertex, and a whole job vertex inside a region is one range. Ranges are disjoint
 * but not sorted across job vertices. Not thread-safe: one cursor per thread.
 */
public final class TaskRangeCursor {
    private final PipelinedRegions regions;
    private boolean merged;
    private int singlePreRegion;
    private int nextSlot;
    private int endSlot;
    private int block;
    private byte kind;
    private int local;
    private int period; // TABLE: the period of the region (its members are given for period 0)
    private int position;
    private int positionEnd;
    private int start;
    private int end;

    TaskRangeCursor(PipelinedRegions regions) {
        this.regions = regions;
    }

    /** Starts visiting region {@code region}; call {@link #next()} before reading a range. */
    public void reset(int region) {
        checkElementIndex(region, regions.numRegions(), "region");
        if (regions.preRegionSlotsOfRegion == null) {
            merged = false;
            singlePreRegion = region;
            nextSlot = 0;
            endSlot = 1;
        } else {
            merged = true;
            nextSlot = regions.preRegionSlotsOfRegion.start(region);
            endSlot = regions.preRegionSlotsOfRegion.end(region);
        }
        position = 0;
        positionEnd = 0;
        start = 0;
        end = 0;
    }

    /** Moves to the next range; {@code false} when the region has no more tasks. */
    public boolean next() {
        while (position >= positionEnd) {
            if (nextSlot >= endSlot) {
                return false;
            }
            int[] preRegions = regions.preRegionsOfRegion;
            open(merged && preRegions != null ? preRegions[nextSlot] : singlePreRegion);
            nextSlot++;
        }
        switch (kind) {
            case PipelinedRegions.WHOLE -> {
                long range = regions.graph.taskRange(regions.blockVertices[position++]);
                start = PackedRange.start(range);
                end = PackedRange.end(range);
            }
            case PipelinedRegions.ALIGNED -> {
                start = regions.graph.firstTask(regions.blockVertices[position++]) + local;
                end = start + 1;
            }
            default -> {
                int[] members = regions.memberTasks(block);
                int member = members[position++];
                int v = regions.graph.vertexOfTask(member);
                int periodTasks = regions.periodTasks(v);
                int shift = period * periodTasks;
                start = member + shift;
                end = start + 1;
                int limit = regions.graph.firstTask(v) + shift + periodTasks; // v's in this period
                while (position < positionEnd && members[position] + shift == end && end < limit) {
                    end++;
                    position++;
                }
            }
        }
        return true;
    }

    /** First task of the current range. */
    public int start() {
        return start;
    }

    /** End (exclusive) of the current range. */
    public int end() {
        return end;
    }

    private void open(int preRegion) {
        block = regions.preRegionsOfBlock.indexOf(preRegion);
        kind = regions.blockKind[block];
        local = preRegion - regions.preRegionsOfBlock.start(block);
        if (kind == PipelinedRegions.TABLE) {
            RangeTable members = regions.members(block);
            period = local / members.numRanges();
            position = members.start(local % members.numRanges());
            positionEnd = members.end(local % members.numRanges());
        } else {
            position = regions.vertexSlotsOfBlock.start(block);
            positionEnd = regions.vertexSlotsOfBlock.end(block);
        }
    }
}
