package io.railyard.failover;

import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.TaskRangeCursor;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.topology.FixedBits;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import java.util.Arrays;

/**
 * The tasks to restart when a task fails, by the region rules of FLIP-1 (those of Apache Flink's
 * {@code RestartPipelinedRegionFailoverStrategy}):
 *
 * <ol>
 *   <li>the failed task's region restarts;
 *   <li>if a region restarts, the producer region of every partition it consumes that is not
 *       available restarts — not available means not yet produced, lost or released ({@link
 *       PartitionAvailability}), or of a type that cannot be re-read after a failure (PIPELINED,
 *       PIPELINED_BOUNDED, HYBRID_SELECTIVE);
 *   <li>if a region restarts, every region consuming from it restarts.
 * </ol>
 *
 * <h2>Cost</h2>
 *
 * A breadth-first walk over regions. Each consumed partition group is expanded (its partitions
 * asked for availability, a word of 64 at a time) at most once, and each consumer vertex group (its
 * consumers' regions visited) at most once, per failure; a region's task ranges are turned into
 * group ranges arithmetically, so nothing is done per task-level connection. One call is
 * O(restarted regions' task ranges × their edges + groups expanded + their partitions and
 * consumers), each step O(1) for up to 512 job vertices and edges of comparable size and at worst a
 * job-vertex or edge lookup, O(log V) or O(log E). Visited regions and groups are a bit each,
 * cleared before the call returns (regions as the result is listed, groups by walking the expanded
 * items' group ranges again); the queue of items (a region, or a run of singleton regions; a run
 * that continues the last queued one extends it) grows on demand and is short when runs form. So
 * the per-region and per-group state is two bits each, and a call allocates nothing proportional to
 * the job once the queue and the {@link RestartSet} it fills have grown.
 *
 * <p>Not thread-safe: one instance per JobManager main thread. The availability is read, never
 * changed; marking a partition lost is the caller's business.
 */
public final class RegionFailover {
    private static final int INITIAL_ITEMS = 16;

    private final PipelinedRegions regions;
    private final RegionInputs inputs;
    private final ExecutionTopology topology;
    private final JobGraph graph;
    private final PartitionAvailability availability;
    private final boolean[] reconsumable; // per dataset
    private final TaskRangeCursor cursor;

    private final FixedBits consumedSeen; // per group: its partitions were checked in this call
    private final FixedBits consumerSeen; // per group: its consumers were visited in this call
    // Items to expand, FIFO, grown on demand (runs keep them short): a region, or the first of a
    // run; per item the run's job vertex (-1 for one region) and first and last (inclusive)
    // subtask.
    private int[] queue = new int[INITIAL_ITEMS];
    private int[] itemVertex = new int[INITIAL_ITEMS];
    private int[] itemLow = new int[INITIAL_ITEMS];
    private int[] itemHigh = new int[INITIAL_ITEMS];
    private final int[] singletonBase; // per job vertex: PipelinedRegions.singletonRegionBase
    private final FixedBits inRun; // scratch: regions listed through a run item
    private final FixedBits visited; // the regions visited by this call; cleared as they are listed
    private final int[] openStart; // per job vertex: the range being merged, while openStamp
    private final int[] openEnd;
    private final int[] openStamp;
    private final int[] touchedVertices;
    private int numTouched;
    private int epoch;
    private boolean marksDirty; // a call is in progress, or threw before clearing its marks
    private int tail;
    private int head; // the item being expanded; items after it may still grow

