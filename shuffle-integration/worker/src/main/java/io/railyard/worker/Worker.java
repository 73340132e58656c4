package io.railyard.worker;

import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.topology.AttemptId;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * One worker of a job (Flink's TaskExecutor, for one job): its {@link ShuffleEnvironment} (shuffle
 * layer, partition registry, peers), its slots, and the task attempts deployed to it. What a {@code
 * WorkerGateway} of the JobManager reaches: {@link #deploy} a task from its encoded descriptor,
 * {@link #cancel} an attempt, {@link #releasePartition} a partition. The end of every attempt goes
 * to a {@link TaskListener}.
 *
 * <p>Slots: deployed attempts run on the worker's {@link TaskSlots} in deployment order, as
 * cooperative tasks on its few threads ({@link TaskCode}); an attempt holds its slot until it
 * finishes, fails or is cancelled.
 *
 * <p>Thread-safe: the JobManager's thread deploys, cancels and releases while task threads run and
 * end. Costs: a deployment decodes its descriptor and creates the partitions readable while
 * written; everything else is O(1) but {@link #lose} and {@link #stopTasks}, O(attempts running).
 */
public final class Worker {
    private final ShuffleEnvironment environment;
    private final TaskSlots slots;
    private final TaskCode.Factory code;
    private final TaskListener listener;
    private final Map<AttemptId, TaskRun> running = new ConcurrentHashMap<>();

    /**
     * A worker with {@code environment}, running attempts in {@code slots} with the code {@code
     * code} chooses, reporting their ends to {@code listener}.
     */
    public Worker(
            ShuffleEnvironment environment,
            TaskSlots slots,
            TaskCode.Factory code,
            TaskListener listener) {
        this.environment = environment;
        this.slots = slots;
        this.code = code;
        this.listener = listener;
    }

    /** This worker's index in the job's worker table. */
    public int index() {
        return environment.worker();
    }

    /** This worker's shuffle environment. */
    public ShuffleEnvironment environment() {
        return environment;
    }

    /**
     * Runs the attempt {@code encoded} describes (the bytes a JobManager's descriptor encodes): its
     * partitions readable while written are created now (or, if the network memory cannot pledge
     * them now, once it starts: {@link TaskShuffle#start}), then it waits for a slot. A failure to
     * create them is the attempt's failure, reported to the listener.
     *
     * @throws io.railyard.deployment.CorruptDescriptorException if the bytes are not a descriptor
     */
    public void deploy(byte[] encoded) {
        TaskDeploymentDescriptor descriptor = TaskDeploymentDescriptor.decode(encoded);
        TaskRun task =
                new TaskRun(
                        this,
                        slots,
                        descriptor,
                        code.create(
                                descriptor.vertex(), descriptor.subtask(), descriptor.attempt()));
        running.put(task.id(), task);
        try {
            task.deploy();
        } catch (IOException | RuntimeException e) {
            running.remove(task.id(), task);
            listener.failed(task.id(), e);
            return;
        }
        slots.admit(task);
    }

    /** Cancels attempt {@code attempt} of task {@code task} if it runs here. */
    public void cancel(int task, int attempt) {
        TaskRun run = running.get(new AttemptId(task, attempt));
        if (run != null) {
            environment.partitions().cancel(run::cancel); // a partition registered after is refused
        }
    }

    /**
     * Releases {@code partition} here: its memory and files go. Idempotent.
     *
     * @throws IOException if its files cannot be deleted
     */
    public void releasePartition(PartitionId partition) throws IOException {
        environment.partitions().release(partition);
    }

    /**
     * The worker is lost with everything on it, as if its process died: every partition it holds is
     * released, and every running attempt fails at its next record or wait (a failure, not a
     * cancellation: failover decides what reruns).
     *
     * @return the partitions it held, which the JobManager must hear are lost
     * @throws IOException if a partition's files cannot be deleted (every one is released)
     */
    public List<PartitionId> lose() throws IOException {
        List<PartitionId> lost = environment.partitions().releaseAll();
        for (TaskRun task : running.values()) {
            task.loseWorker();
        }
        return lost;
    }

    /**
     * Cancels every running attempt and waits until each has ended, for at most {@code grace} in
     * all. Returns what each attempt still running then was doing (empty if all ended): code that
     * ignores its cancellation cannot be stopped in a JVM, so its thread goes on in its slot, and
     * the caller releases the attempt's partitions and reports it.
     *
     * @throws InterruptedException if interrupted while waiting (every attempt is cancelled)
     */
    public List<String> stopTasks(Duration grace) throws InterruptedException {
        List<TaskRun> stopping = List.copyOf(running.values());
        cancelTasks();
        long deadline = System.nanoTime() + grace.toNanos();
        List<String> stuck = new ArrayList<>();
        for (TaskRun task : stopping) {
            if (!task.awaitEnd(deadline)) {
                stuck.add(task.describe());
            }
        }
        return stuck;
    }

    /** Cancels every running attempt without waiting for it (see {@link #stopTasks}). */
    public void cancelTasks() {
        for (TaskRun task : running.values()) {
            task.cancel();
        }
    }

    /** One line per running attempt: who it is and what it does now. */
    public String describeTasks() {
        StringBuilder out = new StringBuilder();
        for (TaskRun task : running.values()) {
            out.append("\n  ").append(task.describe());
        }
        return out.toString();
    }

    /** Called by an attempt's thread when it ended; {@code failure} null if it finished. */
    void ended(TaskRun task, @Nullable Tally tally, @Nullable Throwable failure) {
        running.remove(task.id(), task);
        if (failure == null) {
            listener.finished(task.id(), tally == null ? Tally.ZERO : tally);
        } else if (!task.isCancelled()) {
            listener.failed(task.id(), failure);
        }
    }
}
