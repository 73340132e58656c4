package io.railyard.local;

import com.google.common.collect.ImmutableMap;
import io.railyard.deployment.InMemoryBlobStore;
import io.railyard.deployment.JobId;
import io.railyard.deployment.OffloadOptions;
import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.deployment.WorkerDescriptorCache;
import io.railyard.deployment.WorkerTable;
import io.railyard.failover.FailureHandling;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.failover.RestartSet;
import io.railyard.jobmaster.JobMaster;
import io.railyard.jobmaster.WorkerGateway;
import io.railyard.local.LocalEngine.Worker;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One job on the {@link LocalEngine}: its {@link JobMaster} on a main thread of its own, the
 * gateway through which it deploys, cancels and releases, the partitions the job's tasks created
 * (by id), and the bookkeeping of which tasks finished and what sinks committed.
 *
 * <p>Threading: everything that touches the JobMaster, {@link #finished} or {@link #committed} runs
 * on {@link #main}; task threads only post events to it. The partition registry is concurrent.
 */
final class JobRun implements WorkerGateway {
    private final JobGraph graph;
    private final TaskCode.Factory code;
    private final List<Worker> workers;
    private final PartitionKind blocking;
    private final ScheduledExecutorService main;
    private final InMemoryBlobStore blobs = new InMemoryBlobStore();
    private final WorkerDescriptorCache descriptorCache = new WorkerDescriptorCache(blobs);
    private final Map<PartitionId, Held> partitions = new ConcurrentHashMap<>();

    /** A registered partition and the worker that holds it. */
    private record Held(ResultPartition partition, int worker) {}

    // Orders a task's cancellation against its registering a partition (see register); consumers
    // waiting for a partition to be created wait on it.
    private final Object registering = new Object();
    // Partitions released: a consumer asking for one fails at once instead of waiting for it.
    private final java.util.Set<PartitionId> gone = ConcurrentHashMap.newKeySet();
    private static final long PARTITION_WAIT_MILLIS = 30_000;
    private final Map<Long, TaskRun> deployed = new ConcurrentHashMap<>();
    private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    private final AtomicLong tasksDeployed = new AtomicLong();
    private final long startNanos = System.nanoTime();
    private @Nullable JobMaster master; // main thread
    private final boolean[] finished; // main thread
    private final @Nullable Tally[] committed; // main thread
    private int numFinished; // main thread
    private int restarts; // main thread
    private int nextWorker; // main thread
    private long committedRecords; // main thread
    // What counts() returns: published by the main thread after each change of the three.
    private volatile Counts counts = new Counts(0, 0, 0);

    /**
     * One moment's counts on the main thread.
     *
     * @param finished tasks whose current attempt finished
     * @param committedRecords records the finished sink tasks committed
     * @param restarts restart decisions taken
     */
    record Counts(int finished, long committedRecords, int restarts) {}

    JobRun(
            JobGraph graph,
            TaskCode.Factory code,
            RestartBackoffPolicy policy,
            OffloadOptions offload,
            List<Worker> workers,
            PartitionKind blocking) {
        this.graph = graph;
        this.code = code;
        this.workers = workers;
        this.blocking = blocking;
        this.finished = new boolean[graph.numTasks()];
        this.committed = new Tally[graph.numTasks()];
        this.main =
                Executors.newSingleThreadScheduledExecutor(
                        task -> {
                            Thread thread = new Thread(task, "railyard-jobmaster");
                            thread.setDaemon(true);
                            return thread;
                        });
        List<String> locations = new ArrayList<>();
        for (Worker worker : workers) {
            locations.add("local-" + worker.index() + ":0");
        }
        onMain(
                () -> {
                    JobMaster created =
                            new JobMaster(
                                    new JobId(System.nanoTime(), graph.numTasks()),
                                    graph,
                                    new WorkerTable(locations),
                                    task -> nextWorker++ % workers.size(),
                                    this,
                                    policy,
                                    blobs,
                                    offload);
                    master = created;
                    created.start();
                });
    }

    /** How the job ended, before the leak counts are known. */
    record Outcome(
            JobResult.State state,
            @Nullable Throwable cause,
            ImmutableMap<Integer, Tally> committed,
            int restarts,
            long tasksDeployed,
            long wallNanos,
            int blobsLeft,
            int partitionsLeft) {
        Outcome withPartitionsLeft(int left) {
            return new Outcome(
                    state, cause, committed, restarts, tasksDeployed, wallNanos, blobsLeft, left);
        }

        JobResult result(
                long leakedPages,
                long leakedFiles,
                JobResult.ShuffleBytes shuffle,
                int maxSlotsBusy) {
            return new JobResult(
                    state,
                    cause,
                    committed,
                    restarts,
                    tasksDeployed,
                    wallNanos,
                    leakedPages,
                    leakedFiles,
                    partitionsLeft,
                    blobsLeft,
                    shuffle,
                    maxSlotsBusy);
        }
    }

    /** Waits for the end; see {@link LocalEngine#run}. */
    Outcome await(Duration timeout) throws TimeoutException, InterruptedException, IOException {
        try {
            Outcome ended = outcome.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            stopTasks(); // a failed job's tasks may still run
            return ended.withPartitionsLeft(releaseAll());
        } catch (TimeoutException e) {
            String waiting = describeDeployed();
            stopTasks();
            releaseAll();
            throw new TimeoutException(
                    "the job did not end within "
                            + timeout
                            + "; task attempts deployed: "
                            + waiting);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the job's bookkeeping failed", e.getCause());
        }
    }

    // ---- WorkerGateway (called by the JobMaster, on the main thread) ----

    @Override
    public void deploy(int worker, byte[] bytes) throws IOException {
        TaskDeploymentDescriptor descriptor = TaskDeploymentDescriptor.decode(bytes);
        TaskRun task =
                new TaskRun(
                        this,
                        workers.get(worker),
                        descriptor,
                        code.create(
                                descriptor.vertex(), descriptor.subtask(), descriptor.attempt()),
                        blocking);
        tasksDeployed.incrementAndGet();
        deployed.put(key(descriptor.task(), descriptor.attempt()), task);
        try {
            task.createEarlyPartitions(); // hybrid and pipelined: readable from deployment on
        } catch (IOException | RuntimeException e) {
            task.abandon();
            deployed.remove(key(descriptor.task(), descriptor.attempt()));
            onMain(() -> onFailed(task, e));
            return;
        }
        workers.get(worker).slots().execute(task);
    }

    @Override
    public void cancel(int worker, int task, int attempt) {
        TaskRun run = deployed.get(key(task, attempt));
        if (run != null) {
            synchronized (registering) { // a partition registered after this is refused
                run.cancel();
            }
        }
    }

    @Override
    public void releasePartition(int worker, PartitionId partition) {
        gone.add(partition);
        Held released = partitions.remove(partition);
        if (released != null) {
            try {
                released.partition().release();
            } catch (IOException e) {
                // Its files are retried by the worker at close; the leak count shows them.
            }
        }
    }

    // ---- for tasks ----

    /**
     * Makes {@code partition} readable as {@code id}; false (nothing registered) if {@code task}
     * was cancelled: its partitions are released as it is cancelled, so one that a cancelled task
     * finishes afterwards must not stay behind (the caller releases it).
     */
    boolean register(TaskRun task, PartitionId id, ResultPartition partition) {
        synchronized (registering) {
            if (task.isCancelled()) {
                return false;
            }
            partitions.put(id, new Held(partition, task.worker()));
            registering.notifyAll();
            return true;
        }
    }

    /**
     * The partition {@code id}, waiting for its producer to create it if it has not yet (a consumer
     * may be deployed in the same step as its producer, and its slot may start first — Flink's
     * consumers retry a partition request likewise); a lost-partition failure naming it if it was
     * released, or is still missing after {@value #PARTITION_WAIT_MILLIS} ms.
     *
     * @throws java.util.concurrent.CancellationException if {@code task} is cancelled meanwhile
     */
    ResultPartition partition(TaskRun task, PartitionId id)
            throws PartitionLostException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PARTITION_WAIT_MILLIS);
        synchronized (registering) {
            while (true) {
                Held held = partitions.get(id);
                if (held != null) {
                    return held.partition();
                }
                if (gone.contains(id)) {
                    throw new PartitionLostException(id, "it was released", null);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new PartitionLostException(
                            id,
                            "no worker produced it within " + PARTITION_WAIT_MILLIS + " ms",
                            null);
                }
                task.checkNotCancelled();
                registering.wait(Math.max(1, Math.min(50, TimeUnit.NANOSECONDS.toMillis(left))));
            }
        }
    }

    /** What the main thread last published of its counts, for a progress display. Any thread. */
    Counts counts() {
        return counts;
    }

    WorkerDescriptorCache descriptorCache() {
        return descriptorCache;
    }

    /** Called by a task's thread when its attempt ended; {@code failure} null if it finished. */
    void ended(TaskRun task, @Nullable Tally tally, @Nullable Throwable failure) {
        deployed.remove(key(task.task(), task.attempt()), task);
        if (failure == null) {
            onMain(() -> onFinished(task, tally == null ? Tally.ZERO : tally));
        } else if (!task.isCancelled()) {
            onMain(() -> onFailed(task, failure));
        }
    }

    /**
     * Worker {@code worker} is lost with everything on it: on the main thread, after the current
     * event, its partitions are released and reported lost to the JobMaster, and its running tasks
     * fail (not cancelled: their failures go through failover). Thread-safe.
     *
     * @return completed once that is done (or at once if the job is over)
     */
    CompletableFuture<Void> loseWorker(int worker) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        boolean queued =
                onMain(
                        () -> {
                            try {
                                releaseAndFail(worker);
                            } finally {
                                done.complete(null);
                            }
                        });
        if (!queued) {
            done.complete(null);
        }
        return done;
    }

    private void releaseAndFail(int worker) {
        for (Map.Entry<PartitionId, Held> entry : List.copyOf(partitions.entrySet())) {
            if (entry.getValue().worker() == worker) {
                releasePartition(worker, entry.getKey());
                jobMaster().onPartitionLost(entry.getKey());
            }
        }
        for (TaskRun task : deployed.values()) {
            if (task.worker() == worker) {
                task.loseWorker();
            }
        }
    }

    // ---- main thread ----

    private void onFinished(TaskRun task, Tally tally) throws IOException {
        if (!jobMaster().onTaskFinished(task.task(), task.attempt())) {
            return; // stale
        }
        finished[task.task()] = true;
        committed[task.task()] = tally;
        if (graph.numProducedDataSets(task.vertex()) == 0) { // a sink: what it commits counts
            committedRecords += tally.records();
        }
        numFinished++;
        counts = new Counts(numFinished, committedRecords, restarts);
        if (numFinished == graph.numTasks()) {
            complete(JobResult.State.FINISHED, null);
        }
    }

    private void onFailed(TaskRun task, Throwable failure) throws IOException {
        FailureHandling handling =
                jobMaster().onTaskFailed(task.task(), task.attempt(), failure, lost(failure));
        switch (handling.outcome()) {
            case RESTART -> {
                restarts++;
                forget(handling.restartSet());
                counts = new Counts(numFinished, committedRecords, restarts);
                // onMain reports its own failures; the future has nothing to add
                var unused =
                        main.schedule(
                                () -> onMain(() -> jobMaster().restart(handling)),
                                handling.delayMillis(),
                                TimeUnit.MILLISECONDS);
            }
            case FAIL_JOB -> complete(JobResult.State.FAILED, handling.failure());
            case IGNORED -> {}
        }
    }

    /** Restarted tasks have not finished, and what they committed no longer counts. */
    private void forget(RestartSet tasks) {
        tasks.forEachTask(
                t -> {
                    if (finished[t]) {
                        finished[t] = false;
                        Tally tally = committed[t];
                        if (tally != null
                                && graph.numProducedDataSets(graph.vertexOfTask(t)) == 0) {
                            committedRecords -= tally.records();
                        }
                        committed[t] = null;
                        numFinished--;
                    }
                });
    }

    private void complete(JobResult.State state, @Nullable Throwable cause) {
        ImmutableMap.Builder<Integer, Tally> sinks = ImmutableMap.builder();
        for (int v = 0; v < graph.numJobVertices(); v++) {
            if (graph.numProducedDataSets(v) > 0) {
                continue;
            }
            Tally total = Tally.ZERO;
            for (int t = graph.firstTask(v); t < graph.firstTask(v) + graph.parallelism(v); t++) {
                Tally tally = committed[t];
                total = tally == null ? total : total.plus(tally);
            }
            sinks.put(v, total);
        }
        outcome.complete(
                new Outcome(
                        state,
                        cause,
                        sinks.buildOrThrow(),
                        restarts,
                        tasksDeployed.get(),
                        System.nanoTime() - startNanos,
                        blobs.numBlobs(),
                        0));
    }

    private JobMaster jobMaster() {
        JobMaster current = master;
        if (current == null) {
            throw new IllegalStateException("the JobMaster is not built yet");
        }
        return current;
    }

    /** Queues {@code step} for the main thread (dropped once the job is over). Thread-safe. */
    private boolean onMain(MainStep step) {
        try {
            main.execute(() -> runStep(step));
            return true;
        } catch (RejectedExecutionException e) {
            return false; // the job is over: a late event of a cancelled task
        }
    }

    /** Runs {@code step} on the main thread; a failure of the JobManager core fails the job. */
    private void runStep(MainStep step) {
        try {
            step.run();
        } catch (Exception | Error e) {
            outcome.complete(
                    new Outcome(
                            JobResult.State.FAILED,
                            e,
                            ImmutableMap.of(),
                            restarts,
                            tasksDeployed.get(),
                            System.nanoTime() - startNanos,
                            blobs.numBlobs(),
                            0));
        }
    }

    @FunctionalInterface
    private interface MainStep {
        void run() throws Exception;
    }

    /**
     * The partition {@code failure} reports lost (the first {@link PartitionLostException} in its
     * cause chain), or null if it reports none: what the JobManager takes as the lost partition.
     */
    private static @Nullable PartitionId lost(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PartitionLostException e) {
                return e.partitionId();
            }
        }
        return null;
    }

    /** Cancels every deployed task and waits until each has ended. */
    private void stopTasks() throws InterruptedException {
        List<TaskRun> running = List.copyOf(deployed.values());
        for (TaskRun task : running) {
            task.cancel();
        }
        for (TaskRun task : running) {
            task.awaitEnd();
        }
    }

    /** Releases every partition still registered; how many there were. */
    private int releaseAll() {
        int left = 0;
        for (PartitionId id : List.copyOf(partitions.keySet())) {
            left++;
            releasePartition(-1, id);
        }
        return left;
    }

    private String describeDeployed() {
        StringBuilder out = new StringBuilder();
        for (TaskRun task : deployed.values()) {
            out.append("\n  ").append(task.describe());
        }
        return out.length() == 0 ? "none" : out.toString();
    }

    private static long key(int task, int attempt) {
        return ((long) task << 32) | attempt;
    }

    /** Stops the main thread (after closing the JobMaster) and every task of this job. */
    void shutDown() throws InterruptedException {
        stopTasks();
        main.execute(
                () -> {
                    JobMaster current = master;
                    if (current != null) {
                        try {
                            current.close();
                        } catch (IOException e) {
                            // the in-memory blob store does not fail
                        }
                    }
                });
        main.shutdown();
        main.awaitTermination(30, TimeUnit.SECONDS);
        stopTasks();
        releaseAll();
    }
}