    /**
     * Failover over the regions of {@code inputs}, reading {@code availability}. O(regions + groups
     * + job vertices) time and int arrays of that size.
     */
    public RegionFailover(RegionInputs inputs, PartitionAvailability availability) {
        this.inputs = inputs;
        this.regions = inputs.regions();
        this.topology = regions.topology();
        this.graph = topology.jobGraph();
        this.availability = availability;
        this.reconsumable = new boolean[graph.numDataSets()];
        for (int d = 0; d < reconsumable.length; d++) {
            reconsumable[d] = graph.resultType(d).isReconsumable();
        }
        this.cursor = regions.newTaskRangeCursor();
        this.consumedSeen = new FixedBits(topology.numGroups());
        this.consumerSeen = new FixedBits(topology.numGroups());
        this.singletonBase = new int[graph.numJobVertices()];
        for (int v = 0; v < singletonBase.length; v++) {
            singletonBase[v] = regions.singletonRegionBase(v);
        }
        this.inRun = new FixedBits(regions.numRegions());
        this.visited = new FixedBits(regions.numRegions());
        this.openStart = new int[graph.numJobVertices()];
        this.openEnd = new int[graph.numJobVertices()];
        this.openStamp = new int[graph.numJobVertices()];
        this.touchedVertices = new int[graph.numJobVertices()];
    }

    /** The regions this failover works on. */
    public PipelinedRegions regions() {
        return regions;
    }

    /**
     * The tasks to restart when task {@code failedTask} fails, as a new {@link RestartSet}.
     *
     * @throws IndexOutOfBoundsException if {@code failedTask} is not a task id
     */
    public RestartSet tasksToRestart(int failedTask) {
        RestartSet result = new RestartSet();
        tasksToRestart(failedTask, result);
        return result;
    }

    /**
     * Fills {@code into} (cleared first) with the tasks to restart when task {@code failedTask}
     * fails. See the class notes for the cost.
     *
     * @throws IndexOutOfBoundsException if {@code failedTask} is not a task id
     */
    public void tasksToRestart(int failedTask, RestartSet into) {
        checkElementIndex(failedTask, graph.numTasks(), "failedTask");
        if (marksDirty) { // an earlier call threw before it cleared its marks
            visited.clear();
            inRun.clear();
            consumedSeen.clear();
            consumerSeen.clear();
        }
        marksDirty = true;
        nextEpoch();
        tail = 0;
        head = -1;
        visit(regions.regionOf(failedTask));
        for (head = 0; head < tail; head++) {
            if (itemVertex[head] < 0) {
                expand(queue[head]);
            } else {
                expandRange(itemVertex[head], itemLow[head], itemHigh[head]);
            }
        }
        clearGroupMarks();
        collect(into);
        marksDirty = false;
    }

    /** Whether every visited mark is clear, as each call leaves them (for tests). O(marks). */
    boolean marksCleared() {
        return !marksDirty
                && visited.cardinality() == 0
                && inRun.cardinality() == 0
                && consumedSeen.cardinality() == 0
                && consumerSeen.cardinality() == 0;
    }

    private void nextEpoch() {
        if (++epoch == 0) { // after 2^32 calls: forget every mark once
            Arrays.fill(openStamp, 0);
            epoch = 1;
        }
    }

    private void visit(int region) {
        if (!visited.get(region)) {
            visited.set(region);
            ensureItemCapacity();
            itemVertex[tail] = -1;
            queue[tail++] = region;
        }
    }

    /** Grows the item arrays (doubling) so that one more item fits. O(1) amortised. */
    private void ensureItemCapacity() {
        if (tail == queue.length) {
            int capacity = queue.length * 2;
            queue = Arrays.copyOf(queue, capacity);
            itemVertex = Arrays.copyOf(itemVertex, capacity);
            itemLow = Arrays.copyOf(itemLow, capacity);
            itemHigh = Arrays.copyOf(itemHigh, capacity);
        }
    }

