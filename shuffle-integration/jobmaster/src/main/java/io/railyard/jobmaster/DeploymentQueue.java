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
 * <p>Each queued range holds tasks of one region and the attempt the region had when it was
 * scheduled. A restart decision between two slices bumps the attempts of the regions it restarts:
 * after {@link #invalidate()}, the tasks not deployed yet are filtered before the next slice, and a
 * range whose region's attempt moved on is dropped (the decision's restart schedules it again) —
 * before any of its descriptors is created, since a stopped producer is unplaced and a descriptor
 * that names it cannot be encoded. Queued ranges are deployed in the order they were added.
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

    /** Queues tasks {@code [fromTask, toTask)} of one region, scheduled at {@code attempt}. */
    void add(int fromTask, int toTask, int attempt) {
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
     * only the ranges whose region is still at the attempt it was scheduled at.
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
        if (PackedRange.size(range) > 0
                && currentAttempt.applyAsInt(PackedRange.start(range)) == attempt) {
            ranges.add(range);
            attempts.add(attempt);
        }
    }
}
