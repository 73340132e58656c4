package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import io.railyard.topology.PackedRange;
import java.io.IOException;
import java.util.function.IntUnaryOperator;

/**
 * "Deploy these tasks", cut into bounded slices so that the JobManager's main thread can serve
 * other events in between: each {@link #runSlice} creates and encodes the descriptors of the next
 * tasks up to a {@link SliceBudget} and hands each to a {@link DescriptorConsumer}, then returns
 * whether tasks remain. The caller — a main-thread executor — runs one slice per turn, e.g.
 *
 * <pre>{@code
 * DeploymentSlices slices = DeploymentSlices.over(descriptors, 0, numTasks, t -> 0, budget);
 * Runnable step = new Runnable() {
 *     public void run() {
 *         if (slices.runSlice((task, attempt, bytes) -> gateway.deploy(workerOf(task), bytes))) {
 *             mainThread.execute(this); // heartbeats and task events queued meanwhile go first
 *         }
 *     }
 * };
 * }</pre>
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Order and bytes: tasks are deployed in the order of the ranges, each exactly once, with the
 *       bytes {@code descriptors.create(task, attempt).encode()} gives — the same as one loop over
 *       the tasks, only interleavable.
 *   <li>Bound: a slice spends at most {@link SliceBudget#maxTasks()} budget units — one per
 *       descriptor, and for group encoding about one per descriptor's worth of work (see {@link
 *       GroupEncoding}: 16 column values, 4 payload bytes deflated, 32 encoded bytes framed and
 *       offloaded) — and stops early once {@link SliceBudget#maxNanos()} have passed; the clock is
 *       read at the start, after every {@value #CLOCK_STRIDE}th descriptor (a read costs about a
 *       tenth of a descriptor), after every group step (at most 256 units) and at the end, so a
 *       slice overruns its time by at most {@value #CLOCK_STRIDE} descriptors or one step.
 *   <li>Groups: before the descriptor of a task whose input group is not cached and has at least 64
 *       partitions, slices encode that group in steps; it becomes visible (cached, offloaded) only
 *       when finished. The finish — framing the encoded bytes, a CRC32C and, if offloaded, the blob
 *       store's put (a SHA-256 and a copy) — is the one piece a slice cannot cut: it runs in the
 *       slice that has room for its units or, if larger than that, alone at the start of a slice;
 *       O(the group's encoded bytes), ~3 ms for the 1.4 MiB group at P = 1,000,000 (see the scale
 *       report's {@code deploy_all_longest_slice_ms}). A smaller uncached group is encoded by its
 *       descriptor, within that descriptor's unit.
 *   <li>Progress: every slice does at least one step or descriptor.
 *   <li>Failure: if creating a descriptor or the consumer throws, the exception propagates and that
 *       task is the first of the next slice (its descriptor is created again); the tasks before it
 *       stay deployed. A consumer that failed half-way must therefore accept the task again. If a
 *       group's offload fails, its finished encoding stays pending and the next slice retries the
 *       put; if the source fails during a step, the group's encoding starts over.
 *   <li>Between slices the caller may invalidate partitions or restart tasks; later descriptors
 *       then see the new attempts and locations, earlier ones were shipped as they were.
 * </ul>
 *
 * <p>Costs: a slice is O(its units): descriptor creations (see {@link DeploymentDescriptors}),
 * group steps, O(its tasks / {@value #CLOCK_STRIDE} + its steps) clock reads; no allocation beyond
 * the descriptors and the group encodings. Memory: the ranges (two ints each) and six counters. Not
 * thread-safe: the JobManager's main thread, as {@link DeploymentDescriptors}.
 */
public final class DeploymentSlices {
    /** Tasks between two clock reads within a slice. */
    public static final int CLOCK_STRIDE = 16;

    /** Receives each deployed task's encoded descriptor, in deployment order. */
    @FunctionalInterface
    public interface DescriptorConsumer {
        /**
         * Task {@code task}, attempt {@code attempt}, encoded as {@code descriptor} (owned by the
         * consumer from now on).
         *
         * @throws IOException if shipping it failed; the slice stops and the task is retried next
         */
        void accept(int task, int attempt, byte[] descriptor) throws IOException;
    }

    private final DeploymentDescriptors descriptors;
    private final long[] ranges; // PackedRange each, in deployment order
    private final IntUnaryOperator attemptOfTask;
    private final SliceBudget budget;
    private final ByteWriter scratch = new ByteWriter(256); // each descriptor is encoded in it
    private int rangeIndex;
    private int nextTask;
    private long deployedTasks;
    private int slices;
    private long longestSliceNanos;
    private int longestSliceTasks;
    private int mostSliceUnits;
    private long groupEncodingUnits;

    private DeploymentSlices(
            DeploymentDescriptors descriptors,
            long[] ranges,
            IntUnaryOperator attemptOfTask,
            SliceBudget budget) {
        this.descriptors = descriptors;
        this.ranges = ranges;
        this.attemptOfTask = attemptOfTask;
        this.budget = budget;
        skipEmptyRanges(0);
    }

    /**
     * Deploys tasks {@code [fromTask, toTask)} in slices of {@code budget}, each as the attempt
     * {@code attemptOfTask} gives (called once per task, on the main thread, when its descriptor is
     * created). O(1).
     *
     * @throws IllegalArgumentException if the range is not within the job's tasks
     */
    public static DeploymentSlices over(
            DeploymentDescriptors descriptors,
            int fromTask,
            int toTask,
            IntUnaryOperator attemptOfTask,
            SliceBudget budget) {
        checkRange(descriptors, fromTask, toTask);
        return new DeploymentSlices(
                descriptors, new long[] {PackedRange.of(fromTask, toTask)}, attemptOfTask, budget);
    }