    /**
     * Visits the regions of subtasks {@code [from, to)} of job vertex {@code v}. Where each of them
     * is a singleton region with consecutive ids, the unvisited ones are queued as runs, each
     * expanded later as one task range: the 10,000 sinks of a blocking job cost one item, not
     * 10,000.
     */
    private void visitSubtasks(int v, int from, int to) {
        int base = singletonBase[v];
        if (base < 0) {
            for (int s = from; s < to; s++) {
                visit(regions.regionOf(v, s));
            }
            return;
        }
        int runStart = -1;
        for (int s = from; s < to; s++) {
            if (!visited.get(base + s)) {
                visited.set(base + s);
                runStart = runStart < 0 ? s : runStart;
            } else if (runStart >= 0) {
                queueRun(v, base, runStart, s);
                runStart = -1;
            }
        }
        if (runStart >= 0) {
            queueRun(v, base, runStart, to);
        }
    }

    private void queueRun(int v, int base, int from, int to) {
        int last = tail - 1;
        if (last > head && itemVertex[last] == v && itemHigh[last] == from - 1) {
            itemHigh[last] = to - 1; // continues the last run, not expanded yet: one item
            return;
        }
        ensureItemCapacity();
        itemVertex[tail] = v;
        itemLow[tail] = from;
        itemHigh[tail] = to - 1;
        queue[tail++] = base + from;
    }

    /** Applies rules 2 and 3 to region {@code region}, one task range at a time. */
    private void expand(int region) {
        for (cursor.reset(region); cursor.next(); ) {
            int v = graph.vertexOfTask(cursor.start());
            int first = graph.firstTask(v);
            expandRange(v, cursor.start() - first, cursor.end() - 1 - first);
        }
    }

    /** Rules 2 and 3 for subtasks {@code [low, high]} of job vertex {@code v}, edge by edge. */
    private void expandRange(int v, int low, int high) {
        for (int k = 0; k < graph.numInputEdges(v); k++) {
            int e = graph.inputEdge(v, k);
            int last = topology.consumedGroupOnEdge(e, high);
            for (int g = topology.consumedGroupOnEdge(e, low); g <= last; g++) {
                if (isExternal(g) && !consumedSeen.get(g)) {
                    consumedSeen.set(g);
                    visitUnavailableProducers(e, g);
                }
            }
        }
        for (int k = 0; k < graph.numProducedDataSets(v); k++) {
            int d = graph.producedDataSet(v, k);
            for (int j = 0; j < graph.numConsumerEdges(d); j++) {
                int e = graph.consumerEdge(d, j);
                int last = topology.consumerGroupOnEdge(e, high);
                for (int g = topology.consumerGroupOnEdge(e, low); g <= last; g++) {
                    if (isExternal(g) && !consumerSeen.get(g)) {
                        consumerSeen.set(g);
                        visitConsumers(e, g);
                    }
                }
            }
        }
    }

    /** Clears the group marks of this call: the expanded items' group ranges, walked again. */
    private void clearGroupMarks() {
        for (int head = 0; head < tail; head++) {
            if (itemVertex[head] >= 0) {
                clearGroupMarks(itemVertex[head], itemLow[head], itemHigh[head]);
                continue;
            }
            for (cursor.reset(queue[head]); cursor.next(); ) {
                int v = graph.vertexOfTask(cursor.start());
                int first = graph.firstTask(v);
                clearGroupMarks(v, cursor.start() - first, cursor.end() - 1 - first);
            }
        }
    }

    private void clearGroupMarks(int v, int low, int high) {
        for (int k = 0; k < graph.numInputEdges(v); k++) {
            int e = graph.inputEdge(v, k);
            consumedSeen.clear(
                    topology.consumedGroupOnEdge(e, low),
                    topology.consumedGroupOnEdge(e, high) + 1);
        }
        for (int k = 0; k < graph.numProducedDataSets(v); k++) {
            int d = graph.producedDataSet(v, k);
            for (int j = 0; j < graph.numConsumerEdges(d); j++) {
                int e = graph.consumerEdge(d, j);
                consumerSeen.clear(
                        topology.consumerGroupOnEdge(e, low),
                        topology.consumerGroupOnEdge(e, high) + 1);
            }
        }
    }

