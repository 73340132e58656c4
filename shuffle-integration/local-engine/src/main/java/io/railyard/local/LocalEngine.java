package io.railyard.local;

import static com.google.common.base.Preconditions.checkArgument;

import io.railyard.deployment.FileSystemBlobStore;
import io.railyard.deployment.OffloadOptions;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.shuffle.ShuffleDirectory;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.HybridStats;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.Failures;
import io.railyard.topology.JobGraph;
import io.railyard.transport.DataServer;
import io.railyard.transport.TransportOptions;
import io.railyard.worker.TaskCode;
import io.railyard.worker.TaskSlots;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The embedded default execution engine: N workers × S slots in one process. Each worker has its
 * own {@link ShuffleWorker} (network-buffer pool, shuffle directory, IO thread) and its {@link
 * TaskSlots}: S slots whose tasks run as cooperative tasks on a few threads (as many as the machine
 * has cores by default), so a slot costs no thread; a job runs through a {@code JobMaster} on a
 * main thread of its own, which deploys tasks to the workers as its scheduling strategy decides,
 * feeds their ends and failures back into failover, and releases partitions as their consumers
 * finish.
 *
 * <ul>
 *   <li>Slots: a worker runs the tasks deployed to it in deployment order (the strategy's), S at a
 *       time, each in steps on the worker's task threads ({@link TaskCode}); a task holds its slot
 *       until it finishes, fails or is cancelled. Tasks are placed on workers round-robin in
 *       deployment order. The engine counts the slots running a task ({@link Progress#slotsBusy})
 *       and the most at once per job ({@link JobResult.Stats#maxSlotsBusy}).
 *   <li>Partitions by type: BLOCKING is the engine's blocking {@link PartitionKind}, {@link
 *       PartitionKind#SORT} or {@link PartitionKind#HASH}; HYBRID_FULL and HYBRID_SELECTIVE are
 *       {@link PartitionKind#HYBRID_FULL} and {@link PartitionKind#HYBRID_SELECTIVE}; PIPELINED and
 *       PIPELINED_BOUNDED are in-memory bounded partitions ({@link PartitionKind#PIPELINED}:
 *       consumers read from memory while the producer writes, and the producer waits once its bound
 *       of unconsumed pages is reached while all its consumers read; it spills only under pool
 *       pressure or while a consumer has no slot yet, so too few slots never deadlock). Hybrid and
 *       pipelined partitions exist from the producer's deployment, so a consumer deployed after it
 *       always finds them; a blocking partition exists once its producer finished.
 *   <li>A consumer reads every partition of its consumed groups in-process, through its own
 *       worker's IO thread and pages, wherever the partition was written (one machine); or, with a
 *       transport, over TCP from the data server of the worker that holds it (its own too).
 *   <li>Network memory: a job that can never fit a worker's pool is refused before anything is
 *       deployed ({@code MemoryFit}); a task that fits only once others have ended waits for their
 *       memory when it starts (see {@link io.railyard.worker.TaskShuffle#start}).
 *   <li>Results: what a sink commits counts only if its attempt finishes and is current then.
 * </ul>
 *
 * <p>Descriptors: a job offloads its large consumed groups to the engine's {@link
 * FileSystemBlobStore} (its {@code blobs/} directory, locked while the engine is open); a worker
 * that finds a group's blob missing or corrupt fails its task, and the restart offloads the group
 * again.
 *
 * <p>Files: everything lives in one {@code railyard-local-*} directory under the parent, deleted by
 * {@link #close}, by a shutdown hook if the process ends first (Ctrl-C, SIGTERM), and — if it was
 * killed outright — by the next engine made on the same parent, which sweeps the directories of
 * processes that no longer run.
 *
 * <p>Thread-safe: jobs may be run one after another ({@link #run} is synchronized); {@link #close}
 * stops every worker.
 */
public final class LocalEngine implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(LocalEngine.class.getName());
    private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** How long a cancelled task attempt has to end before it is reported as not stopping. */
    static final Duration CANCEL_GRACE = Duration.ofSeconds(30);

    private final ShuffleDirectory directory;
    // Where jobs offload large descriptor groups: a real store, below the engine's directory.
    private final FileSystemBlobStore blobs;
    private final List<Host> workers = new ArrayList<>();
    private final int slots;
    private final PartitionKind blocking;
    private volatile @Nullable JobRun current;
    private final AtomicInteger busy = new AtomicInteger(); // slots running a task, all workers
    private final AtomicInteger peakBusy = new AtomicInteger(); // the most at once this job
    private volatile @Nullable Watched watched; // the running job, for progress()
    private volatile Duration cancelGrace = CANCEL_GRACE;

    /** The running job, its number of tasks and when it started. */
    private record Watched(JobRun run, int tasks, long startNanos) {}

    /**
     * A snapshot of the running job, for a progress display: every count as of one moment on the
     * job's main thread, except {@code slotsBusy} and {@code elapsedNanos}, read when the snapshot
     * was taken.
     *
     * @param tasksFinished tasks whose current attempt finished (a restart takes its tasks back)
     * @param tasks tasks of the job
     * @param recordsCommitted records the finished sink tasks committed (a restart takes theirs
     *     back)
     * @param restarts restart decisions taken so far
     * @param slotsBusy slots running a task attempt now, over all workers
     * @param elapsedNanos since the job started
     */
    public record Progress(
            int tasksFinished,
            int tasks,
            long recordsCommitted,
            int restarts,
            int slotsBusy,
            long elapsedNanos) {}

    /**
     * Counts in {@code busy} the slots of every worker held by a task, the most in {@code peak}.
     */
    private record SlotCounts(AtomicInteger busy, AtomicInteger peak)
            implements TaskSlots.Listener {
        @Override
        public void taken() {
            peak.accumulateAndGet(busy.incrementAndGet(), Math::max);
        }

        @Override
        public void freed() {
            busy.decrementAndGet();
        }
    }

    /**
     * What a worker keeps from job to job: its shuffle layer, its task slots and its directory
     * (each job runs a {@link io.railyard.worker.Worker} over them).
     */
    record Host(
            int index,
            ShuffleWorker shuffle,
            TaskSlots slots,
            Path directory,
            @Nullable HostTransport transport) {}

    /**
     * Deletes what killed processes left under {@code parent}: Railyard directories whose marker
     * names a process that no longer runs ({@link ShuffleDirectory#sweepStale}); nothing else. A
     * directory that cannot be deleted is logged, not thrown: it must not stop this engine.
     */
    private static void sweepStale(Path parent) {
        try {
            List<Path> swept = ShuffleDirectory.sweepStale(parent);
            if (!swept.isEmpty()) {
                LOG.log(Level.INFO, "deleted what killed runs left: " + swept);
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not delete what killed runs left: " + e.getMessage());
        }
    }

    /**
     * An engine of {@code numWorkers} workers with {@code slotsPerWorker} slots each, writing under
     * a fresh shuffle directory in {@code parent}, each worker with network memory per {@code
     * options}; BLOCKING results are partitions of kind {@code blocking}.
     *
     * @param blocking {@link PartitionKind#SORT} or {@link PartitionKind#HASH}
     * @throws IllegalArgumentException if a count is below 1, naming it, or {@code blocking} is not
     *     a blocking kind
     * @throws IOException if a directory cannot be made
     */
    public LocalEngine(
            Path parent,
            int numWorkers,
            int slotsPerWorker,
            ShuffleOptions options,
            PartitionKind blocking)
            throws IOException {
        this(parent, numWorkers, slotsPerWorker, options, blocking, null);
    }

    /**
     * An engine as {@link #LocalEngine(Path, int, int, ShuffleOptions, PartitionKind)} makes whose
     * workers, when {@code transport} is not null, each run a data server on {@code transport}'s
     * address (a port of its own) and read every partition — their own too — over TCP through it:
     * the same jobs, with every byte between tasks crossing the network stack. A lost worker's
     * server and connections close for real, and it comes back on a new port.
     *
     * @throws IOException if a directory cannot be made or a data server cannot listen (the message
     *     names the address)
     */
    public LocalEngine(
            Path parent,
            int numWorkers,
            int slotsPerWorker,
            ShuffleOptions options,
            PartitionKind blocking,
            @Nullable TransportOptions transport)
            throws IOException {
        this(
                parent,
                numWorkers,
                slotsPerWorker,
                TaskSlots.defaultThreads(slotsPerWorker),
                options,
                blocking,
                transport);
    }

    /**
     * An engine as {@link #LocalEngine(Path, int, int, ShuffleOptions, PartitionKind,
     * TransportOptions)} makes whose workers each run their tasks on {@code threadsPerWorker}
     * threads (by default as many as the machine has cores, at most the slots).
     *
     * @throws IllegalArgumentException if a count is below 1, naming it
     * @throws IOException as that constructor does
     */
    public LocalEngine(
            Path parent,
            int numWorkers,
            int slotsPerWorker,
            int threadsPerWorker,
            ShuffleOptions options,
            PartitionKind blocking,
            @Nullable TransportOptions transport)
            throws IOException {
        checkArgument(numWorkers >= 1, "workers must be >= 1, was %s", numWorkers);
        checkArgument(slotsPerWorker >= 1, "slots must be >= 1, was %s", slotsPerWorker);
        checkArgument(threadsPerWorker >= 1, "task threads must be >= 1, was %s", threadsPerWorker);
        checkArgument(
                !blocking.isReadableWhileWritten(),
                "the partition kind of BLOCKING results must be SORT or HASH, was %s",
                blocking);
        sweepStale(parent);
        this.directory = ShuffleDirectory.create(parent, "railyard-local-").deleteOnExit();
        this.slots = slotsPerWorker;
        this.blocking = blocking;
        try {
            this.blobs = FileSystemBlobStore.open(directory.path().resolve("blobs"));
        } catch (IOException | RuntimeException e) {
            try {
                directory.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        try {
            for (int w = 0; w < numWorkers; w++) {
                Path dir = directory.path().resolve("worker-" + w);
                ShuffleWorker shuffle =
                        new ShuffleWorker(
                                transport == null
                                        ? options
                                        : withServing(
                                                options, transport, numWorkers, slotsPerWorker),
                                dir);
                HostTransport network = null;
                try {
                    network = transport == null ? null : new HostTransport(transport, shuffle);
                } catch (IOException | RuntimeException e) {
                    shuffle.close();
                    throw e;
                }
                TaskSlots threads =
                        new TaskSlots(
                                "railyard-w" + w,
                                slotsPerWorker,
                                threadsPerWorker,
                                new SlotCounts(busy, peakBusy));
                workers.add(new Host(w, shuffle, threads, dir, network));
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Streams one running task opens to one worker, at most, that a worker's pool is sized for. */
    static final int SERVED_GATES_PER_TASK = 2;

    /**
     * {@code options} with room for a worker's data server: its readers (one per stream, {@link
     * TransportOptions#servePages()} pages each) pledge pages of the worker's pool, which was sized
     * for its tasks alone; without room, a stream's reader — or a task's own gate or writer beside
     * it — could not be pledged and a task would fail for memory the job never asked for. Room for
     * every running task of every worker reading {@value #SERVED_GATES_PER_TASK} inputs from this
     * worker at once; a stream beyond that is refused, a task failure the job restarts.
     */
    private static ShuffleOptions withServing(
            ShuffleOptions options, TransportOptions transport, int workers, int slots) {
        long serving = (long) workers * slots * SERVED_GATES_PER_TASK * transport.servePages();
        return options.toBuilder()
                .totalPages((int) Math.min(Integer.MAX_VALUE, options.totalPages() + serving))
                .build();
    }

    /**
     * Fault injection: worker {@code worker} is lost with its partitions and running tasks, as if
     * its process died and a fresh one took its place; the running job's failover handles it (after
     * the event being handled, if any). A no-op when no job runs. Thread-safe; may be called from
     * {@link TaskCode.Factory#create} (do not wait for the result there: it runs on the thread that
     * processes the loss).
     *
     * @return completed once the loss has been processed (partitions released and reported, the
     *     worker's tasks marked to fail), or at once if no job runs
     * @throws IndexOutOfBoundsException if there is no such worker
     */
    public CompletableFuture<Void> loseWorker(int worker) {
        com.google.common.base.Preconditions.checkElementIndex(worker, workers.size(), "worker");
        JobRun run = current;
        return run != null ? run.loseWorker(worker) : CompletableFuture.completedFuture(null);
    }

    /**
     * The running job's progress, or null when no job runs. For a display polling from any thread:
     * thread-safe, O(1), takes no lock the job uses, allocates one record.
     */
    public @Nullable Progress progress() {
        Watched job = watched;
        if (job == null) {
            return null;
        }
        JobRun.Counts counts = job.run().counts();
        return new Progress(
                counts.finished(),
                job.tasks(),
                counts.committedRecords(),
                counts.restarts(),
                busy.get(),
                System.nanoTime() - job.startNanos());
    }

    /** Number of workers. */
    public int numWorkers() {
        return workers.size();
    }

    /** Slots per worker. */
    public int slotsPerWorker() {
        return slots;
    }

    /**
     * Runs {@code graph} to its end: every task finished ({@link JobResult.Finished}) or the
     * restart policy gave up ({@link JobResult.Failed}, with the cause). Partitions are released as
     * their consumers finish; the result reports anything left behind, the bytes the workers'
     * shuffle layers wrote and read during the job ({@link JobResult.ShuffleBytes}, from their
     * {@link ShuffleWorker#stats()} and {@link ShuffleWorker#hybridStats()}) and the most slots
     * busy at once. {@link #progress()} follows the job while it runs. Once the job has ended its
     * attempts still running are cancelled and waited for, 30 s in all: an attempt whose code
     * ignores its cancellation that long is named in {@link JobResult.Leaks#tasksNotStopped()} (its
     * partitions are released under it; its thread, and the pages it holds, stay until its code
     * returns), and the result is returned all the same.
     *
     * @throws IllegalArgumentException if a dataset's consumers cannot share its partitions (see
     *     {@link #checkRunnable}), or if the job can never fit in a worker's network memory — a
     *     task alone, or the writers a pipelined region creates at its deployment (one line naming
     *     it, the pages it needs and those a worker has); nothing is deployed then
     * @throws TimeoutException if the job did not end within {@code timeout}: the message lists
     *     every task attempt still deployed and what it waits for; everything is cancelled and
     *     released before it is thrown
     * @throws InterruptedException if interrupted while waiting (the job is cancelled)
     */
    public JobResult run(
            JobGraph graph, TaskCode.Factory code, RestartBackoffPolicy policy, Duration timeout)
            throws TimeoutException, InterruptedException, IOException {
        return run(graph, code, policy, timeout, OffloadOptions.DEFAULT);
    }

    /**
     * {@link #run(JobGraph, TaskCode.Factory, RestartBackoffPolicy, Duration)} with descriptors
     * offloaded to the job's blob store as {@code offload} says (tests offload every group to check
     * that a job leaves no blob behind).
     */
    synchronized JobResult run(
            JobGraph graph,
            TaskCode.Factory code,
            RestartBackoffPolicy policy,
            Duration timeout,
            OffloadOptions offload)
            throws TimeoutException, InterruptedException, IOException {
        checkRunnable(graph);
        MemoryFit.check(graph, workers.get(0).shuffle(), workers.size(), blocking);
        long[] pagesBefore = new long[workers.size()];
        long[] filesBefore = new long[workers.size()];
        for (Host worker : workers) {
            pagesBefore[worker.index()] = worker.shuffle().bufferPool().pagesInUse();
            filesBefore[worker.index()] = files(worker.directory());
        }
        JobResult.ShuffleBytes bytesBefore = shuffleBytes();
        peakBusy.set(busy.get());
        long startNanos = System.nanoTime();
        JobRun run =
                new JobRun(
                        graph, code, policy, offload, workers, blocking, cancelGrace, blobStore());
        current = run;
        watched = new Watched(run, graph.numTasks(), startNanos);
        try {
            run.start(); // once published: a task's loseWorker, as it starts, finds this run
            JobRun.Ended ended = run.await(timeout);
            // The IO thread returns a closed gate's in-flight pages at the end of its round: give
            // the workers a moment to settle before calling anything a leak (not for an attempt
            // that did not stop: it holds its pages until its code returns).
            long settleBy = System.nanoTime() + SETTLE_NANOS;
            while (true) {
                long pages = 0;
                long files = 0;
                for (Host worker : workers) {
                    pages +=
                            worker.shuffle().bufferPool().pagesInUse()
                                    - pagesBefore[worker.index()];
                    files += files(worker.directory()) - filesBefore[worker.index()];
                }
                if ((pages == 0 && files == 0)
                        || !ended.tasksNotStopped().isEmpty()
                        || System.nanoTime() > settleBy) {
                    JobResult.ShuffleBytes after = shuffleBytes();
                    return ended.result(
                            pages,
                            files,
                            new JobResult.ShuffleBytes(
                                    after.writtenToDisk() - bytesBefore.writtenToDisk(),
                                    after.readFromDisk() - bytesBefore.readFromDisk(),
                                    after.readFromMemory() - bytesBefore.readFromMemory()),
                            peakBusy.get());
                }
                Thread.sleep(5);
            }
        } finally {
            current = null;
            watched = null;
            run.shutDown();
        }
    }

    /**
     * Checks that one partition per producer can feed every consumer vertex of each dataset: those
     * reading a dataset through several edges must read it alike (the same pattern and parallelism:
     * a record goes to one subpartition, which each edge must map to one consumer), and only a
     * re-consumable type may be read by several (a PIPELINED or HYBRID_SELECTIVE subpartition can
     * be read once). As Flink requires of a dataset's consumers. O(edges).
     *
     * @throws IllegalArgumentException naming the dataset, its edges and what differs
     */
    public static void checkRunnable(JobGraph graph) {
        for (int e = 0; e < graph.numEdges(); e++) {
            int d = graph.edgeDataSet(e);
            int first = graph.consumerEdge(d, 0);
            if (graph.numConsumerEdges(d) > 1 && e != first) {
                checkArgument(
                        graph.resultType(d).isReconsumable(),
                        "%s and %s read one %s dataset; a subpartition of that type can be read"
                                + " once: give each consumer vertex its own dataset",
                        graph.describeEdge(first),
                        graph.describeEdge(e),
                        graph.resultType(d));
                checkArgument(
                        graph.edgePattern(e) == graph.edgePattern(first)
                                && graph.parallelism(graph.edgeConsumer(e))
                                        == graph.parallelism(graph.edgeConsumer(first)),
                        "%s and %s read one dataset with different patterns or parallelisms (%s %s,"
                                + " %s %s); one partition per producer cannot feed both: give each"
                                + " consumer vertex its own dataset",
                        graph.describeEdge(first),
                        graph.describeEdge(e),
                        graph.edgePattern(first),
                        graph.parallelism(graph.edgeConsumer(first)),
                        graph.edgePattern(e),
                        graph.parallelism(graph.edgeConsumer(e)));
            }
        }
    }

    /** The engine's blob store (jobs offload large descriptor groups there). */
    FileSystemBlobStore blobStore() {
        return blobs;
    }

    /** Tests: the network-buffer pages in use now, over every worker. */
    long pagesInUse() {
        long pages = 0;
        for (Host worker : workers) {
            pages += worker.shuffle().bufferPool().pagesInUse();
        }
        return pages;
    }

    /**
     * Tests: how long a cancelled attempt has to end (default {@link #CANCEL_GRACE}) before the job
     * ends without it ({@link JobResult.Leaks#tasksNotStopped()}) and {@link #close} gives up on
     * its thread.
     */
    void cancelGrace(Duration grace) {
        this.cancelGrace = grace;
    }

    /**
     * Stops every worker: their task threads (interrupted, and waited for the cancel grace in all;
     * a thread that ignores both goes on as a daemon), IO threads and memory; deletes the
     * directory.
     */
    @Override
    public void close() throws IOException {
        IOException failure = null;
        long deadline = System.nanoTime() + cancelGrace.toNanos();
        for (Host worker : workers) {
            try {
                worker.slots()
                        .close(
                                TimeUnit.NANOSECONDS.toMillis(
                                        Math.max(0, deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            HostTransport network = worker.transport();
            if (network != null) {
                network.close();
            }
            try {
                worker.shuffle().close();
            } catch (IOException e) {
                failure = Failures.add(failure, e);
            }
        }
        workers.clear();
        try {
            blobs.close();
        } catch (IOException e) {
            failure = Failures.add(failure, e);
        }
        try {
            directory.close();
        } catch (IOException e) {
            failure = Failures.add(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Where worker {@code worker}'s data server listens now (a new port after the worker was lost),
     * or null without a transport.
     *
     * @throws IndexOutOfBoundsException if there is no such worker
     */
    public @Nullable InetSocketAddress dataAddress(int worker) {
        HostTransport network = workers.get(worker).transport();
        return network == null ? null : network.current().address();
    }

    /**
     * Payload bytes the workers' data servers sent so far; of those, the bytes they did not copy;
     * of those, the bytes sent as file regions. Zeros without a transport. O(workers).
     */
    public long[] networkBytes() {
        long sent = 0;
        long withoutCopy = 0;
        long fromFiles = 0;
        for (Host worker : workers) {
            HostTransport network = worker.transport();
            if (network != null) {
                DataServer.Stats stats = network.current().server().stats();
                sent += stats.bytesSent();
                withoutCopy += stats.bytesSentWithoutCopy();
                fromFiles += stats.bytesSentFromFiles();
            }
        }
        return new long[] {sent, withoutCopy, fromFiles};
    }

    /** What every worker's shuffle layer moved so far, summed. O(workers). */
    private JobResult.ShuffleBytes shuffleBytes() {
        long written = 0;
        long readFromDisk = 0;
        long readFromMemory = 0;
        for (Host worker : workers) {
            ShuffleWorker.ShuffleStats stats = worker.shuffle().stats();
            HybridStats hybrid = worker.shuffle().hybridStats();
            // stats() counts every writer's data file, hybrid ones' included, but not the IO
            // thread's spills; it counts the IO thread's reads, not the hybrid readers' own.
            written += stats.bytesWritten() + hybrid.bytesSpilled();
            readFromDisk += stats.bytesRead() + hybrid.bytesReadFromDisk();
            readFromMemory += hybrid.bytesReadFromMemory();
        }
        return new JobResult.ShuffleBytes(written, readFromDisk, readFromMemory);
    }

    private static long files(Path dir) {
        try (Stream<Path> entries = Files.walk(dir)) {
            return entries.filter(Files::isRegularFile).count();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }
}