    /**
     * Deploys the tasks of {@code packedRanges} ({@link PackedRange}s, e.g. a pipelined region's
     * ranges; copied), range after range, in slices of {@code budget}; attempts as {@link #over}.
     * O(ranges).
     *
     * @throws IllegalArgumentException if a range is not within the job's tasks (naming its index)
     */
    public static DeploymentSlices overRanges(
            DeploymentDescriptors descriptors,
            long[] packedRanges,
            IntUnaryOperator attemptOfTask,
            SliceBudget budget) {
        for (int i = 0; i < packedRanges.length; i++) {
            long range = packedRanges[i];
            checkArgument(
                    PackedRange.end(range) <= descriptors.numTasks(),
                    "range %s of the tasks to deploy, %s, is not within the job's %s tasks",
                    i,
                    PackedRange.toString(range),
                    descriptors.numTasks());
        }
        return new DeploymentSlices(descriptors, packedRanges.clone(), attemptOfTask, budget);
    }

    private static void checkRange(DeploymentDescriptors descriptors, int fromTask, int toTask) {
        checkArgument(
                0 <= fromTask && fromTask <= toTask && toTask <= descriptors.numTasks(),
                "the tasks to deploy, [%s, %s), are not within the job's tasks [0, %s)",
                fromTask,
                toTask,
                descriptors.numTasks());
    }

    /**
     * Creates, encodes and hands to {@code consumer} the descriptors of the next tasks, within the
     * budget; returns whether tasks remain. Returns false at once when none remain.
     *
     * @throws IOException if creating a descriptor (offloading a group) or the consumer fails; the
     *     failed task is the first of the next slice
     */
    public boolean runSlice(DescriptorConsumer consumer) throws IOException {
        if (!hasMore()) {
            return false;
        }
        long start = budget.nanoClock().getAsLong();
        int units = 0;
        int done = 0;
        try {
            while (hasMore() && units < budget.maxTasks()) {
                int task = nextTask;
                ImmutableList<InputDescriptor> inputs = descriptors.readyInputs(task);
                if (inputs == null) {
                    int spent =
                            descriptors.advanceInputEncoding(
                                    task, budget.maxTasks() - units, units == 0);
                    if (spent == DeploymentDescriptors.NO_ROOM) {
                        break;
                    }
                    units += spent;
                    groupEncodingUnits += spent;
                    if (budget.nanoClock().getAsLong() - start >= budget.maxNanos()) {
                        break;
                    }
                    continue;
                }
                int attempt = attemptOfTask.applyAsInt(task);
                consumer.accept(
                        task, attempt, descriptors.create(task, attempt, inputs).encode(scratch));
                advance();
                units++;
                done++;
                if (done % CLOCK_STRIDE == 0
                        && budget.nanoClock().getAsLong() - start >= budget.maxNanos()) {
                    break;
                }
            }
        } finally {
            endSlice(done, units, budget.nanoClock().getAsLong() - start);
        }
        return hasMore();
    }

    private void endSlice(int tasks, int units, long nanos) {
        slices++;
        deployedTasks += tasks;
        if (nanos > longestSliceNanos) {
            longestSliceNanos = nanos;
        }
        longestSliceTasks = Math.max(longestSliceTasks, tasks);
        mostSliceUnits = Math.max(mostSliceUnits, units);
    }

    private void advance() {
        nextTask++;
        if (nextTask == PackedRange.end(ranges[rangeIndex])) {
            skipEmptyRanges(rangeIndex + 1);
        }
    }

    private void skipEmptyRanges(int from) {
        rangeIndex = from;
        while (rangeIndex < ranges.length && PackedRange.size(ranges[rangeIndex]) == 0) {
            rangeIndex++;
        }
        nextTask = rangeIndex < ranges.length ? PackedRange.start(ranges[rangeIndex]) : -1;
    }

    /** Whether tasks remain to deploy. O(1). */
    public boolean hasMore() {
        return rangeIndex < ranges.length;
    }

    /** The next task a slice deploys, or -1 when none remain. O(1). */
    public int nextTask() {
        return nextTask;
    }

    /** Tasks deployed so far, over every slice. */
    public long deployedTasks() {
        return deployedTasks;
    }

    /** Slices run so far (a slice that failed counts; one that had nothing to do does not). */
    public int slices() {
        return slices;
    }

    /** The longest slice so far, in nanoseconds of the budget's clock. */
    public long longestSliceNanos() {
        return longestSliceNanos;
    }

    /** The most tasks one slice deployed so far. */
    public int longestSliceTasks() {
        return longestSliceTasks;
    }

    /**
     * The most budget units one slice spent so far: its descriptors plus its group encoding work
     * (see the class notes). At most {@link SliceBudget#maxTasks()}, except for a slice that did
     * nothing but one group's finish.
     */
    public int mostSliceUnits() {
        return mostSliceUnits;
    }

    /**
     * Budget units spent so far on encoding groups in steps, over every slice: a slice that left it
     * unchanged encoded no group.
     */
    public long groupEncodingUnits() {
        return groupEncodingUnits;
    }
}