    /**
     * Whether group {@code g} may link two regions. PIPELINED and INTERNAL groups have all their
     * producers and consumers in one region, so they can add nothing.
     */
    private boolean isExternal(int g) {
        byte kind = inputs.kind(g);
        return kind == RegionInputs.PLAIN || kind == RegionInputs.CROSS;
    }

    /** Rule 2 for one consumed group. */
    private void visitUnavailableProducers(int e, int g) {
        int d = graph.edgeDataSet(e);
        int producer = graph.edgeProducer(e);
        int first = graph.firstPartition(d);
        long partitions = topology.partitionRange(g);
        int start = PackedRange.start(partitions);
        int end = PackedRange.end(partitions);
        if (!reconsumable[d]) {
            visitSubtasks(producer, start - first, end - first);
            return;
        }
        for (int p = availability.nextUnavailable(start, end);
                p < end;
                p = availability.nextUnavailable(p + 1, end)) {
            visitSubtasks(producer, p - first, p - first + 1);
        }
    }

    /** Rule 3 for one consumer vertex group. */
    private void visitConsumers(int e, int g) {
        int consumer = graph.edgeConsumer(e);
        int first = graph.firstTask(consumer);
        long consumers = topology.consumerRange(g);
        visitSubtasks(
                consumer, PackedRange.start(consumers) - first, PackedRange.end(consumers) - first);
    }

    /** Lists the visited regions in id order and their tasks as merged ranges per job vertex. */
    private void collect(RestartSet into) {
        into.clear();
        numTouched = 0;
        int lowest = Integer.MAX_VALUE;
        int count = 0;
        for (int i = 0; i < tail; i++) {
            int size = itemVertex[i] < 0 ? 1 : itemHigh[i] - itemLow[i] + 1;
            lowest = Math.min(lowest, queue[i]);
            count += size;
            if (itemVertex[i] >= 0) { // a run: its tasks are one range, no cursor needed
                int first = graph.firstTask(itemVertex[i]);
                inRun.set(queue[i], queue[i] + size);
                appendRange(into, first + itemLow[i], first + itemHigh[i] + 1);
            }
        }
        int listed = 0;
        for (int region = lowest; ; region = visited.nextSetBit(region)) {
            int end = visited.nextClearBit(region); // a stretch of consecutive visited regions
            visited.clear(region, end);
            into.addRegions(region, end);
            listRegionTasks(into, region, end);
            listed += end - region;
            region = end;
            if (listed == count) {
                break; // not one more nextSetBit: it would scan to the end of the bit set
            }
        }
        for (int i = 0; i < numTouched; i++) {
            int v = touchedVertices[i];
            into.addRange(v, openStart[v], openEnd[v]);
        }
        into.finish(graph);
    }

    /**
     * Lists the tasks of regions {@code [from, to)}: those of run items were listed as one range
     * each already (their stretch of {@link #inRun} is cleared at once), the others through the
     * cursor.
     */
    private void listRegionTasks(RestartSet into, int from, int to) {
        for (int region = from; region < to; ) {
            if (inRun.get(region)) {
                int end = Math.min(inRun.nextClearBit(region), to);
                inRun.clear(region, end);
                region = end;
                continue;
            }
            for (cursor.reset(region); cursor.next(); ) {
                appendRange(into, cursor.start(), cursor.end());
            }
            region++;
        }
    }

    /** Extends the open range of the task's job vertex, or flushes it and opens a new one. */
    private void appendRange(RestartSet into, int start, int end) {
        int v = graph.vertexOfTask(start);
        if (openStamp[v] != epoch) {
            openStamp[v] = epoch;
            touchedVertices[numTouched++] = v;
        } else if (openEnd[v] == start) {
            openEnd[v] = end;
            return;
        } else {
            into.addRange(v, openStart[v], openEnd[v]);
        }
        openStart[v] = start;
        openEnd[v] = end;
    }
}
