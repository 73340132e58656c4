package io.railyard.benchmarks.procedures;

import io.railyard.benchmarks.procedures.ShuffleThroughput.Consumers;
import io.railyard.benchmarks.procedures.ShuffleThroughput.HybridCounts;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Settings;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Throughput;
import io.railyard.shuffle.partition.HybridPartition;
import io.railyard.shuffle.partition.HybridPartitionWriter;
import io.railyard.shuffle.partition.HybridStats;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleWorker;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * One run of a hybrid kind for {@link ShuffleThroughput}: P producers write P hybrid partitions
 * while P consumers read them, attached as {@link Consumers} says.
 *
 * <h2>What runs where</h2>
 *
 * <ul>
 *   <li>The calling thread coordinates: it creates every writer up front ({@link Consumers#EARLY
 *       early}, {@link Consumers#LATE late}: a gate reads a fixed list of partitions, so they must
 *       all exist before the first gate opens), opens each consumer's gate at its moment, and
 *       waits.
 *   <li>Producers run on {@code slots} producer threads, {@code slots} at a time as for blocking
 *       kinds; each writes its share and finishes its writer (with {@link Consumers#WAVES waves} it
 *       also creates the writer when it starts).
 *   <li>Consumers are {@link GateDrain}s on {@code min(slots, P)} consumer threads of their own: a
 *       drain runs while its gate has buffers and gives the thread back when it has none, so P open
 *       gates need no P threads and no consumer waits for a thread a producer holds. They only
 *       decode and count, so they drain faster than producers produce.
 *   <li>The worker's IO thread fills the gates, from resident regions and from the files.
 * </ul>
 *
 * <p>Times: writing runs from the first producer's start to the last producer's end; reading from
 * the first gate opened to the last consumer's end (with early consumers it spans the production).
 * Counters: the worker's hybrid counters once every consumer ended. Files: the partitions' data
 * files and the spill files of those that spilled.
 *
 * <p>Not thread-safe: one instance per run, driven by the calling thread.
 */
final class HybridShuffle {
    private static final long STALL_NANOS = TimeUnit.MINUTES.toNanos(5);

    private final ShuffleWorker worker;
    private final Settings settings;
    private final PartitionKind kind;
    private final int parallelism;
    private final ExecutorService producerThreads;
    private final ExecutorService consumerThreads;
    private final byte[] source;
    private final AtomicReferenceArray<HybridPartition> partitions;
    private final CountDownLatch created;
    private final List<HybridPartitionWriter> writers = new ArrayList<>();
    private final List<Future<Delivered>> producers = new ArrayList<>();
    private final AtomicLong lastProducerEnd = new AtomicLong();
    private final List<GateDrain> drains = new ArrayList<>();
    private final AtomicInteger consumersLeft;
    private final CompletableFuture<@Nullable Void> consumed = new CompletableFuture<>();
    private final Semaphore consumerSlots;
    private long firstGateNanos;

    private HybridShuffle(
            ShuffleWorker worker,
            Settings settings,
            PartitionKind kind,
            ExecutorService producerThreads,
            ExecutorService consumerThreads) {
        this.worker = worker;
        this.settings = settings;
        this.kind = kind;
        this.parallelism = settings.parallelism();
        this.producerThreads = producerThreads;
        this.consumerThreads = consumerThreads;
        this.source = ShuffleRecords.source(settings.recordBytes());
        this.partitions = new AtomicReferenceArray<>(parallelism);
        this.created =
                new CountDownLatch(settings.consumers() == Consumers.WAVES ? parallelism : 0);
        this.consumersLeft = new AtomicInteger(parallelism);
        this.consumerSlots = new Semaphore(Math.min(settings.slots(), parallelism));
    }

    /**
     * Runs {@code kind} (a hybrid kind) with files in {@code directory}; an I/O failure is recorded
     * in the result, with every page returned.
     *
     * @throws IllegalStateException if the consumers did not read exactly what was written (a bug)
     */
    static Throughput run(Path directory, Settings settings, PartitionKind kind)
            throws IOException {
        int consumerThreads = Math.min(settings.slots(), settings.parallelism());
        String prefix = "shuffle-" + ShuffleThroughput.key(kind);
        ExecutorService producing =
                Executors.newFixedThreadPool(
                        settings.slots(), ShuffleTasks.daemon(prefix + "-producer-"));
        ExecutorService consuming =
                Executors.newFixedThreadPool(
                        consumerThreads, ShuffleTasks.daemon(prefix + "-consumer-"));
        try (ShuffleWorker worker = new ShuffleWorker(settings.options(), directory)) {
            HybridShuffle run = new HybridShuffle(worker, settings, kind, producing, consuming);
            Throughput result = null;
            IOException failure = null;
            try {
                result = run.execute();
            } catch (IOException e) {
                failure = e;
            } finally {
                IOException cleanUp = run.cleanUp();
                if (cleanUp != null) {
                    if (failure == null) {
                        failure = cleanUp;
                    } else {
                        failure.addSuppressed(cleanUp);
                    }
                }
            }
            if (failure != null) {
                return ShuffleThroughput.ioError(
                        worker.stats().filesCreated(),
                        ShuffleThroughput.key(kind) + ": " + ShuffleThroughput.describe(failure));
            }
            return Objects.requireNonNull(result);
        } finally {
            ShuffleTasks.stop(producing);
            ShuffleTasks.stop(consuming);
        }
    }

    private Throughput execute() throws IOException {
        long writeStart;
        if (settings.consumers() == Consumers.WAVES) {
            writeStart = System.nanoTime();
            startProducers();
            attachInWaves(awaitCreated());
        } else {
            createWriters();
            List<HybridPartition> all = all();
            int early =
                    parallelism - (settings.consumers() == Consumers.LATE ? parallelism / 2 : 0);
            for (int consumer = 0; consumer < early; consumer++) {
                attach(all, consumer);
            }
            writeStart = System.nanoTime();
            startProducers();
            if (early < parallelism) {
                awaitProduced(settings.bytes() / 2);
                for (int consumer = early; consumer < parallelism; consumer++) {
                    attach(all, consumer);
                }
            }
        }
        ShuffleTasks.await(producers);
        awaitConsumed();
        return measured(writeStart);
    }

    private Throughput measured(long writeStart) throws IOException {
        Delivered written = Delivered.NONE;
        for (Delivered one : ShuffleTasks.await(producers)) {
            written = written.plus(one);
        }
        Delivered read = Delivered.NONE;
        long lastEnd = 0;
        for (GateDrain drain : drains) {
            read = read.plus(drain.read());
            lastEnd = Math.max(lastEnd, drain.endNanos());
        }
        Delivered.checkAllRead(ShuffleThroughput.key(kind), read, written);
        long files = 0;
        for (HybridPartition partition : all()) {
            for (Path file : partition.files()) {
                files += Files.exists(file) ? 1 : 0;
            }
        }
        return new Throughput.Measured(
                ShuffleThroughput.mbPerSecond(settings.bytes(), lastProducerEnd.get() - writeStart),
                ShuffleThroughput.mbPerSecond(read.bytes(), lastEnd - firstGateNanos),
                files,
                read,
                new HybridCounts(worker.hybridStats()),
                null);
    }

    // ---- producers ----

    /** Early and late consumers: every writer before the first gate, on this thread. */
    private void createWriters() throws IOException {
        for (int producer = 0; producer < parallelism; producer++) {
            HybridPartitionWriter writer = create(producer);
            writers.add(writer);
            partitions.set(producer, writer.partition());
        }
    }

    /** Producer {@code producer}'s writer: of a hybrid kind (ShuffleWorker#createPartition). */
    private HybridPartitionWriter create(int producer) throws IOException {
        return (HybridPartitionWriter)
                worker.createPartition(ShuffleRecords.partitionOf(producer), parallelism, kind);
    }

    private void startProducers() {
        for (int producer = 0; producer < parallelism; producer++) {
            int index = producer;
            long share = ShuffleRecords.share(settings.bytes(), parallelism, producer);
            HybridPartitionWriter writer = writers.isEmpty() ? null : writers.get(producer);
            producers.add(producerThreads.submit(() -> produce(index, share, writer)));
        }
    }

    /**
     * One producer's task: creates its writer unless it was given one, writes, finishes; returns
     * what it wrote.
     */
    private Delivered produce(int producer, long share, @Nullable HybridPartitionWriter given)
            throws IOException {
        HybridPartitionWriter writer = given;
        if (writer == null) {
            try {
                writer = create(producer);
                partitions.set(producer, writer.partition());
            } finally {
                created.countDown();
            }
        }
        Delivered written;
        try (HybridPartitionWriter owned = writer) {
            written =
                    ShuffleRecords.write(
                            owned::emit,
                            owned.name(),
                            owned.numSubpartitions(),
                            share,
                            settings.recordBytes(),
                            source,
                            settings.producerPace());
            owned.finish();
        }
        lastProducerEnd.accumulateAndGet(System.nanoTime(), Math::max);
        return written;
    }

    /** Late consumers: waits until the partitions have produced {@code bytes} (or all ended). */
    private void awaitProduced(long bytes) throws InterruptedIOException {
        while (worker.hybridStats().bytesProduced() < bytes && !allDone(producers)) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            if (Thread.interrupted()) {
                throw new InterruptedIOException("interrupted while waiting for production");
            }
        }
    }

    /** Waves: every partition, once the last producer created its writer. */
    private List<HybridPartition> awaitCreated() throws IOException {
        try {
            created.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while producers started");
        }
        for (int producer = 0; producer < parallelism; producer++) {
            if (partitions.get(producer) == null) {
                ShuffleTasks.await(producers); // throws that producer's failure
            }
        }
        return all();
    }

    private List<HybridPartition> all() {
        List<HybridPartition> all = new ArrayList<>(parallelism);
        for (int producer = 0; producer < parallelism; producer++) {
            all.add(Objects.requireNonNull(partitions.get(producer), "partition not created"));
        }
        return all;
    }

    private static boolean allDone(List<? extends Future<?>> futures) {
        for (Future<?> future : futures) {
            if (!future.isDone()) {
                return false;
            }
        }
        return true;
    }

    // ---- consumers ----

    private void attach(List<HybridPartition> all, int consumer) {
        if (firstGateNanos == 0) {
            firstGateNanos = System.nanoTime();
        }
        drains.add(GateDrain.start(worker, all, consumer, consumerThreads, this::consumerEnded));
    }

    /** Waves: {@code min(slots, P)} gates at a time, the next as one ends; stops at a failure. */
    private void attachInWaves(List<HybridPartition> all) throws InterruptedIOException {
        for (int consumer = 0; consumer < parallelism && !consumed.isDone(); consumer++) {
            try {
                consumerSlots.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while consumers ran");
            }
            if (!consumed.isDone()) {
                attach(all, consumer);
            }
        }
    }

    /** {@link GateDrain.Listener}: on a consumer thread, or the cleaning-up one. */
    private void consumerEnded(GateDrain drain, @Nullable Throwable failure) {
        if (failure != null) {
            consumed.completeExceptionally(failure);
        } else if (consumersLeft.decrementAndGet() == 0) {
            consumed.complete(null);
        }
        consumerSlots.release();
    }

    /**
     * Waits until every consumer ended, or throws the first consumer's failure; fails if neither
     * production nor consumption moved for 5 minutes (a bug).
     */
    private void awaitConsumed() throws IOException {
        long progress = progress();
        long since = System.nanoTime();
        while (true) {
            try {
                consumed.get(1, TimeUnit.SECONDS);
                return;
            } catch (TimeoutException e) {
                long now = progress();
                if (now != progress) {
                    progress = now;
                    since = System.nanoTime();
                } else if (System.nanoTime() - since > STALL_NANOS) {
                    throw new IllegalStateException(
                            ShuffleThroughput.key(kind)
                                    + ": no byte produced or read for 5 minutes; the worker's"
                                    + " counters: "
                                    + worker.hybridStats());
                }
            } catch (ExecutionException e) {
                throw ShuffleTasks.rethrow(Objects.requireNonNull(e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while consumers ran");
            }
        }
    }

    private long progress() {
        HybridStats stats = worker.hybridStats();
        return stats.bytesProduced() + stats.bytesReadFromMemory() + stats.bytesReadFromDisk();
    }

    // ---- clean-up ----

    /**
     * Stops every task, abandons unfinished writers, closes every gate and releases every partition
     * (resident pages dropped, files deleted), so the worker closes with every page back. Returns
     * the first failure to delete files (others suppressed in it), or null.
     */
    private @Nullable IOException cleanUp() {
        ShuffleTasks.stop(producerThreads);
        for (HybridPartitionWriter writer : writers) {
            writer.close(); // a no-op once finished; abandons a writer whose task never ran
        }
        for (GateDrain drain : drains) {
            drain.abort(); // a no-op for the gate of a drain that ended
        }
        ShuffleTasks.stop(consumerThreads);
        IOException failure = null;
        for (int producer = 0; producer < parallelism; producer++) {
            HybridPartition partition = partitions.get(producer);
            if (partition == null) {
                continue;
            }
            try {
                partition.release();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        return failure;
    }
}
