package io.railyard.jobmaster;

import io.railyard.deployment.DeploymentDescriptors;
import io.railyard.deployment.DeploymentSlices;
import io.railyard.deployment.SliceBudget;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.TaskRangeCursor;
import io.railyard.topology.PackedRange;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.IOException;
import java.util.function.IntUnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The regions a {@link JobMaster} has scheduled and not deployed yet, deployed in slices of a
 * {@link SliceBudget} ({@link DeploymentSlices}) so that its main thread serves other events in
 * between.
 *
 * <p>Regions are queued as runs of consecutive ids scheduled at one attempt, and turned into task
 * ranges a chunk of about {@value #CHUNK_TASKS} tasks at a time, when the slices reach them: what
 * is queued costs two longs and an int per run, not a range per region and vertex (a pointwise
 * chain at P = 1,000,000 schedules a million regions of four vertices at its start). A region is
 * expanded only if it is still at the attempt it was queued at; a restart decision between two
 * slices bumps the attempts of the regions it restarts, so those are dropped (the decision's
 * restart schedules them again) before any of their descriptors is created, since a stopped
 * producer is unplaced and a descriptor that names it cannot be encoded. After {@link
 * #invalidate()} the chunk already expanded is filtered task by task. Regions are deployed in the
 * order they were added.
 *
 * <p>Not thread-safe: the JobManager's main thread. Memory: a long and an int per queued run, and
 * the current chunk's ranges (a {@link DeploymentSlices} over them); a slice costs what {@link
 * DeploymentSlices#runSlice} costs plus O(regions expanded), a re-filter O(chunk tasks).
 */
final class DeploymentQueue {
    /** Tasks expanded into ranges at a time (a chunk ends a slice early at most once). */
    static final int CHUNK_TASKS = 1 << 16;

    private final DeploymentDescriptors descriptors;
    private final IntUnaryOperator currentAttempt;
    private final SliceBudget budget;
    private final TaskRangeCursor cursor;
    // Regions queued and not expanded yet: runs of consecutive region ids (PackedRange) with the
    // attempt they were scheduled at; the runs before `head`, and the regions of run `head` before
    // `next`, are expanded.
    private final LongArrayList runs = new LongArrayList();
    private final IntArrayList runAttempts = new IntArrayList();
    private int head;
    private int next;
    // The task ranges the current slicer covers (in order), with their attempts.
    private LongArrayList sliced = new LongArrayList();
    private IntArrayList slicedAttempts = new IntArrayList();
    private @Nullable DeploymentSlices slices;
    private boolean stale;

    /**
     * A queue deploying the tasks of {@code regions} through {@code descriptors}; {@code
     * currentAttempt} gives a task's current attempt.
     */
    DeploymentQueue(
            DeploymentDescriptors descriptors,
            PipelinedRegions regions,
            IntUnaryOperator currentAttempt,
            SliceBudget budget) {
        this.descriptors = descriptors;
        this.cursor = regions.newTaskRangeCursor();
        this.currentAttempt = currentAttempt;
        this.budget = budget;
    }

    /**
     * Queues region {@code region}, scheduled at {@code attempt}; a region that continues the last
     * run queued at the same attempt extends it. O(1) amortised.
     */
    void add(int region, int attempt) {
        append(PackedRange.of(region, region + 1), attempt, runs, runAttempts);
    }

    /**
     * Some queued tasks may have been restarted: check the expanded ones before the next slice (the
     * others are checked when they are expanded).
     */
    void invalidate() {
        stale = true;
    }

    /** Drops every queued task. */
    void clear() {
        runs.clear();
        runAttempts.clear();
        head = 0;
        next = 0;
        sliced.clear();
        slicedAttempts.clear();
        slices = null;
        stale = false;
    }

    /** Whether tasks remain to deploy. */
    boolean hasMore() {
        return (slices != null && slices.hasMore()) || head < runs.size();
    }

    /**
     * Deploys the next slice of queued tasks to {@code consumer}; returns whether tasks remain.
     *
     * @throws FailedDeploy if creating a task's descriptor or shipping it failed: the slice stops
     *     there and that task stays the next one, until its failure is handled — a restart bumps
     *     its attempt (call {@link #invalidate()}), a failed job {@link #clear()}s the queue
     * @throws RuntimeException as {@link DeploymentSlices#runSlice}; the queue is then cleared
     */
    boolean runSlice(DeploymentSlices.DescriptorConsumer consumer) throws FailedDeploy {
        if (stale || slices == null || !slices.hasMore()) {
            refill();
        }
        DeploymentSlices current = slices;
        if (current == null) {
            return false;
        }
        try {
            current.runSlice(consumer);
        } catch (IOException e) {
            int task = current.nextTask();
            throw new FailedDeploy(task, currentAttempt.applyAsInt(task), e);
        } catch (RuntimeException e) {
            clear();
            throw e;
        }
        return hasMore();
    }

    /** Attempt {@link #attempt} of task {@link #task} could not be deployed: the cause says why. */
    static final class FailedDeploy extends Exception {
        private static final long serialVersionUID = 1L;

        final int task;
        final int attempt;
        final IOException failure;

        FailedDeploy(int task, int attempt, IOException failure) {
            super("task " + task + " attempt " + attempt + " could not be deployed", failure);
            this.task = task;
            this.attempt = attempt;
            this.failure = failure;
        }
    }

    /**
     * Builds the next slicer over what the current one has left — only the tasks whose region is
     * still at the attempt it was scheduled at, checked task by task after {@link #invalidate()} —
     * and the next queued regions, expanded until the chunk holds {@value #CHUNK_TASKS} tasks.
     */
    private void refill() {
        LongArrayList ranges = new LongArrayList();
        IntArrayList attempts = new IntArrayList();
        long tasks = 0;
        DeploymentSlices current = slices;
        if (current != null && current.hasMore()) {
            int nextTask = current.nextTask();
            boolean reached = false;
            for (int i = 0; i < sliced.size(); i++) {
                long range = sliced.getLong(i);
                if (!reached
                        && PackedRange.start(range) <= nextTask
                        && nextTask < PackedRange.end(range)) {
                    reached = true;
                    range = PackedRange.of(nextTask, PackedRange.end(range));
                }
                if (reached) {
                    tasks += keep(range, slicedAttempts.getInt(i), ranges, attempts);
                }
            }
        }
        stale = false;
        while (tasks < CHUNK_TASKS && head < runs.size()) {
            long run = runs.getLong(head);
            int attempt = runAttempts.getInt(head);
            int region = PackedRange.start(run) + next;
            if (++next == PackedRange.size(run)) {
                head++;
                next = 0;
            }
            tasks += expand(region, attempt, ranges, attempts);
        }
        if (head == runs.size()) {
            runs.clear();
            runAttempts.clear();
            head = 0;
        }
        sliced = ranges;
        slicedAttempts = attempts;
        slices =
                ranges.isEmpty()
                        ? null
                        : DeploymentSlices.overRanges(
                                descriptors, ranges.toLongArray(), currentAttempt, budget);
    }

    /**
     * Appends the task ranges of {@code region} if it is still at {@code attempt}, each merged into
     * the range before it where they touch at the same attempt; returns the tasks added.
     */
    private int expand(int region, int attempt, LongArrayList ranges, IntArrayList attempts) {
        cursor.reset(region);
        int added = 0;
        while (cursor.next()) {
            if (added == 0 && currentAttempt.applyAsInt(cursor.start()) != attempt) {
                return 0; // restarted since it was queued: its restart queues it again
            }
            append(PackedRange.of(cursor.start(), cursor.end()), attempt, ranges, attempts);
            added += cursor.end() - cursor.start();
        }
        return added;
    }

    /**
     * Appends the tasks of {@code range} still at {@code attempt}: all of them unless {@link
     * #invalidate()} was called, else checked task by task. Returns the tasks kept.
     */
    private int keep(long range, int attempt, LongArrayList ranges, IntArrayList attempts) {
        int start = PackedRange.start(range);
        int end = PackedRange.end(range);
        if (!stale) {
            append(range, attempt, ranges, attempts);
            return end - start;
        }
        int kept = 0;
        int runStart = -1; // first task of the current run of tasks still at the attempt
        for (int task = start; task <= end; task++) {
            boolean current = task < end && currentAttempt.applyAsInt(task) == attempt;
            if (current && runStart < 0) {
                runStart = task;
            } else if (!current && runStart >= 0) {
                append(PackedRange.of(runStart, task), attempt, ranges, attempts);
                kept += task - runStart;
                runStart = -1;
            }
        }
        return kept;
    }

    private static void append(
            long range, int attempt, LongArrayList ranges, IntArrayList attempts) {
        int last = ranges.size() - 1;
        if (last >= 0
                && attempts.getInt(last) == attempt
                && PackedRange.end(ranges.getLong(last)) == PackedRange.start(range)) {
            ranges.set(
                    last,
                    PackedRange.of(
                            PackedRange.start(ranges.getLong(last)), PackedRange.end(range)));
        } else {
            ranges.add(range);
            attempts.add(attempt);
        }
    }
}
