package io.railyard.worker;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where one worker runs its task attempts: {@code slots} attempts at a time, in the order they were
 * deployed (an attempt holds its slot from its start to its end, as a Flink task holds its slot),
 * and their steps on a fixed set of {@code threads} threads shared by all of them — a task never
 * owns a thread ({@link TaskCode}: it runs while it can go on and yields otherwise). So slots cost
 * no thread: a worker of 10,000 slots runs on as many threads as it has cores.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Admission: an attempt beyond the slots waits in a FIFO until one is freed; admission is
 *       O(1) and allocates nothing beyond the queue's growth.
 *   <li>Steps: a runnable step is queued once (a task woken while queued or running is not queued
 *       twice; {@code TaskRun} keeps that state) and run by the next free thread, FIFO, so every
 *       runnable task gets a turn; a task that runs too long between two looks at {@link
 *       TaskContext#canContinue()} delays the others on its thread, not their correctness.
 *   <li>Timers: a task that waits with a deadline (a pipelined producer pausing for an absent
 *       consumer, a start waiting for memory or a partition) is woken by one timer thread.
 *   <li>Threads are daemons; {@link #close} interrupts them and waits a grace period.
 * </ul>
 *
 * <p>Thread-safe. The admission lock is a leaf: nothing is called under it but the queueing of a
 * step.
 */
public final class TaskSlots implements AutoCloseable {
    /**
     * What the slots tell their owner: a slot was taken or freed (for counters). Called under the
     * slots' lock, so that counts summed over workers never exceed the slots held at one time: must
     * not block or call back into the slots.
     */
    public interface Listener {
        /** A slot was taken by an attempt that starts now. */
        void taken();

        /** A slot was freed by an attempt that ended. */
        void freed();
    }

    /** An attempt that waits for a slot and starts once it has one. */
    interface Admitted {
        /** Its slot is taken: queue its first step. */
        void admitted();
    }

    private static final Listener SILENT =
            new Listener() {
                @Override
                public void taken() {}

                @Override
                public void freed() {}
            };

    private final int slots;
    private final int threads;
    private final ThreadPoolExecutor steps;
    private final ScheduledThreadPoolExecutor timer;
    private final Listener listener;

    @GuardedBy("this")
    private final ArrayDeque<Admitted> waiting = new ArrayDeque<>();

    @GuardedBy("this")
    private int held;

    /**
     * {@code slots} slots on {@code threads} threads named {@code name-tN}, plus a timer thread,
     * telling {@code listener} of each slot taken and freed.
     *
     * @throws IllegalArgumentException if a count is below 1
     */
    public TaskSlots(String name, int slots, int threads, Listener listener) {
        checkArgument(slots >= 1, "slots must be >= 1, was %s", slots);
        checkArgument(threads >= 1, "task threads must be >= 1, was %s", threads);
        this.slots = slots;
        this.threads = threads;
        this.listener = listener;
        AtomicInteger numbers = new AtomicInteger();
        this.steps =
                new ThreadPoolExecutor(
                        threads,
                        threads,
                        0,
                        TimeUnit.MILLISECONDS,
                        new LinkedBlockingQueue<>(),
                        step -> daemon(step, name + "-t" + numbers.getAndIncrement()));
        this.timer = new ScheduledThreadPoolExecutor(1, step -> daemon(step, name + "-timer"));
        timer.setRemoveOnCancelPolicy(true);
    }

    /** {@code slots} slots on {@code threads} threads that tell nobody of their slots. */
    public TaskSlots(String name, int slots, int threads) {
        this(name, slots, threads, SILENT);
    }

    /**
     * The threads a worker of {@code slots} slots runs its tasks on by default: as many as the
     * machine has cores, but no more than slots.
     */
    public static int defaultThreads(int slots) {
        return Math.max(1, Math.min(slots, Runtime.getRuntime().availableProcessors()));
    }

    private static Thread daemon(Runnable step, String name) {
        Thread thread = new Thread(step, name);
        thread.setDaemon(true);
        return thread;
    }

    /** Number of slots. */
    public int slots() {
        return slots;
    }

    /** Number of threads the steps run on. */
    public int threads() {
        return threads;
    }

    /** Slots held by attempts now. */
    public synchronized int busy() {
        return held;
    }

    /** Takes a slot for {@code attempt} now, or queues it until one is freed. O(1). */
    void admit(Admitted attempt) {
        synchronized (this) {
            if (held >= slots) {
                waiting.add(attempt);
                return;
            }
            held++;
            listener.taken(); // under the lock: the counts never show more than is held
        }
        attempt.admitted();
    }

    /**
     * Takes {@code attempt} out of the queue of those waiting for a slot; false if it is not there
     * (it has a slot already). O(attempts waiting).
     */
    boolean withdraw(Admitted attempt) {
        synchronized (this) {
            return waiting.remove(attempt);
        }
    }

    /** An attempt ended and frees its slot: the next one waiting takes it. O(1). */
    void free() {
        Admitted next;
        synchronized (this) {
            next = waiting.poll();
            if (next == null) {
                held--;
            }
            listener.freed();
            if (next != null) {
                listener.taken();
            }
        }
        if (next != null) {
            next.admitted();
        }
    }

    /**
     * Runs {@code step} on one of the threads. A step queued after {@link #close} is dropped: the
     * worker is gone, and its tasks with it.
     */
    void run(Runnable step) {
        try {
            steps.execute(step);
        } catch (RejectedExecutionException e) {
            // closed: the engine is shutting down
        }
    }

    /** Runs {@code wake} on the timer thread after {@code nanos}; dropped after {@link #close}. */
    void wakeAfter(long nanos, Runnable wake) {
        try {
            var unused = timer.schedule(wake, nanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    /** The steps' executor, for tests that need to look at it. */
    ExecutorService steps() {
        return steps;
    }

    /**
     * Stops the threads: interrupts them and waits until they end, for {@code graceMillis} at most
     * (a step that ignores its interruption goes on as a daemon). Queued steps are dropped.
     */
    public void close(long graceMillis) throws InterruptedException {
        timer.shutdownNow();
        steps.shutdownNow();
        steps.awaitTermination(graceMillis, TimeUnit.MILLISECONDS);
    }

    /** {@link #close(long)} with a grace of 30 s; an interruption is kept on the thread. */
    @Override
    public void close() {
        try {
            close(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
