package io.railyard.regions.scheduling;

import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.TaskRangeCursor;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedInts;
import io.railyard.topology.PackedRange;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.ints.IntOpenHashSet;
import java.util.function.IntConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Which consumed partition groups gate which regions: the static half of scheduling, shared by the
 * scheduling strategy and failover. Built once per job by {@link #of(PipelinedRegions)}.
 *
 * <h2>Kinds of groups</h2>
 *
 * A group of an edge whose type must be consumed pipelined is {@link #PIPELINED}: it never leaves a
 * region and never gates one. Every other group (BLOCKING, HYBRID_FULL, HYBRID_SELECTIVE) is
 *
 * <ul>
 *   <li>{@link #INTERNAL} when all its producers and consumers are in one region;
 *   <li>{@link #PLAIN} when none of its consumer regions produces any of its partitions: it gates
 *       every consumer with one counter of not-yet-ready partitions;
 *   <li>{@link #CROSS} otherwise (only after cycle merging): the group is partly produced inside a
 *       consuming region, which counts only the partitions produced outside it. Such a group keeps
 *       one entry per consumer region with outside partitions.
 * </ul>
 *
 * <h2>Input count</h2>
 *
 * A region's {@link #inputCount(int) input count} is how many gating inputs it starts with: one per
 * (consuming task, PLAIN group) pair and one per CROSS entry. Counting pairs instead of distinct
 * groups lets a group that becomes consumable walk its consumer range without deduplication.
 *
 * <p>Building is O(tasks + groups + consumers of the non-pipelined groups), plus their partitions
 * where producers and consumers may share a region (one logical region, or merged cycles); memory
 * is two bits per group, the input counts in the fewest power-of-two bits that hold the largest
 * ({@link PackedInts}: one bit per region when every region has at most one input), and two ints
 * per CROSS entry. Immutable and thread-safe.
 */
public final class RegionInputs {
    /** Kind of a group of a must-be-pipelined edge. */
    public static final byte PIPELINED = 0;

    /** Kind of a non-pipelined group whose producers and consumers share one region. */
    public static final byte INTERNAL = 1;

    /** Kind of a non-pipelined group whose producers are all outside its consumer regions. */
    public static final byte PLAIN = 2;

    /** Kind of a non-pipelined group partly produced inside one of its consumer regions. */
    public static final byte CROSS = 3;

    private final PipelinedRegions regions;
    private final ExecutionTopology topology;
    private final JobGraph graph;
    private final PackedInts kind; // per group, two bits
    private final PackedInts inputCount; // per region

    /** CROSS entries of group g are {@code [crossStart[g], crossStart[g + 1])}; null if none. */
    private final int @Nullable [] crossStart;

    private final int[] crossRegion;
    private final int[] crossOutside;

    private RegionInputs(
            PipelinedRegions regions,
            PackedInts kind,
            PackedInts inputCount,
            int @Nullable [] crossStart,
            int[] crossRegion,
            int[] crossOutside) {
        this.regions = regions;
        this.topology = regions.topology();
        this.graph = topology.jobGraph();
        this.kind = kind;
        this.inputCount = inputCount;
        this.crossStart = crossStart;
        this.crossRegion = crossRegion;
        this.crossOutside = crossOutside;
    }

    /** Classifies every group of {@code regions}' topology. See the class notes for cost. */
    public static RegionInputs of(PipelinedRegions regions) {
        return new Classifier(regions).classify();
    }

    /** The regions these inputs gate. */
    public PipelinedRegions regions() {
        return regions;
    }

    /** The kind of group {@code group}: {@link #PIPELINED}, {@link #INTERNAL}, ... O(1). */
    public byte kind(int group) {
        checkElementIndex(group, kind.size(), "group");
        return (byte) kind.get(group);
    }

    /** The number of gating inputs region {@code region} starts with (class notes). O(1). */
    public int inputCount(int region) {
        checkElementIndex(region, inputCount.size(), "region");
        return inputCount.get(region);
    }

    /**
     * Every region's input count, as a new mutable copy: the scheduling strategy's starting
     * counters. O(regions × bits / 64).
     */
    public PackedInts copyInputCounts() {
        return inputCount.copy();
    }

    /** The number of CROSS entries over all groups. O(1). */
    public int numCrossEntries() {
        return crossRegion.length;
    }

    /** The first CROSS entry of group {@code group}; entries run to {@link #crossEnd}. O(1). */
    public int crossStart(int group) {
        int[] starts = crossStart;
        return starts == null ? 0 : starts[group];
    }

    /** The end (exclusive) of the CROSS entries of group {@code group}. O(1). */
    public int crossEnd(int group) {
        int[] starts = crossStart;
        return starts == null ? 0 : starts[group + 1];
    }

    /** The consumer region of CROSS entry {@code entry}. O(1). */
    public int crossRegion(int entry) {
        return crossRegion[entry];
    }

    /** The number of the entry's group's partitions produced outside its region. O(1). */
    public int crossOutsidePartitions(int entry) {
        return crossOutside[entry];
    }

    /**
     * Calls {@code action} once for every external consumed partition group of region {@code
     * region}: a non-pipelined group read by a task of the region with at least one partition
     * produced outside it. O(tasks of the region × their input edges + CROSS entries of the groups
     * met); allocates a set of the result's size and a task range cursor.
     */
    public void forEachExternalInputGroup(int region, IntConsumer action) {
        IntOpenHashSet seen = new IntOpenHashSet();
        TaskRangeCursor cursor = regions.newTaskRangeCursor();
        for (cursor.reset(region); cursor.next(); ) {
            int v = graph.vertexOfTask(cursor.start());
            int first = graph.firstTask(v);
            for (int k = 0; k < graph.numInputEdges(v); k++) {
                int e = graph.inputEdge(v, k);
                for (int task = cursor.start(); task < cursor.end(); task++) {
                    int group = topology.consumedGroupOnEdge(e, task - first);
                    if (isExternalTo(group, region) && seen.add(group)) {
                        action.accept(group);
                    }
                }
            }
        }
    }

    private boolean isExternalTo(int group, int region) {
        if (kind(group) == PLAIN) {
            return true;
        }
        if (kind(group) == CROSS) {
            for (int entry = crossStart(group); entry < crossEnd(group); entry++) {
                if (crossRegion[entry] == region) {
                    return true;
                }
            }
        }
        return false;
    }

    /** One pass over the groups; the temporaries are dropped after {@link #classify()}. */
    private static final class Classifier {
        private final PipelinedRegions regions;
        private final ExecutionTopology topology;
        private final JobGraph graph;
        private final PackedInts kind;
        private final PackedInts inputCount;
        // per region, allocated by the first group whose vertices may share a region:
        private int @Nullable [] producedInRegion; // for the current group; reset after
        private int @Nullable [] consumerStamp; // group + 1 when seen as a consumer
        private int @Nullable [] crossStart;
        private final IntArrayList crossRegion = new IntArrayList();
        private final IntArrayList crossOutside = new IntArrayList();
        private final IntArrayList touched = new IntArrayList();

        Classifier(PipelinedRegions regions) {
            this.regions = regions;
            this.topology = regions.topology();
            this.graph = topology.jobGraph();
            this.kind = PackedInts.withMaxValue(topology.numGroups(), CROSS);
            this.inputCount = PackedInts.zeros(regions.numRegions());
        }

        RegionInputs classify() {
            for (int e = 0; e < graph.numEdges(); e++) {
                boolean pipelined = graph.edgeResultType(e).mustBePipelinedConsumed();
                for (int g = topology.firstGroup(e);
                        g < topology.firstGroup(e) + topology.numGroups(e);
                        g++) {
                    kind.set(g, pipelined ? PIPELINED : classify(e, g));
                    if (crossStart != null) {
                        crossStart[g + 1] = crossRegion.size();
                    }
                }
            }
            return new RegionInputs(
                    regions,
                    kind,
                    inputCount,
                    crossStart,
                    crossRegion.toIntArray(),
                    crossOutside.toIntArray());
        }

        /**
         * O(consumers of the group) when its producer and consumer vertices share no region (the
         * group is PLAIN without looking at its partitions), else O(partitions + consumers).
         */
        private byte classify(int e, int g) {
            int producer = graph.edgeProducer(e);
            int consumer = graph.edgeConsumer(e);
            int firstConsumer = graph.firstTask(consumer);
            long consumers = topology.consumerRange(g);
            byte result =
                    regions.disjointRegions(producer, consumer)
                            ? PLAIN
                            : classifyByMembers(e, g, producer, consumer);
            if (result == PLAIN) {
                for (int c = PackedRange.start(consumers); c < PackedRange.end(consumers); c++) {
                    inputCount.add(regions.regionOf(consumer, c - firstConsumer), 1);
                }
            }
            return result;
        }

        /** Counts the group's partitions per producing region; adds CROSS entries. */
        private byte classifyByMembers(int e, int g, int producer, int consumer) {
            int[] produced = producedInRegion();
            int firstPartition = graph.firstPartition(graph.edgeDataSet(e));
            int firstConsumer = graph.firstTask(consumer);
            long partitions = topology.partitionRange(g);
            long consumers = topology.consumerRange(g);
            for (int p = PackedRange.start(partitions); p < PackedRange.end(partitions); p++) {
                int region = regions.regionOf(producer, p - firstPartition);
                if (produced[region]++ == 0) {
                    touched.add(region);
                }
            }
            boolean cross = false;
            boolean internal = touched.size() == 1;
            for (int c = PackedRange.start(consumers); c < PackedRange.end(consumers); c++) {
                int region = regions.regionOf(consumer, c - firstConsumer);
                cross |= produced[region] > 0;
                internal &= produced[region] == PackedRange.size(partitions);
            }
            byte result = internal ? INTERNAL : cross ? CROSS : PLAIN;
            if (result == CROSS) {
                addCrossEntries(g, consumer, firstConsumer, partitions, consumers);
            }
            for (int i = 0; i < touched.size(); i++) {
                produced[touched.getInt(i)] = 0;
            }
            touched.clear();
            return result;
        }

        /** The per-region partition counts, allocated by the first group that needs them. */
        private int[] producedInRegion() {
            int[] produced = producedInRegion;
            if (produced == null) {
                produced = producedInRegion = new int[regions.numRegions()];
            }
            return produced;
        }

        private void addCrossEntries(
                int g, int consumer, int firstConsumer, long partitions, long consumers) {
            int[] produced = producedInRegion();
            if (crossStart == null) {
                crossStart = new int[kind.size() + 1]; // earlier groups: no entries, all zero
            }
            int[] stamps = consumerStamp;
            if (stamps == null) {
                stamps = consumerStamp = new int[regions.numRegions()];
            }
            for (int c = PackedRange.start(consumers); c < PackedRange.end(consumers); c++) {
                int region = regions.regionOf(consumer, c - firstConsumer);
                int outside = PackedRange.size(partitions) - produced[region];
                if (stamps[region] != g + 1 && outside > 0) {
                    stamps[region] = g + 1;
                    crossRegion.add(region);
                    crossOutside.add(outside);
                    inputCount.add(region, 1);
                }
            }
        }
    }
}
