package io.railyard.local;

import io.railyard.deployment.GroupDescriptors;
import io.railyard.deployment.InputDescriptor;
import io.railyard.deployment.ProducedPartition;
import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.local.LocalEngine.Worker;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.ResultPartitionWriter;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.PartitionId;
import io.railyard.topology.ResultPartitionType;
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
 * One deployed task attempt on a worker: creates its partitions (hybrid and pipelined at
 * deployment, blocking when it starts), opens a gate per consumed group on the subpartitions its
 * descriptor names, runs its {@link TaskCode} in a slot, finishes or abandons its partitions and
 * reports the end to its {@link JobRun}. Cancellation is a flag checked at every record and every
 * wait.
 */
final class TaskRun implements Runnable, TaskContext {
    private static final long WAIT_MILLIS = 50;
    private final JobRun job;
    private final Worker worker;
    private final TaskDeploymentDescriptor descriptor;
    private final TaskCode code;
    private final PartitionKind blocking;
    private final @Nullable ResultPartitionWriter[] writers;
    private final List<InputGate> gates = new ArrayList<>();
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile boolean cancelled;
    private volatile boolean workerLost;
    private volatile String doing = "waiting for a slot";

    TaskRun(
            JobRun job,
            Worker worker,
            TaskDeploymentDescriptor descriptor,
            TaskCode code,
            PartitionKind blocking) {
        this.job = job;
        this.worker = worker;
        this.descriptor = descriptor;
        this.code = code;
        this.blocking = blocking;
        this.writers = new ResultPartitionWriter[descriptor.produced().size()];
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
        return writers.length;
    }

    boolean isCancelled() {
        return cancelled;
    }

    int worker() {
        return worker.index();
    }

    /** Its worker is lost: it fails at its next record or wait (a failure, not a cancellation). */
    void loseWorker() {
        workerLost = true;
    }

    void cancel() {
        cancelled = true;
    }

    void awaitEnd() throws InterruptedException {
        if (!ended.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("task " + describe() + " did not stop");
        }
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

    /** Creates the hybrid and pipelined partitions, readable from now on. Main thread. */
    void createEarlyPartitions() throws IOException {
        for (int k = 0; k < writers.length; k++) {
            ProducedPartition produced = descriptor.produced().get(k);
            PartitionKind kind = kindOf(produced.type());
            if (kind.isReadableWhileWritten()) {
                PartitionId id = new PartitionId(produced.partition(), attempt());
                ResultPartitionWriter writer =
                        worker.shuffle().createPartition(id, produced.numSubpartitions(), kind);
                writers[k] = writer;
                // Main thread: not cancelled yet.
                job.register(this, id, writer.readablePartition().orElseThrow());
            }
        }
    }

    /** The shuffle's partition kind for results of {@code type}. */
    private PartitionKind kindOf(ResultPartitionType type) {
        return switch (type) {
            case BLOCKING -> blocking;
            case HYBRID_FULL -> PartitionKind.HYBRID_FULL;
            case HYBRID_SELECTIVE -> PartitionKind.HYBRID_SELECTIVE;
            case PIPELINED, PIPELINED_BOUNDED -> PartitionKind.PIPELINED;
        };
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
        try {
            checkNotCancelled();
            doing = "creating its partitions";
            createBlockingPartitions();
            doing = "opening its inputs";
            openGates();
            doing = "running";
            tally = code.run(this);
            checkNotCancelled();
            doing = "finishing its partitions";
            finishPartitions();
        } catch (Throwable e) {
            failure = e;
        } finally {
            abandon();
            doing = "ended";
            job.ended(this, tally, failure);
            ended.countDown();
        }
    }

    private void createBlockingPartitions() throws IOException {
        ShuffleWorker shuffle = worker.shuffle();
        for (int k = 0; k < writers.length; k++) {
            ProducedPartition produced = descriptor.produced().get(k);
            if (writers[k] == null) {
                PartitionId id = new PartitionId(produced.partition(), attempt());
                writers[k] =
                        shuffle.createPartition(
                                id, produced.numSubpartitions(), kindOf(produced.type()));
            }
        }
    }

    private void openGates() throws IOException, InterruptedException {
        for (int k = 0; k < descriptor.inputs().size(); k++) {
            InputDescriptor input = descriptor.inputs().get(k);
            if (input.numSubpartitions() != 1) {
                throw new IllegalStateException(
                        "input "
                                + k
                                + " reads "
                                + input.numSubpartitions()
                                + " subpartitions;"
                                + " a gate reads one");
            }
            GroupDescriptors group = job.descriptorCache().resolve(input);
            List<ResultPartition> read = new ArrayList<>(group.size());
            for (int i = 0; i < group.size(); i++) {
                read.add(
                        job.partition(
                                this,
                                new PartitionId(
                                        group.firstPartition() + i, group.producerAttempt(i))));
            }
            gates.add(
                    worker.shuffle()
                            .openGate(
                                    "t" + task() + ".a" + attempt() + ".in" + k,
                                    read,
                                    input.firstSubpartition()));
        }
    }

    private void finishPartitions() throws IOException {
        for (int k = 0; k < writers.length; k++) {
            ResultPartitionWriter writer = writers[k];
            if (writer != null) {
                ResultPartition partition = writer.finish();
                writers[k] = null;
                if (!writer.kind().isReadableWhileWritten()) { // registered at creation
                    ProducedPartition produced = descriptor.produced().get(k);
                    PartitionId id = new PartitionId(produced.partition(), attempt());
                    if (!job.register(this, id, partition)) {
                        partition.release(); // cancelled meanwhile: nobody will read it
                    }
                }
            }
        }
    }

    /** Closes what is still open: unfinished writers are abandoned, gates closed. */
    void abandon() {
        for (int k = 0; k < writers.length; k++) {
            ResultPartitionWriter writer = writers[k];
            if (writer != null) {
                writer.close();
                writers[k] = null;
            }
        }
        for (InputGate gate : gates) {
            gate.close();
        }
        gates.clear();
    }

    @Override
    public void emit(int output, ByteBuffer record, int key) throws IOException {
        checkNotCancelled();
        ResultPartitionWriter writer = writers[output];
        if (writer == null) {
            throw new IllegalStateException("output " + output + " is not open");
        }
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

    void checkNotCancelled() {
        if (cancelled) {
            throw new CancellationException(describe());
        }
        if (workerLost) {
            throw new WorkerLostException(worker.index());
        }
    }
}
