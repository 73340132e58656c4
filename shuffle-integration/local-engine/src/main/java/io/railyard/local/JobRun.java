package io.railyard.local;

import com.google.common.collect.ImmutableMap;
import io.railyard.deployment.FileSystemBlobStore;
import io.railyard.deployment.JobId;
import io.railyard.deployment.JobSecret;
import io.railyard.deployment.OffloadOptions;
import io.railyard.deployment.SliceBudget;
import io.railyard.deployment.WorkerTable;
import io.railyard.failover.FailureHandling;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.failover.RestartSet;
import io.railyard.jobmaster.JobMaster;
import io.railyard.jobmaster.WorkerGateway;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.AttemptId;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import io.railyard.worker.PartitionLocator;
import io.railyard.worker.PartitionRegistry;
import io.railyard.worker.ShuffleEnvironment;
import io.railyard.worker.ShuffleNetwork;
import io.railyard.worker.Tally;
import io.railyard.worker.TaskCode;
import io.railyard.worker.TaskListener;
import io.railyard.worker.Worker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * One job on the {@link LocalEngine}: its {@link JobMaster} on a main thread of its own, one {@link
 * Worker} per engine worker (its shuffle environment, partition registry and task attempts), the
 * gateway that routes the JobMaster's requests to them, and the bookkeeping of which tasks finished
 * and what sinks committed.
 *
 * <p>Threading: everything that touches the JobMaster, {@link #finished} or {@link #committed} runs
 * on {@link #main}; the workers report their attempts' ends here and each report is posted to it.
 */
final class JobRun implements TaskListener {
    /** Runs started in this process, to number their JobManager threads. */
    private static final AtomicInteger RUNS = new AtomicInteger();

    private static final AtomicLong NEXT_JOB = new AtomicLong();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final JobGraph graph;
    private final List<Worker> workers;
    private final ScheduledExecutorService main;
    private final FileSystemBlobStore blobs;
    private final CompletableFuture<Ended> ended = new CompletableFuture<>();
    private final AtomicLong tasksDeployed = new AtomicLong();
    private final long startNanos = System.nanoTime();
    private final List<LocalEngine.Host> hosts;
    // The job's id: the JobMaster's, and its data servers' with a transport (the secret its
    // readers prove is the JobMaster's too, and reaches the workers in the descriptors only).
    private final JobId jobId = new JobId(NEXT_JOB.incrementAndGet(), RANDOM.nextLong());
    private final Duration cancelGrace;
    // Set by the caller's thread (await, shutDown): whether the tasks were stopped once (a later
    // stop does not wait again for what ignored the first), and what was still running then.
    private boolean stopped;
    private List<String> notStopped = List.of();
    private @Nullable JobMaster master; // main thread
    private final boolean[] finished; // main thread
    private final @Nullable Tally[] committed; // main thread
    private int numFinished; // main thread
    private int restarts; // main thread
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
            List<LocalEngine.Host> hosts,
            PartitionKind blocking,
            Duration cancelGrace,
            FileSystemBlobStore blobs) {
        this.graph = graph;
        this.blobs = blobs;
        this.cancelGrace = cancelGrace;
        this.finished = new boolean[graph.numTasks()];
        this.committed = new Tally[graph.numTasks()];
        this.main =
                Executors.newSingleThreadScheduledExecutor(
                        task -> {
                            // Numbered: a confinement check or a thread dump names which job's.
                            Thread thread =
                                    new Thread(
                                            task, "railyard-jobmaster-" + RUNS.incrementAndGet());
                            thread.setDaemon(true);
                            return thread;
                        });
        List<Worker> made = new ArrayList<>(hosts.size());
        List<String> locations = new ArrayList<>(hosts.size());
        PartitionLocator peers = this::registry;
        this.hosts = List.copyOf(hosts);
        for (LocalEngine.Host host : hosts) {
            HostTransport network = host.transport();
            ShuffleEnvironment environment =
                    new ShuffleEnvironment(
                            host.index(),
                            host.shuffle(),
                            blocking,
                            blobs,
                            peers,
                            network == null ? null : network(network));
            made.add(new Worker(environment, host.slots(), code, this));
            locations.add(
                    network == null
                            ? "local-" + host.index() + ":0"
                            : address(network.current().address()));
        }
        this.workers = List.copyOf(made);
        onMain(
                () -> {
                    JobMaster created =
                            JobMaster.builder(
                                            graph,
                                            new WorkerTable(locations),
                                            new LocalGateway(),
                                            (task, attempt, handling) -> handle(handling))
                                    .jobId(jobId)
                                    .restartPolicy(policy)
                                    .blobs(blobs, offload)
                                    .deployInSlices(SliceBudget.DEFAULT, step -> onMain(step::run))
                                    .build();
                    master = created;
                });
    }

    /**
     * Starts the job: the JobMaster schedules its first regions, on the main thread once it is
     * built. Separate from the constructor so that the engine publishes this run first: a task may
     * call {@link LocalEngine#loseWorker} as soon as it starts, and the loss must reach this run.
     */
    void start() {
        onMain(() -> jobMaster().start());
    }

    /**
     * How the job ended, as its main thread saw it: the outcome, what the sinks committed, the
     * restarts, attempts deployed and wall time, the blobs left in the store; then, once {@link
     * #await} stopped the tasks and released what nobody had, the attempts that did not stop and
     * the partitions that were left. The engine adds what only the workers can tell ({@link
     * #result}).
     */
    record Ended(
            JobResult.Outcome outcome,
            ImmutableMap<Integer, Tally> committed,
            int restarts,
            long tasksDeployed,
            long wallNanos,
            int blobsLeft,
            int partitionsLeft,
            List<String> tasksNotStopped) {
        Ended afterCleanup(int left, List<String> notStopped) {
            return new Ended(
                    outcome,
                    committed,
                    restarts,
                    tasksDeployed,
                    wallNanos,
                    blobsLeft,
                    left,
                    notStopped);
        }

        /** The job's result, with what the workers left and moved and the most slots busy. */
        JobResult result(
                long leakedPages,
                long leakedFiles,
                JobResult.ShuffleBytes shuffle,
                int maxSlotsBusy) {
            return new JobResult(
                    outcome,
                    committed,
                    new JobResult.Stats(restarts, tasksDeployed, wallNanos, maxSlotsBusy),
                    new JobResult.Leaks(
                            leakedPages, leakedFiles, partitionsLeft, blobsLeft, tasksNotStopped),
                    shuffle);
        }
    }

    /**
     * Waits for the end; see {@link LocalEngine#run}. The job's tasks are then stopped (a failed
     * job's may still run; one that ignores its cancellation for the grace is reported, not waited
     * for) and every partition still registered is released.
     */
    Ended await(Duration timeout) throws TimeoutException, InterruptedException, IOException {
        try {
            Ended end = ended.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            stopTasks();
            return end.afterCleanup(releaseAll(), notStopped);
        } catch (TimeoutException e) {
            String waiting = describeDeployed();
            stopTasks();
            releaseAll();
            throw new TimeoutException(
                    "the job did not end within "
                            + timeout
                            + "; task attempts deployed: "
                            + waiting
                            + (notStopped.isEmpty()
                                    ? ""
                                    : "; still running after their cancellation: " + notStopped));
        } catch (ExecutionException e) {
            throw new IllegalStateException("the job's bookkeeping failed", e.getCause());
        }
    }

    /** Routes the JobMaster's requests to the workers they name. Main thread. */
    private final class LocalGateway implements WorkerGateway {
        @Override
        public void deploy(int worker, byte[] descriptor) {
            tasksDeployed.incrementAndGet();
            workers.get(worker).deploy(descriptor);
        }

        @Override
        public void cancel(int worker, int task, int attempt) {
            workers.get(worker).cancel(task, attempt);
        }

        @Override
        public void releasePartition(int worker, PartitionId partition) {
            try {
                workers.get(worker).releasePartition(partition);
            } catch (IOException e) {
                // Not lost: files still there after the job count in JobResult.Leaks.files, and
                // the engine's close deletes its whole directory. A HybridPartition also records
                // them with its worker, whose close retries them; a blocking (sort or hash)
                // partition's release does not, so nothing retries those before that.
            }
        }
    }

    /** The registry of worker {@code worker}'s partitions: in-process, its own. Any thread. */
    private PartitionRegistry registry(int worker) {
        return workers.get(worker).environment().partitions();
    }

    /** What the main thread last published of its counts, for a progress display. Any thread. */
    Counts counts() {
        return counts;
    }

    @Override
    public void finished(AttemptId attempt, Tally tally) {
        onMain(() -> onFinished(attempt, tally));
    }

    @Override
    public void failed(AttemptId attempt, Throwable cause) {
        onMain(() -> onFailed(attempt, cause));
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

    private void releaseAndFail(int worker) throws IOException {
        List<PartitionId> released = workers.get(worker).lose();
        HostTransport network = hosts.get(worker).transport();
        if (network != null) {
            network.restart(); // its sockets close for real; it comes back on a new port
        } // and serves this job again when a task of it is deployed there
        for (PartitionId lost : released) {
            jobMaster().onPartitionLost(lost);
        }
    }

    // ---- the transport (with --transport tcp) ----

    /**
     * The network of the worker of {@code network}, always through its current transport (a worker
     * that came back on a new port serves and reads there), finding each holder at its current data
     * server.
     */
    private ShuffleNetwork network(HostTransport network) {
        IntFunction<InetSocketAddress> addresses = this::dataServer;
        return new ShuffleNetwork() {
            @Override
            public void serve(JobId job, JobSecret secret, PartitionRegistry partitions) {
                network.current().serve(job, secret, partitions);
            }

            @Override
            public InputGate openGate(
                    String name,
                    JobId job,
                    JobSecret secret,
                    int[] holders,
                    List<PartitionId> partitions,
                    int subpartition) {
                return network.current()
                        .network(addresses)
                        .openGate(name, job, secret, holders, partitions, subpartition);
            }
        };
    }

    /** Worker {@code worker}'s current data server. */
    private InetSocketAddress dataServer(int worker) {
        HostTransport held = hosts.get(worker).transport();
        if (held == null) {
            throw new IllegalStateException("worker " + worker + " has no transport");
        }
        return held.current().address();
    }

    private static String address(InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }

    /** Every worker's data server stops serving this job. */
    private void stopServing() {
        for (LocalEngine.Host host : hosts) {
            HostTransport network = host.transport();
            if (network != null) {
                network.current().server().stopServing(jobId);
            }
        }
    }

    // ---- main thread ----

    private void onFinished(AttemptId attempt, Tally tally) throws IOException {
        int task = attempt.task();
        if (!jobMaster().onTaskFinished(task, attempt.attempt())) {
            return; // stale
        }
        finished[task] = true;
        committed[task] = tally;
        if (graph.numProducedDataSets(graph.vertexOfTask(task)) == 0) { // a sink: it counts
            committedRecords += tally.records();
        }
        numFinished++;
        counts = new Counts(numFinished, committedRecords, restarts);
        if (numFinished == graph.numTasks()) {
            complete(JobResult.FINISHED, committedBySink());
        }
    }

    private void onFailed(AttemptId attempt, Throwable failure) throws IOException {
        PartitionId lost = lost(failure);
        FailureHandling handling =
                lost == null
                        ? jobMaster().onTaskFailed(attempt.task(), attempt.attempt(), failure)
                        : jobMaster()
                                .onTaskFailed(attempt.task(), attempt.attempt(), failure, lost);
        handle(handling);
    }

    /**
     * Runs a failover decision: a restart after its delay (what it restarts no longer counts as
     * finished), the job's end on a failed job.
     */
    private void handle(FailureHandling handling) {
        if (handling instanceof FailureHandling.Restart restart) {
            restarts++;
            forget(restart.tasks());
            counts = new Counts(numFinished, committedRecords, restarts);
            // onMain reports its own failures; the future has nothing to add
            var unused =
                    main.schedule(
                            () -> onMain(() -> jobMaster().restart(restart)),
                            restart.delayMillis(),
                            TimeUnit.MILLISECONDS);
        } else if (handling instanceof FailureHandling.FailJob failJob) {
            complete(new JobResult.Failed(failJob.failure()), committedBySink());
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

    /** Per sink vertex, what its finished tasks committed. Main thread. */
    private ImmutableMap<Integer, Tally> committedBySink() {
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
        return sinks.buildOrThrow();
    }

    /** Ends the job (the first call does; later ones are ignored). Main thread. */
    private void complete(JobResult.Outcome outcome, ImmutableMap<Integer, Tally> committed) {
        ended.complete(
                new Ended(
                        outcome,
                        committed,
                        restarts,
                        tasksDeployed.get(),
                        System.nanoTime() - startNanos,
                        blobsLeft(),
                        0,
                        List.of()));
    }

    /** Blobs in the store now (its other jobs ended), -1 if its directory cannot be read. */
    private int blobsLeft() {
        try {
            return blobs.numBlobs();
        } catch (IOException e) {
            return -1;
        }
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
            complete(new JobResult.Failed(e), ImmutableMap.of());
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

    /**
     * Cancels every deployed task and waits until each has ended: for the cancel grace in all the
     * first time, without waiting again for what ignored it. What still ran is kept in {@link
     * #notStopped}: a JVM cannot stop a thread that ignores its cancellation, so it goes on in its
     * slot, its partitions released under it (its next record or wait then fails).
     */
    private void stopTasks() throws InterruptedException {
        for (Worker worker : workers) {
            worker.cancelTasks(); // all at once: one stuck task does not delay the others' cancel
        }
        long deadline = System.nanoTime() + (stopped ? 0 : cancelGrace.toNanos());
        stopped = true;
        List<String> stuck = new ArrayList<>();
        for (Worker worker : workers) {
            stuck.addAll(
                    worker.stopTasks(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
        }
        notStopped = List.copyOf(stuck);
    }

    /** Releases every partition still registered; how many there were. */
    private int releaseAll() {
        int left = 0;
        for (Worker worker : workers) {
            try {
                left += worker.environment().partitions().releaseAll().size();
            } catch (IOException e) {
                left++; // at least the one that failed; its files count as leaked
            }
        }
        return left;
    }

    private String describeDeployed() {
        StringBuilder out = new StringBuilder();
        for (Worker worker : workers) {
            out.append(worker.describeTasks());
        }
        return out.length() == 0 ? "none" : out.toString();
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
                            // A blob that cannot be deleted keeps its reference (Leaks.blobs
                            // counted it); the engine's close deletes its whole directory.
                        }
                    }
                });
        main.shutdown();
        main.awaitTermination(30, TimeUnit.SECONDS);
        stopTasks();
        releaseAll();
        stopServing();
    }
}
