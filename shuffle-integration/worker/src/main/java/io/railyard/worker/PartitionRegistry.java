package io.railyard.worker;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The result partitions one worker holds, by id: a producer registers each partition once it is
 * readable, a consumer — on this worker or, through a {@link PartitionLocator}, on another — finds
 * it, and the JobManager releases it. Flink's counterpart is a TaskManager's result-partition
 * manager.
 *
 * <ul>
 *   <li>A consumer may ask before the producer registered the partition (both deployed in one step,
 *       the consumer's slot first — Flink's consumers retry a partition request likewise): {@link
 *       #await} waits for it while its producer may still come: as long as a live producer deployed
 *       here said it will register it ({@link #expect}) — one that waits for a slot or for network
 *       memory is not dead, and those waits are bounded — and otherwise until neither it nor any
 *       other partition was registered here for {@value #WAIT_MILLIS} ms (a worker that is slow
 *       because it is loaded still registers partitions; one whose producer never comes does not).
 *   <li>A released partition is gone for good: asking for it fails at once with {@link
 *       PartitionLostException}, naming it.
 *   <li>A producer that is cancelled must not leave a partition behind: {@link #register} refuses
 *       it once its cancellation has run through {@link #cancel} (the caller releases it).
 * </ul>
 *
 * <p>Thread-safe: one monitor guards the registry; waiting consumers wait on it (and re-check their
 * own cancellation at least every 50 ms). A partition's release runs outside the monitor.
 * Operations are O(1) but {@link #releaseAll}, O(partitions). Memory: an entry per registered,
 * released and expected partition.
 */
public final class PartitionRegistry {
    /** How long {@link #await} waits without any partition registered here, by default. */
    public static final long WAIT_MILLIS = 30_000;

    private static final long RECHECK_MILLIS = 50;

    private final long waitNanos;

    @GuardedBy("this")
    private long lastRegisteredNanos = System.nanoTime();

    @GuardedBy("this")
    private final Map<PartitionId, ResultPartition> partitions = new HashMap<>();

    @GuardedBy("this")
    private final Set<PartitionId> released = new HashSet<>();

    // The partitions producers deployed here will register, with who will (expect).
    @GuardedBy("this")
    private final Map<PartitionId, Producer> expected = new HashMap<>();

    // Who waits for a partition to be registered or released (whenThere).
    @GuardedBy("this")
    private final Map<PartitionId, List<Runnable>> waiters = new HashMap<>();

    /** Who registers a partition: the task attempt that produced it. */
    public interface Producer {
        /** Whether the attempt was cancelled (read under the registry's monitor). */
        boolean isCancelled();
    }

    /** What waits for a partition: a task attempt that gives up when it is cancelled. */
    public interface Waiter {
        /**
         * Throws if the waiting attempt was cancelled or lost its worker.
         *
         * @throws RuntimeException the attempt's cancellation or loss
         */
        void checkNotCancelled();
    }

    /** A registry whose {@link #await} gives up after {@value #WAIT_MILLIS} ms without progress. */
    public PartitionRegistry() {
        this(Duration.ofMillis(WAIT_MILLIS));
    }

    /**
     * A registry whose {@link #await} gives up once nothing was registered here for {@code
     * noProgress}.
     *
     * @throws IllegalArgumentException if {@code noProgress} is not positive
     */
    public PartitionRegistry(Duration noProgress) {
        checkArgument(
                !noProgress.isNegative() && !noProgress.isZero(),
                "noProgress must be positive, was %s",
                noProgress);
        this.waitNanos = noProgress.toNanos();
    }

    /**
     * Makes {@code partition} readable as {@code id}; false (nothing registered) if {@code
     * producer} was cancelled: its partitions are released as it is cancelled, so one it finishes
     * afterwards must not stay behind — the caller releases it.
     */
    public boolean register(PartitionId id, ResultPartition partition, Producer producer) {
        List<Runnable> wake;
        synchronized (this) {
            if (producer.isCancelled()) {
                return false;
            }
            partitions.put(id, partition);
            expected.remove(id);
            lastRegisteredNanos = System.nanoTime();
            notifyAll();
            wake = waiters.remove(id);
        }
        runAll(wake);
        return true;
    }

    /**
     * {@code producer}, deployed on this worker, will register {@code id} unless it ends first: a
     * wait for {@code id} does not give up while it is expected and {@code producer} is not
     * cancelled. Ends with {@link #register} or {@link #withdraw}. O(1).
     */
    public synchronized void expect(PartitionId id, Producer producer) {
        expected.put(id, producer);
    }

    /**
     * The producer that said it will register {@code id} ended without doing so: waits for it give
     * up as for a partition nobody said it will register. Idempotent. O(1).
     */
    public synchronized void withdraw(PartitionId id) {
        expected.remove(id);
    }

    /** Whether a live producer deployed here will still register {@code id} (under the monitor). */
    @GuardedBy("this")
    private boolean isComing(PartitionId id) {
        Producer producer = expected.get(id);
        return producer != null && !producer.isCancelled();
    }

    private static void runAll(@Nullable List<Runnable> listeners) {
        if (listeners != null) {
            for (Runnable listener : listeners) {
                listener.run();
            }
        }
    }

    /**
     * The partition {@code id} if it is registered, or null if it is not yet: {@link #await}
     * without waiting, for a task that must not hold a thread. O(1).
     *
     * @throws PartitionLostException naming {@code id}, if it was released
     */
    public synchronized @Nullable ResultPartition find(PartitionId id)
            throws PartitionLostException {
        ResultPartition partition = partitions.get(id);
        if (partition == null && released.contains(id)) {
            throw new PartitionLostException(id, "it was released", null);
        }
        return partition;
    }

    /**
     * Runs {@code listener} once {@code id} is registered or released here — at once, on this
     * thread, if it is already; else on the registering or releasing thread, outside the registry's
     * monitor. O(1).
     */
    public void whenThere(PartitionId id, Runnable listener) {
        synchronized (this) {
            if (!partitions.containsKey(id) && !released.contains(id)) {
                waiters.computeIfAbsent(id, k -> new ArrayList<>(1)).add(listener);
                return;
            }
        }
        listener.run();
    }

    /**
     * Checks a wait for a partition that began at {@code sinceNanos} ({@link System#nanoTime}): it
     * gives up once no live producer deployed here is expected to register it and neither it nor
     * any other partition was registered here for the registry's wait, as {@link #await} does.
     * O(1).
     *
     * @throws PartitionLostException naming {@code id}, if the wait gives up
     */
    public synchronized void checkWait(PartitionId id, long sinceNanos)
            throws PartitionLostException {
        if (!isComing(id)
                && Math.max(sinceNanos, lastRegisteredNanos) + waitNanos - System.nanoTime() <= 0) {
            throw noProducer(id);
        }
    }

    /** How long a wait for a partition lasts without any registration here, in nanoseconds. */
    public long waitNanos() {
        return waitNanos;
    }

    private PartitionLostException noProducer(PartitionId id) {
        return new PartitionLostException(
                id,
                "no producer registered it or will (none deployed on this worker), and no other"
                        + " partition was registered on this worker, for "
                        + TimeUnit.NANOSECONDS.toMillis(waitNanos)
                        + " ms",
                null);
    }

    /**
     * Runs {@code cancellation} (which cancels a producer) under the registry's monitor, so that a
     * {@link #register} of that producer either happened before (its partition is then released by
     * the caller's release requests) or is refused.
     */
    public synchronized void cancel(Runnable cancellation) {
        cancellation.run();
    }

    /**
     * The partition {@code id}, waiting for it if it is not registered yet; see the class notes.
     *
     * @throws PartitionLostException naming {@code id}, if it was released, or if no live producer
     *     deployed here was expected to register it and neither it nor any other partition was
     *     registered here for the registry's wait while it waited
     * @throws InterruptedException if the thread was interrupted while waiting
     * @throws RuntimeException {@code waiter}'s cancellation, checked while waiting
     */
    public synchronized ResultPartition await(PartitionId id, Waiter waiter)
            throws PartitionLostException, InterruptedException {
        long since = System.nanoTime();
        while (true) {
            ResultPartition partition = partitions.get(id);
            if (partition != null) {
                return partition;
            }
            if (released.contains(id)) {
                throw new PartitionLostException(id, "it was released", null);
            }
            // Progress refreshes the deadline: the last registration here, if after the wait began.
            long left = Math.max(since, lastRegisteredNanos) + waitNanos - System.nanoTime();
            if (left <= 0) {
                if (!isComing(id)) {
                    throw noProducer(id);
                }
                left = TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS); // its producer may still come
            }
            waiter.checkNotCancelled();
            wait(Math.max(1, Math.min(RECHECK_MILLIS, TimeUnit.NANOSECONDS.toMillis(left))));
        }
    }

    /**
     * Releases {@code id}: its memory and files go, and asking for it fails from now on.
     * Idempotent.
     *
     * @return whether it was registered
     * @throws IOException if its files cannot be deleted (the worker's leak count shows them)
     */
    public boolean release(PartitionId id) throws IOException {
        ResultPartition partition;
        List<Runnable> wake;
        synchronized (this) {
            released.add(id);
            expected.remove(id);
            partition = partitions.remove(id);
            notifyAll();
            wake = waiters.remove(id);
        }
        runAll(wake);
        if (partition == null) {
            return false;
        }
        partition.release();
        return true;
    }

    /**
     * Releases every registered partition, as {@link #release} does each.
     *
     * @return the ids released, in no particular order
     * @throws IOException the first failure to delete a partition's files, the later ones
     *     suppressed in it; every partition is released nevertheless
     */
    public List<PartitionId> releaseAll() throws IOException {
        List<PartitionId> ids;
        synchronized (this) {
            ids = new ArrayList<>(partitions.keySet());
        }
        IOException failure = null;
        for (PartitionId id : ids) {
            try {
                release(id);
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return ids;
    }

    /** Partitions registered and not released. */
    public synchronized int size() {
        return partitions.size();
    }
}
