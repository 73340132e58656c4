package io.railyard.worker;

import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.ResultPartitionWriter;
import io.railyard.topology.AttemptId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One deployed task attempt on a {@link Worker}: its shuffle ({@link TaskShuffle}: partitions
 * readable while written exist from deployment, blocking ones are created when it starts, a gate
 * per consumed group), its {@link TaskCode} run in a slot, and its end reported to the worker.
 * Cancellation is a flag checked at every record and every wait.
 */
final class TaskRun implements Runnable, TaskContext, TaskShuffle.Attempt {
    private static final long WAIT_MILLIS = 50;
    private final Worker worker;
    private final TaskDeploymentDescriptor descriptor;
    private final TaskCode code;
    private @Nullable TaskShuffle shuffle; // set once deployed
    private List<InputGate> gates = List.of(); // the task's thread, once opened
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile boolean cancelled;
    private volatile boolean workerLost;
    private volatile String doing = "waiting for a slot";

    TaskRun(Worker worker, TaskDeploymentDescriptor descriptor, TaskCode code) {
        this.worker = worker;
        this.descriptor = descriptor;
        this.code = code;
    }

    /** Creates its shuffle: the partitions readable while written exist from now on. */
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

    /** Its worker is lost: it fails at its next record or wait (a failure, not a cancellation). */
    void loseWorker() {
        workerLost = true;
    }

    void cancel() {
        cancelled = true;
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

    @Override
    public void run() {
        Tally tally = null;
        Throwable failure = null;
        TaskShuffle io = shuffle();
        try {
            checkNotCancelled();
            doing = "creating its partitions and opening its inputs";
            gates = io.start(ShuffleEnvironment.MEMORY_WAIT);
            doing = "running";
            tally = code.run(this);
            checkNotCancelled();
            doing = "finishing its partitions";
            io.finish();
        } catch (Throwable e) {
            failure = e;
        } finally {
            // A failure is reported before the task's partitions are abandoned: a consumer that
            // sees one abandoned must not fail the job before the failure that caused it.
            if (failure != null) {
                worker.ended(this, tally, failure);
            }
            io.close();
            doing = "ended";
            if (failure == null) {
                worker.ended(this, tally, null);
            }
            ended.countDown();
        }
    }

    private TaskShuffle shuffle() {
        TaskShuffle deployed = shuffle;
        if (deployed == null) {
            throw new IllegalStateException("task " + describe() + " runs before it was deployed");
        }
        return deployed;
    }

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
    public void readInputs(RecordDecoder.RecordSink sink) throws IOException, InterruptedException {
        List<InputGate> open = new ArrayList<>(gates);
        List<RecordDecoder> decoders = new ArrayList<>();
        for (InputGate gate : open) {
            decoders.add(new RecordDecoder(gate.numChannels()));
        }
        doing = "reading its inputs";
        while (!open.isEmpty()) {
            boolean progressed = false;
            for (int g = open.size() - 1; g >= 0; g--) {
                InputGate gate = open.get(g);
                InputGate.Buffer buffer;
                while ((buffer = gate.poll()) != null) {
                    try {
                        checkNotCancelled(); // inside: a polled buffer is always recycled
                        decoders.get(g).decode(buffer.channel(), buffer.data(), sink);
                    } finally {
                        buffer.recycle();
                    }
                    progressed = true;
                }
                if (gate.isFinished()) {
                    open.remove(g);
                    decoders.remove(g);
                }
            }
            if (!progressed && !open.isEmpty()) {
                awaitAnyInput(open);
            }
        }
        doing = "running";
    }

    private void awaitAnyInput(List<InputGate> open) throws InterruptedException {
        checkNotCancelled();
        CompletableFuture<?>[] available = new CompletableFuture<?>[open.size()];
        for (int g = 0; g < open.size(); g++) {
            available[g] = open.get(g).availability();
        }
        try {
            CompletableFuture.anyOf(available).get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // a failure shows at the next poll; a timeout re-checks cancellation
        }
    }

    @Override
    public void checkNotCancelled() {
        if (cancelled) {
            throw new CancellationException(describe());
        }
        if (workerLost) {
            throw new WorkerLostException(worker.index());
        }
    }
}
