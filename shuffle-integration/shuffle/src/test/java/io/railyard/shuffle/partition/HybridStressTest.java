package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.NetworkBufferPool;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.ShuffleHarness.Stream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One hybrid partition under every kind of concurrent traffic at once (ARCHITECTURE.md, Reliability
 * invariants 1, 4, 5 and rows 24, 29): a producer thread writes a random stream with periodic
 * flushes; consumer threads attach gates before, during and after production and drain them; the
 * worker's IO thread reads, spills and drops; and a pledger thread registers an owner whose
 * guarantee the pool can only honour by asking the hybrid writer's borrowed pages back
 * (revocation), sometimes takes the pages, holds them briefly and closes, over and over. The pool
 * is tiny (1 KiB pages: the IO scheduler, the writer, the gates, the pledge and a few pages to
 * borrow).
 *
 * <p>Every consumer must read exactly its records, in order; afterwards, once the partition is
 * released, the pool's pages in use are the IO scheduler's and no file is left. A watchdog fails
 * the run when no record is written or delivered for {@value #NO_PROGRESS_SECONDS} s (after the
 * last one, the pledger's last request must be served within that time too): a hang, never a slow
 * run (it measures no speed). The rarest interleavings are forced in {@link
 * HybridInterleavingTest}.
 */
class HybridStressTest {
    private static final int NO_PROGRESS_SECONDS = 5;
    private static final int PAGE_SIZE = 1024;
    private static final int CONSUMERS = 3;
    private static final int RECORDS = 3000;
    private static final int GATE_PAGES = 2;
    private static final int PLEDGE_PAGES = 3;
    private static final int BORROWABLE_PAGES = 4;

    @TempDir Path dir;

    static java.util.stream.Stream<Arguments> cases() {
        java.util.stream.Stream.Builder<Arguments> cases = java.util.stream.Stream.builder();
        for (long seed : new long[] {1, 2, 3, 0x5eed}) {
            for (PartitionKind mode : ShuffleHarness.HYBRID_KINDS) {
                for (Compression compression : Compression.values()) {
                    cases.add(Arguments.of(seed, mode, compression));
                }
            }
        }
        return cases.build();
    }

    @ParameterizedTest(name = "seed {0} {1} {2}")
    @MethodSource("cases")
    void producerConsumersIoThreadAndPledges_everyConsumerReadsExactlyItsRecords(
            long seed, PartitionKind mode, Compression compression) throws Exception {
        System.out.println("HybridStressTest seed " + seed + " " + mode + " " + compression);
        new Run(seed, mode, compression, dir).run();
    }

    /** When a consumer attaches its gate. */
    private enum Attach {
        BEFORE,
        DURING,
        AFTER
    }

    /** One run: its threads, shared counters, and the first failure of any thread. */
    private static final class Run {
        private final long seed;
        private final PartitionKind mode;
        private final Path dir;
        private final SplittableRandom random;
        private final ShuffleOptions options;
        private final Stream stream;
        private final AtomicLong progress = new AtomicLong();
        private final AtomicInteger written = new AtomicInteger();
        private final AtomicBoolean produced = new AtomicBoolean();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicBoolean consumersDone = new AtomicBoolean();
        private final AtomicLong pledges = new AtomicLong();
        private final AtomicLong pledgesTaken = new AtomicLong();
        private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
        private final List<Thread> threads = new ArrayList<>();
        private final List<List<byte[]>> read = new ArrayList<>();
        private final AtomicIntegerArray delivered = new AtomicIntegerArray(CONSUMERS);

        Run(long seed, PartitionKind mode, Compression compression, Path dir) {
            this.seed = seed;
            this.mode = mode;
            this.dir = dir;
            this.random =
                    new SplittableRandom(
                            seed * 31
                                    + (mode == PartitionKind.HYBRID_FULL ? 7 : 0)
                                    + (compression == Compression.LZ4 ? 1 : 0));
            ShuffleOptions probe =
                    ShuffleOptions.builder()
                            .pageSizeBytes(PAGE_SIZE)
                            .sortBufferPages(2)
                            .readBatchPages(2)
                            .gatePages(GATE_PAGES)
                            .compression(compression)
                            // Fraction 1: the writer borrows every page nobody is promised, so
                            // every pledge takes pages back; below 1 it also spills on its own.
                            .hybridMemoryFraction(random.nextBoolean() ? 1 : 0.8)
                            .build();
            int pages =
                    IoScheduler.pagesNeeded(probe)
                            + HybridPartitionWriter.pagesNeeded(probe)
                            + CONSUMERS * GATE_PAGES
                            + PLEDGE_PAGES
                            + BORROWABLE_PAGES;
            this.options = probe.toBuilder().totalPages(pages).build();
            this.stream = ShuffleHarness.randomStream(random, CONSUMERS, RECORDS, PAGE_SIZE);
            for (int c = 0; c < CONSUMERS; c++) {
                read.add(new ArrayList<>());
            }
        }

        void run() throws Exception {
            List<Attach> attach = new ArrayList<>(Arrays.asList(Attach.values()));
            java.util.Collections.shuffle(attach, new java.util.Random(random.nextLong()));
            try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
                HybridPartitionWriter writer =
                        ShuffleHarness.hybrid(worker, ShuffleHarness.id(0), CONSUMERS, mode);
                HybridPartition partition = writer.partition();
                try {
                    runThreads(worker, writer, partition, attach);
                } finally {
                    stop.set(true); // on failure: stop every thread before the worker closes
                    for (Thread thread : threads) {
                        thread.join(TimeUnit.SECONDS.toMillis(NO_PROGRESS_SECONDS));
                    }
                }
                assertReadEqualsWritten();
                partition.checkInvariants();
                HybridStats stats = partition.stats();
                System.out.printf(
                        "seed %s %s: %s pledges (%s took pages), %s%n",
                        seed, mode, pledges, pledgesTaken, stats);
                assertThat(pledges.get()).as("pledges made while running").isPositive();
                partition.release();
                assertThat(worker.bufferPool().pagesInUse())
                        .as("pages in use after release")
                        .isEqualTo(IoScheduler.pagesNeeded(options));
                assertThat(worker.hybridStats().residentPages()).isZero();
                try (var files = Files.list(dir)) {
                    assertThat(files).as("files left after release").isEmpty();
                }
            }
        }

        private void runThreads(
                ShuffleWorker worker,
                HybridPartitionWriter writer,
                HybridPartition partition,
                List<Attach> attach)
                throws Exception {
            List<Thread> consumers = new ArrayList<>();
            for (int c = 0; c < CONSUMERS; c++) {
                int consumer = c;
                @Nullable InputGate early =
                        attach.get(c) == Attach.BEFORE
                                ? worker.openGate("c" + c, List.of(partition), c)
                                : null;
                int during = 1 + random.nextInt(RECORDS - 1);
                SplittableRandom mine = random.split();
                consumers.add(
                        start(
                                "consumer " + c,
                                () -> {
                                    InputGate gate = early;
                                    if (gate == null) {
                                        awaitAttach(attach.get(consumer), during);
                                        gate =
                                                worker.openGate(
                                                        "c" + consumer,
                                                        List.of(partition),
                                                        consumer);
                                    }
                                    consume(gate, consumer, mine);
                                }));
            }
            SplittableRandom producerRandom = random.split();
            Thread producer = start("producer", () -> produce(writer, producerRandom));
            SplittableRandom pledgerRandom = random.split();
            Thread pledger = start("pledger", () -> pledge(worker.bufferPool(), pledgerRandom));
            watch(worker, partition, consumers, producer, pledger);
        }

        private Thread start(String name, ThrowingRunnable body) {
            Thread thread =
                    new Thread(
                            () -> {
                                try {
                                    body.run();
                                } catch (Throwable e) {
                                    fail(
                                            new AssertionError(
                                                    name + " failed (seed " + seed + ")", e));
                                }
                            },
                            "hybrid-stress " + name);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
            return thread;
        }

        private void fail(Throwable e) {
            failure.compareAndSet(null, e);
            stop.set(true);
        }

        private void awaitAttach(Attach when, int during) {
            while (!stop.get()
                    && (when == Attach.DURING ? written.get() < during : !produced.get())) {
                LockSupport.parkNanos(50_000);
            }
        }

        private void produce(HybridPartitionWriter writer, SplittableRandom random)
                throws Exception {
            // Often small regions, so consumers often wait at the end of the data when a new
            // region arrives: the wake-up that races with the IO thread's turn.
            int flushEvery = new int[] {1, 2, 3, 8, 32}[random.nextInt(5)];
            boolean trickle = random.nextBoolean();
            try (writer) {
                for (int i = 0; i < RECORDS && !stop.get(); i++) {
                    ByteBuffer record = ByteBuffer.wrap(stream.records()[i]);
                    int target = stream.targets()[i];
                    if (target < 0) {
                        writer.broadcast(record);
                    } else {
                        writer.emit(record, target);
                    }
                    if (i % flushEvery == flushEvery - 1) {
                        writer.flush();
                    }
                    if (trickle) {
                        spin(random.nextInt(20_000)); // small regions while consumers keep up
                    } else if (random.nextInt(64) == 0) {
                        LockSupport.parkNanos(random.nextInt(300_000)); // let consumers catch up
                    }
                    written.incrementAndGet();
                    progress.incrementAndGet();
                }
                if (!stop.get()) {
                    writer.finish();
                    produced.set(true);
                }
            }
        }

        private static void spin(long nanos) {
            long end = System.nanoTime() + nanos;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        }

        private void consume(InputGate gate, int consumer, SplittableRandom random)
                throws Exception {
            List<byte[]> records = read.get(consumer);
            RecordDecoder decoder = new RecordDecoder(1);
            try (gate) {
                while (!gate.isFinished()) {
                    if (stop.get()) {
                        return;
                    }
                    InputGate.Buffer buffer = gate.poll();
                    if (buffer == null) {
                        try {
                            gate.availability().get(20, TimeUnit.MILLISECONDS);
                        } catch (TimeoutException e) {
                            // The watchdog decides whether waiting is a hang; check stop again.
                        }
                        continue;
                    }
                    try {
                        decoder.decode(
                                buffer.channel(),
                                buffer.data(),
                                (channel, record) -> {
                                    byte[] bytes = new byte[record.remaining()];
                                    record.get(bytes);
                                    records.add(bytes);
                                    delivered.incrementAndGet(consumer);
                                    progress.incrementAndGet();
                                });
                        if (random.nextInt(32) == 0) {
                            LockSupport.parkNanos(random.nextInt(300_000)); // a slow consumer
                        }
                    } finally {
                        buffer.recycle();
                    }
                }
                assertThat(decoder.atRecordBoundary(0)).as("ends on a record").isTrue();
            }
        }

        /**
         * Registers an owner whose guarantee leaves the writer's borrowed pages short, sometimes
         * waits for the pages and holds them a moment, then closes it; until the consumers are
         * done.
         */
        private void pledge(NetworkBufferPool pool, SplittableRandom random) throws Exception {
            while (!stop.get() && !consumersDone.get()) {
                BufferOwner owner =
                        pool.register("pledge " + pledges.get(), PLEDGE_PAGES, "pledge", null);
                pledges.incrementAndGet();
                try {
                    if (random.nextBoolean()) {
                        takeAndHold(owner, random);
                    } else {
                        LockSupport.parkNanos(random.nextInt(300_000));
                    }
                } finally {
                    owner.close();
                }
                LockSupport.parkNanos(random.nextInt(500_000));
            }
        }

        private void takeAndHold(BufferOwner owner, SplittableRandom random) throws Exception {
            CompletableFuture<List<Page>> request = owner.request(PLEDGE_PAGES);
            List<Page> pages = null;
            while (pages == null) {
                if (stop.get()) {
                    if (!request.cancel(false)) {
                        request.getNow(List.of()).forEach(owner::recycle);
                    }
                    return;
                }
                try {
                    pages = request.get(10, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // Still short: the pool asks the writer again as pages come back.
                } catch (ExecutionException e) {
                    throw new AssertionError("pledge request failed", e.getCause());
                }
            }
            // Not progress: a pledge may be served while every reader hangs.
            pledgesTaken.incrementAndGet();
            LockSupport.parkNanos(random.nextInt(200_000));
            pages.forEach(owner::recycle);
        }

        /**
         * The watchdog: waits for every thread, and fails the run when no record was written or
         * delivered for {@value #NO_PROGRESS_SECONDS} s, naming what each side holds and where each
         * thread is.
         */
        private void watch(
                ShuffleWorker worker,
                HybridPartition partition,
                List<Thread> consumers,
                Thread producer,
                Thread pledger)
                throws Exception {
            long seen = progress.get();
            long since = System.nanoTime();
            while (failure.get() == null) {
                if (!consumersDone.get() && !producer.isAlive() && allDead(consumers)) {
                    consumersDone.set(true);
                }
                if (consumersDone.get() && !pledger.isAlive()) {
                    break;
                }
                Thread.sleep(10);
                long now = progress.get();
                if (now != seen) {
                    seen = now;
                    since = System.nanoTime();
                } else if (System.nanoTime() - since
                        > TimeUnit.SECONDS.toNanos(NO_PROGRESS_SECONDS)) {
                    fail(new AssertionError(stalled(worker, partition)));
                }
            }
            Throwable e = failure.get();
            if (e != null) {
                throw new AssertionError("seed " + seed + " " + mode, e);
            }
        }

        private static boolean allDead(List<Thread> threads) {
            for (Thread thread : threads) {
                if (thread.isAlive()) {
                    return false;
                }
            }
            return true;
        }

        private String stalled(ShuffleWorker worker, HybridPartition partition) {
            StringBuilder text =
                    new StringBuilder(
                            "no progress for "
                                    + NO_PROGRESS_SECONDS
                                    + " s (seed "
                                    + seed
                                    + " "
                                    + mode
                                    + "): written "
                                    + written.get()
                                    + "/"
                                    + RECORDS
                                    + ", read");
            for (int c = 0; c < CONSUMERS; c++) {
                text.append(' ')
                        .append(delivered.get(c))
                        .append('/')
                        .append(stream.expected(c).size());
            }
            text.append("; pool ")
                    .append(worker.bufferPool().owners())
                    .append(", free ")
                    .append(worker.bufferPool().freePages())
                    .append("; ")
                    .append(partition.stats());
            for (Map.Entry<Thread, StackTraceElement[]> entry :
                    Thread.getAllStackTraces().entrySet()) {
                String name = entry.getKey().getName();
                if (name.startsWith("hybrid-stress") || name.startsWith("railyard-shuffle-io")) {
                    text.append("\n").append(name).append(" ").append(entry.getKey().getState());
                    for (StackTraceElement frame : entry.getValue()) {
                        text.append("\n    at ").append(frame);
                    }
                }
            }
            return text.toString();
        }

        private void assertReadEqualsWritten() {
            for (int c = 0; c < CONSUMERS; c++) {
                ShuffleHarness.assertRecords(
                        read.get(c), stream.expected(c), "seed " + seed + " consumer " + c);
            }
        }
    }

    /** A thread body that may throw. */
    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
