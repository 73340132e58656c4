package io.railyard.worker;

import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.shuffle.buffer.InsufficientNetworkMemoryException;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.ResultPartitionWriter;
import io.railyard.topology.AttemptId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * One deployed task attempt on a {@link Worker}, run as a cooperative task: its shuffle ({@link
 * TaskShuffle}: its partitions are created and its gates opened when it starts, blocking ones are
 * created when it starts, a gate per consumed group), its {@link TaskCode} run in steps on its
 * worker's {@link TaskSlots}, and its end reported to the worker.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Phases: it waits for a slot; it starts (creates its blocking partitions and opens its gates
 *       — waiting, without a thread, for network memory or for a partition not registered yet); it
 *       runs its code; it finishes its partitions and ends. Each phase runs in steps on one of the
 *       worker's threads, never two steps at once. A task that started yields before it runs its
 *       code, so the tasks admitted with it start (a sink opens its gate) before any of them runs
 *       (a source fills the pool).
 *   <li>Waiting: a step that cannot go on registers its waker where it waits — a gate's
 *       availability, an output's room, the pool's pledges, a registry's next registration, or the
 *       timer — and returns; the waker queues the next step. The scheduling state ({@code IDLE},
 *       {@code QUEUED}, {@code RUNNING}, {@code WOKEN}) makes sure a task is queued at most once
 *       and a wake-up during a step is never lost. A step that yields without waiting for anything
 *       (its turn is up) is queued again at once.
 *   <li>Cancellation and a lost worker: flags checked at every record and step, and a wake-up, so a
 *       parked task ends at once; one still waiting for a slot ends without taking one.
 * </ul>
 *
 * <p>Threading: the step fields are confined to the thread running the current step (steps run one
 * after another, each handed over through the executor's queue, which orders them); {@link #wake},
 * {@link #cancel}, {@link #loseWorker} and {@link #describe} are thread-safe.
 */
final class TaskRun implements TaskContext, TaskShuffle.Attempt, TaskSlots.Admitted {
    /** A task's turn on a thread: it yields at its next look at {@link #canContinue()} after. */
    static final long TURN_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    /** How often a task waiting for input checks that its producers may still come. */
    private static final long INPUT_CHECK_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** Looks at {@link #canContinue()} between two reads of the clock. */
    private static final int CLOCK_EVERY = 64;

    private static final int NOT_ADMITTED = 0;
    private static final int IDLE = 1;
    private static final int QUEUED = 2;
    private static final int RUNNING = 3;
    private static final int WOKEN = 4;
    private static final int ENDED = 5;

    /**
     * How long a start waits for spare pages while no pipelined partition of the worker gives one
     * back and no consumer reads from memory, before it has borrowers asked back instead (1 s).
     */
    static final long SPARE_PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Worker worker;
    private final TaskSlots slots;
    private final TaskDeploymentDescriptor descriptor;
    private final TaskCode code;
    private final AtomicInteger state = new AtomicInteger(NOT_ADMITTED);
    private final Runnable waker = this::wake;
    private final Runnable step = this::runStep;
    private final Runnable inputCheck = this::inputCheckDue;
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile @Nullable TaskShuffle shuffle; // set once deployed
    private volatile boolean cancelled;
    private volatile boolean workerLost;
    private volatile String doing = "waiting for a slot";

    // ---- confined to the thread of the current step ----
    private boolean started;
    private boolean waits; // this step registered a waker
    private long turnStart;
    private int clockCountdown;
    private TaskShuffle.Start.@Nullable AwaitMemory memoryWait; // the shortage it waits out
    private long memoryWaitSince;
    private long spareWaitSince = -1; // waiting for spare pages since, nothing consumed since
    private long consumedMark; // the worker's memory consumption when that began
    private volatile boolean spareListening; // a spare-page listener is registered
    private volatile boolean inputCheckQueued; // a timer wake to check its inputs' waits is queued
    private List<InputGate> gates = List.of();
    private final List<RecordDecoder> decoders = new ArrayList<>();
    private final List<@Nullable CompletableFuture<Void>> watched = new ArrayList<>();

    TaskRun(Worker worker, TaskSlots slots, TaskDeploymentDescriptor descriptor, TaskCode code) {
        this.worker = worker;
        this.slots = slots;
        this.descriptor = descriptor;
        this.code = code;
    }

    /** Creates its shuffle (nothing in it yet: the task creates its partitions as it starts). */
    void deploy() throws IOException {
        shuffle = worker.environment().deploy(descriptor, this);
    }

    AttemptId id() {
        return new AttemptId(descriptor.task(), descriptor.attempt());
    }

    int task() {
        return descriptor.task();
    }

    @Override
    public int attempt() {
        return descriptor.attempt();
    }

    @Override
    public int vertex() {
        return descriptor.vertex();
    }

    @Override
    public int subtask() {
        return descriptor.subtask();
    }

    @Override
    public int numOutputs() {
        return descriptor.produced().size();
    }

    @Override
    public boolean isCancelled() {
        return cancelled;
    }

    /** Its worker is lost: it fails at its next record or step (a failure, not a cancellation). */
    void loseWorker() {
        workerLost = true;
        endIfWaitingForSlot();
        wake();
    }

    void cancel() {
        cancelled = true;
        endIfWaitingForSlot();
        wake();
    }

    /**
     * Waits until it ended or {@code deadlineNanos} ({@link System#nanoTime}); whether it ended.
     */
    boolean awaitEnd(long deadlineNanos) throws InterruptedException {
        return ended.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    String describe() {
        return "task "
                + task()
                + " (vertex "
                + vertex()
                + ", subtask "
                + subtask()
                + ") attempt "
                + attempt()
                + " on worker "
                + worker.index()
                + ": "
                + doing
                + (cancelled ? " (cancelled)" : "");
    }

    /** A task's worker was lost under it. */
    static final class WorkerLostException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WorkerLostException(int worker) {
            super("worker " + worker + " was lost");
        }
    }

    // ---- scheduling ----

    /** It has a slot: its first step is queued. */
    @Override
    public void admitted() {
        state.set(QUEUED);
        doing = "starting";
        slots.run(step);
    }

    /** The timer's input check: on the timer thread, a wake-up like any other. */
    private void inputCheckDue() {
        inputCheckQueued = false;
        wake();
    }

    /** Queues its next step, unless it is queued or running already (then it runs again). */
    void wake() {
        while (true) {
            int now = state.get();
            if (now == IDLE) {
                if (state.compareAndSet(IDLE, QUEUED)) {
                    slots.run(step);
                    return;
                }
            } else if (now == RUNNING) {
                if (state.compareAndSet(RUNNING, WOKEN)) {
                    return;
                }
            } else {
                return; // queued, woken, ended, or still waiting for a slot
            }
        }
    }

    private void runStep() {
        state.set(RUNNING);
        waits = false;
        if (step()) {
            state.set(ENDED);
            return;
        }
        if (waits && state.compareAndSet(RUNNING, IDLE)) {
            return; // parked: a waker queues the next step
        }
        state.set(QUEUED); // its turn was up, or it was woken while it ran
        slots.run(step);
    }

    /** A cancelled or lost task that waits for a slot ends without one. */
    private void endIfWaitingForSlot() {
        if (state.get() == NOT_ADMITTED && slots.withdraw(this)) {
            state.set(ENDED);
            end(null, cancelled ? new CancellationException(describe()) : lostWorker(), false);
        }
    }

    // ---- the phases ----

    /** One step; true once the task ended. */
    private boolean step() {
        Tally tally = null;
        try {
            checkNotCancelled();
            if (!started) {
                if (!start()) {
                    return false;
                }
                started = true;
                return false; // yields: the tasks admitted with it start before any of them runs
            }
            doing = "running";
            turnStart = System.nanoTime();
            clockCountdown = CLOCK_EVERY;
            TaskCode.Step next = code.run(this);
            if (next instanceof TaskCode.Step.Done done) {
                tally = done.tally();
                checkNotCancelled();
                doing = "finishing its partitions";
                shuffle().finish();
                end(tally, null, true);
                return true;
            }
            return false;
        } catch (Throwable e) {
            end(tally, e, true);
            return true;
        }
    }

    /** Tries to start: true once its partitions and gates are there; else it waits for them. */
    private boolean start() throws IOException {
        long now = System.nanoTime();
        TaskShuffle.Start.AwaitMemory memory = memoryWait;
        if (memory != null) {
            if (memory.pool().pledgesReturned() == memory.mark()) { // none came back: the timer
                waitForMemory(memory, now);
                return false;
            }
            memoryWait = null; // one came back: try again
        }
        doing = "creating its partitions and opening its inputs";
        TaskShuffle.Start attempt = shuffle().tryStart(mayAwaitSpare(now));
        if (attempt instanceof TaskShuffle.Start.Started go) {
            gates = go.gates();
            return true;
        }
        if (attempt instanceof TaskShuffle.Start.AwaitSpare spare) {
            awaitSpare(spare, now);
            return false;
        }
        if (attempt instanceof TaskShuffle.Start.AwaitMemory lacking) {
            memoryWait = lacking;
            memoryWaitSince = now;
            waitForMemory(lacking, now);
        }
        return false;
    }

    /**
     * Whether the start may still wait for spare pages rather than have borrowers asked back: until
     * for {@link #SPARE_PATIENCE_NANOS} no pipelined partition of the worker gave a page back and
     * no consumer read from memory ({@link
     * io.railyard.shuffle.partition.ShuffleWorker#memoryConsumption}: their consumers do not read,
     * waiting longer would not help).
     */
    private boolean mayAwaitSpare(long now) {
        if (spareWaitSince < 0) {
            return true;
        }
        long consumed = worker.environment().shuffle().memoryConsumption();
        if (consumed != consumedMark) {
            consumedMark = consumed;
            spareWaitSince = now;
            return true;
        }
        return now - spareWaitSince < SPARE_PATIENCE_NANOS;
    }

    /** Waits for {@code spare}'s pages to be spare, and looks again after the patience at most. */
    private void awaitSpare(TaskShuffle.Start.AwaitSpare spare, long now) {
        if (spareWaitSince < 0) {
            spareWaitSince = now;
            consumedMark = worker.environment().shuffle().memoryConsumption();
        }
        doing =
                "starting: waiting for "
                        + spare.pages()
                        + " network pages that pipelined partitions give back as they are read";
        waitFor(SPARE_PATIENCE_NANOS);
        if (!spareListening) {
            spareListening = true;
            spare.pool()
                    .onSpare(
                            spare.pages(),
                            () -> {
                                spareListening = false;
                                waker.run();
                            });
        }
    }

    /**
     * Waits for a guarantee to come back after {@code memory}'s mark, or gives up once none came
     * back for the worker's memory wait since the wait began.
     */
    private void waitForMemory(TaskShuffle.Start.AwaitMemory memory, long now) {
        Duration wait = worker.environment().memoryWait();
        long left = wait.toNanos() - (now - memoryWaitSince);
        if (left <= 0) {
            throw gaveUp(memory.shortage(), wait);
        }
        doing = "starting: waiting for network memory (" + memory.shortage().getMessage() + ")";
        waitFor(left);
        memory.pool().onPledgeReturned(memory.mark(), waker);
    }

    private static InsufficientNetworkMemoryException gaveUp(
            InsufficientNetworkMemoryException shortage, Duration wait) {
        InsufficientNetworkMemoryException gaveUp =
                new InsufficientNetworkMemoryException(
                        shortage.getMessage()
                                + "; waited "
                                + wait.toMillis()
                                + " ms and no network memory of the worker came back");
        gaveUp.initCause(shortage);
        return gaveUp;
    }

    /** This step waits: woken by what it registers, and by the timer after {@code nanos}. */
    private void waitFor(long nanos) {
        waits = true;
        if (nanos != Long.MAX_VALUE) {
            slots.wakeAfter(nanos, waker);
        }
    }

    /**
     * Ends the attempt: reports it (a failure before its partitions are abandoned: a consumer that
     * sees one abandoned must not fail the job before the failure that caused it), closes its
     * shuffle, frees its slot if it held one.
     */
    private void end(@Nullable Tally tally, @Nullable Throwable failure, boolean heldSlot) {
        if (failure != null) {
            worker.ended(this, tally, failure);
        }
        TaskShuffle io = shuffle;
        if (io != null) {
            io.close();
        }
        doing = "ended";
        if (failure == null) {
            worker.ended(this, tally, null);
        }
        if (heldSlot) {
            slots.free();
        }
        ended.countDown();
    }

    private TaskShuffle shuffle() {
        TaskShuffle deployed = shuffle;
        if (deployed == null) {
            throw new IllegalStateException("task " + describe() + " runs before it was deployed");
        }
        return deployed;
    }

    // ---- the task's context ----

    @Override
    public void emit(int output, ByteBuffer record, int key) throws IOException {
        checkNotCancelled();
        ResultPartitionWriter writer = shuffle().output(output);
        int n = writer.numSubpartitions();
        // A division per record is 5-10 % of a source's time (profiled): skip it when it can be.
        writer.emit(
                record, n == 1 ? 0 : (n & (n - 1)) == 0 ? key & (n - 1) : Math.floorMod(key, n));
    }

    @Override
    public boolean canContinue() {
        checkNotCancelled();
        if (--clockCountdown <= 0) {
            clockCountdown = CLOCK_EVERY;
            if (System.nanoTime() - turnStart > TURN_NANOS) {
                return false; // its turn is up: queued again at once
            }
        }
        TaskShuffle io = shuffle();
        for (int k = 0; k < io.numOutputs(); k++) {
            long pause = io.output(k).roomWaitNanos(waker);
            if (pause > 0) {
                doing = "waiting for room in output " + k;
                waitFor(pause);
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean readInputs(RecordDecoder.RecordSink sink) throws IOException {
        checkNotCancelled();
        if (decoders.size() < gates.size()) { // the first call: the gates it reads
            gates = new ArrayList<>(gates);
            for (InputGate gate : gates) {
                decoders.add(new RecordDecoder(gate.numChannels()));
                watched.add(null);
            }
        }
        doing = "reading its inputs";
        while (!gates.isEmpty()) {
            boolean progressed = false;
            for (int g = gates.size() - 1; g >= 0; g--) {
                InputGate gate = gates.get(g);
                InputGate.Buffer buffer;
                while ((buffer = gate.poll()) != null) {
                    try {
                        checkNotCancelled(); // inside: a polled buffer is always recycled
                        decoders.get(g).decode(buffer.channel(), buffer.data(), sink);
                    } finally {
                        buffer.recycle();
                    }
                    progressed = true;
                    if (!canContinue()) {
                        return false;
                    }
                }
                if (gate.isFinished()) {
                    gates.remove(g);
                    decoders.remove(g);
                    watched.remove(g);
                }
            }
            if (!progressed && !gates.isEmpty()) {
                awaitAnyInput();
                return false;
            }
        }
        return true;
    }

    /**
     * Parks on every open gate's availability (once per future: a waker is not added twice); the
     * timer wakes it now and then to give up on producers that never register their partitions.
     */
    private void awaitAnyInput() {
        doing = "waiting for input";
        waits = true;
        shuffle().checkInputWaits();
        if (!inputCheckQueued) {
            inputCheckQueued = true;
            slots.wakeAfter(INPUT_CHECK_NANOS, inputCheck);
        }
        for (int g = 0; g < gates.size(); g++) {
            CompletableFuture<Void> available = gates.get(g).availability();
            if (watched.get(g) != available) {
                watched.set(g, available);
                var unused = available.thenRun(waker);
            }
        }
    }

    @Override
    public void checkNotCancelled() {
        if (cancelled) {
            throw new CancellationException(describe());
        }
        if (workerLost) {
            throw lostWorker();
        }
    }

    private WorkerLostException lostWorker() {
        return new WorkerLostException(worker.index());
    }
}
