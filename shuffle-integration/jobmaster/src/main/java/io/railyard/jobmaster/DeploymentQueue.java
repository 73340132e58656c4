package io.railyard.jobmaster;

import io.railyard.deployment.DeploymentDescriptors;
import io.railyard.deployment.DeploymentSlices;
import io.railyard.deployment.SliceBudget;
import io.railyard.topology.PackedRange;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.IOException;
import java.util.function.IntUnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The tasks a {@link JobMaster} has scheduled and not deployed yet, deployed in slices of a {@link
 * SliceBudget} ({@link DeploymentSlices}) so that its main thread serves other events in between.
 *
 * <p>Each queued range holds tasks of consecutive regions scheduled at the same attempt. A restart
 * decision between two slices bumps the attempts of the regions it restarts: after {@link
 * #invalidate()}, the tasks not deployed yet are filtered before the next slice, and the tasks of a
 * region whose attempt moved on are dropped (the decision's restart schedules them again) — before
 * any of its descriptors is created, since a stopped producer is unplaced and a descriptor that
 * names it cannot be encoded. Queued ranges are deployed in the order they were added.
 *
 * <p>Not thread-safe: the JobManager's main thread. Memory: two ints and a long per queued range
 * and a {@link DeploymentSlices} over the ranges handed to it; a slice costs what {@link
 * DeploymentSlices#runSlice} costs, a re-filter O(queued ranges).
 */
final class DeploymentQueue {
    private final DeploymentDescriptors descriptors;
    private final IntUnaryOperator currentAttempt;
    private final SliceBudget budget;
    // Ranges queued and not handed to a slicer yet, with the attempt each was scheduled at.
    private final LongArrayList waiting = new LongArrayList();
    private final IntArrayList waitingAttempts = new IntArrayList();
    // The ranges the current slicer covers (in order), with their attempts.
    private final LongArrayList sliced = new LongArrayList();
    private final IntArrayList slicedAttempts = new IntArrayList();
    private @Nullable DeploymentSlices slices;
    private boolean stale;

    /**
     * A queue deploying through {@code descriptors}; {@code currentAttempt} gives a task's current
     * attempt.
     */
    DeploymentQueue(
            DeploymentDescriptors descriptors,
            IntUnaryOperator currentAttempt,
            SliceBudget budget) {
        this.descriptors = descriptors;
        this.currentAttempt = currentAttempt;
        this.budget = budget;
    }

    /**
     * Queues tasks {@code [fromTask, toTask)} of one region, scheduled at {@code attempt}. A range
     * that continues the last one queued at the same attempt extends it, so the million singleton
     * sink regions that one finished source stage schedules are one range, not a million. O(1)
     * amortised.
     */
    void add(int fromTask, int toTask, int attempt) {
        int last = waiting.size() - 1;
        if (last >= 0
                && waitingAttempts.getInt(last) == attempt
                && PackedRange.end(waiting.getLong(last)) == fromTask) {
            waiting.set(last, PackedRange.of(PackedRange.start(waiting.getLong(last)), toTask));
            return;
        }
        waiting.add(PackedRange.of(fromTask, toTask));
        waitingAttempts.add(attempt);
    }

    /**
     * Some queued tasks may have been restarted: check every queued range before the next slice.
     */
    void invalidate() {
        stale = true;
    }

    /** Drops every queued task. */
    void clear() {
        waiting.clear();
        waitingAttempts.clear();
        sliced.clear();
        slicedAttempts.clear();
        slices = null;
        stale = false;
    }

    /** Whether tasks remain to deploy. */
    boolean hasMore() {
        return (slices != null && slices.hasMore()) || !waiting.isEmpty();
    }

    /**
     * Deploys the next slice of queued tasks to {@code consumer}; returns whether tasks remain.
     *
     * @throws IOException as {@link DeploymentSlices#runSlice}; the queue is then cleared (the
     *     tasks after the failed one are not deployed)
     */
    boolean runSlice(DeploymentSlices.DescriptorConsumer consumer) throws IOException {
        if (stale || slices == null || !slices.hasMore()) {
            refill();
        }
        DeploymentSlices current = slices;
        if (current == null) {
            return false;
        }
        try {
            current.runSlice(consumer);
        } catch (IOException | RuntimeException e) {
            clear();
            throw e;
        }
        return hasMore();
    }

    /**
     * Builds the next slicer over what the current one has left and every waiting range, keeping
     * only the tasks whose region is still at the attempt it was scheduled at: checked task by task
     * after {@link #invalidate()} (a range may span regions; O(queued tasks), less than deploying
     * them), by each range's first task otherwise.
     */
    private void refill() {
        LongArrayList ranges = new LongArrayList();
        IntArrayList attempts = new IntArrayList();
        DeploymentSlices current = slices;
        if (current != null && current.hasMore()) {
            int next = current.nextTask();
            boolean reached = false;
            for (int i = 0; i < sliced.size(); i++) {
                long range = sliced.getLong(i);
                if (!reached && PackedRange.start(range) <= next && next < PackedRange.end(range)) {
                    reached = true;
                    range = PackedRange.of(next, PackedRange.end(range));
                }
                if (reached) {
                    keep(range, slicedAttempts.getInt(i), ranges, attempts);
                }
            }
        }
        for (int i = 0; i < waiting.size(); i++) {
            keep(waiting.getLong(i), waitingAttempts.getInt(i), ranges, attempts);
        }
        waiting.clear();
        waitingAttempts.clear();
        sliced.clear();
        slicedAttempts.clear();
        sliced.addAll(ranges);
        slicedAttempts.addAll(attempts);
        stale = false;
        slices =
                ranges.isEmpty()
                        ? null
                        : DeploymentSlices.overRanges(
                                descriptors, ranges.toLongArray(), currentAttempt, budget);
    }

    private void keep(long range, int attempt, LongArrayList ranges, IntArrayList attempts) {
        int start = PackedRange.start(range);
        int end = PackedRange.end(range);
        if (!stale) {
            if (start < end && currentAttempt.applyAsInt(start) == attempt) {
                ranges.add(range);
                attempts.add(attempt);
            }
            return;
        }
        int runStart = -1; // first task of the current run of tasks still at the attempt
        for (int task = start; task <= end; task++) {
            boolean current = task < end && currentAttempt.applyAsInt(task) == attempt;
            if (current && runStart < 0) {
                runStart = task;
            } else if (!current && runStart >= 0) {
                ranges.add(PackedRange.of(runStart, task));
                attempts.add(attempt);
                runStart = -1;
            }
        }
    }
}
