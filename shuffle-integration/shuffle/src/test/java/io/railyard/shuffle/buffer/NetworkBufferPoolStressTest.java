package io.railyard.shuffle.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.railyard.shuffle.ShuffleOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Eight threads drive twelve owner slots at once: borrowing with {@code tryRequest}, waiting for
 * guarantees with {@code request}, recycling, giving back on revocation (the listener queues the
 * ask, the owning thread honours it), and closing and re-registering owners. No page is lost or
 * held twice (an independent page-holder table, and {@code checkInvariants()} from a checker thread
 * while it runs), nothing deadlocks, and every page is back at the end.
 *
 * <p>The protocol the owners follow, as real ones must: before waiting for promised pages, a thread
 * gives back every page its owners borrowed, so a waiting thread holds nothing anyone can need.
 * {@code assertTimeoutPreemptively} is only a deadlock guard; a request not served in 30 s fails
 * the run.
 */
class NetworkBufferPoolStressTest {
    private static final int TOTAL = 64;
    private static final int THREADS = 8;
    private static final int SLOTS = 12;
    private static final int STEPS_PER_THREAD = 50_000;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 23, 37, 0x5eedL})
    void manyThreads_randomTraffic_noPageLostNoDeadlockAllBack(long seed) {
        System.out.println("NetworkBufferPoolStressTest seed " + seed);
        assertTimeoutPreemptively(
                Duration.ofSeconds(60), () -> run(seed), () -> "deadlock? seed " + seed);
    }

    private static void run(long seed) throws Exception {
        NetworkBufferPool pool =
                new NetworkBufferPool(
                        ShuffleOptions.builder().pageSizeBytes(256).totalPages(TOTAL).build());
        SplittableRandom random = new SplittableRandom(seed);
        int[] caps = guaranteeCaps(random);
        Run run = new Run(pool, seed);
        Thread checker = new Thread(run::checkWhileRunning, "checker " + seed);
        checker.setDaemon(true);
        checker.start();
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(THREADS);
        for (int t = 0; t < THREADS; t++) {
            List<Slot> mine = new ArrayList<>();
            for (int s = t; s < SLOTS; s += THREADS) {
                mine.add(new Slot(s, caps[s]));
            }
            SplittableRandom threadRandom = random.split();
            Thread worker =
                    new Thread(
                            () -> {
                                try {
                                    start.await();
                                    run.work(mine, threadRandom);
                                } catch (Throwable e) {
                                    run.fail(e);
                                } finally {
                                    done.countDown();
                                }
                            },
                            "worker " + t);
            worker.setDaemon(true);
            worker.start();
        }
        start.countDown();
        done.await();
        run.running.set(false);
        checker.join();
        if (run.failure.get() != null) {
            throw new AssertionError("seed " + seed, run.failure.get());
        }
        System.out.printf(
                "seed %s: %s registrations, %s requests waited, %s pages given back when asked,"
                        + " %s invariant checks%n",
                seed, run.registrations, run.waits, run.revokedPages, run.checks);
        assertThat(run.checks.get()).as("invariant checks while running").isPositive();
        pool.checkInvariants();
        assertThat(pool.freePages()).as("seed %s", seed).isEqualTo(TOTAL);
        assertThat(pool.pagesInUse()).as("seed %s", seed).isZero();
        assertThat(pool.owners()).as("seed %s", seed).isEmpty();
        assertThat(pool.guaranteedPages()).isZero();
        pool.close();
    }

    /**
     * Two greedy owners, a quarter of the pool guaranteed to each, borrow every free page from
     * their own threads; then a third owner pledges the remaining half and waits for it. The pool
     * asks the borrowers, they give back on their own threads, and the waiting requests complete.
     */
    @Test
    void greedyBorrowers_lateOwnersGuarantee_isServedOnceRevocationIsHonoured() {
        assertTimeoutPreemptively(
                Duration.ofSeconds(60),
                NetworkBufferPoolStressTest::greedyBorrowersThenLateOwner,
                "deadlock: the late owner's guarantee was never served");
    }

    private static void greedyBorrowersThenLateOwner() throws Exception {
        int total = 32;
        NetworkBufferPool pool =
                new NetworkBufferPool(
                        ShuffleOptions.builder().pageSizeBytes(256).totalPages(total).build());
        Greedy a = new Greedy(pool, "greedy a", total / 4);
        Greedy b = new Greedy(pool, "greedy b", total / 4);
        a.start();
        b.start();
        NetworkBufferPoolInterruptTest.awaitUntil(
                () -> pool.freePages() == 0, "the greedy owners to take every page");
        assertThat(a.owner.borrowedPages() + b.owner.borrowedPages()).isEqualTo(total / 2);

        BufferOwner late = pool.register("late", total / 2, "k", null);
        CompletableFuture<List<Page>> first = late.request(total / 4);
        CompletableFuture<List<Page>> second = late.request(total / 4);
        List<Page> got = new ArrayList<>(first.get(30, TimeUnit.SECONDS));
        got.addAll(second.get(30, TimeUnit.SECONDS));

        assertThat(got).hasSize(total / 2);
        assertThat(late.pagesInUse()).isEqualTo(total / 2);
        pool.checkInvariants();
        a.stopAndJoin();
        b.stopAndJoin();
        got.forEach(late::recycle);
        late.close();
        pool.checkInvariants();
        assertThat(pool.freePages()).isEqualTo(total);
        assertThat(pool.owners()).isEmpty();
        pool.close();
    }

    /** An owner on its own thread taking every page it can, giving back only when asked. */
    private static final class Greedy extends Thread {
        final BufferOwner owner;
        private final ConcurrentLinkedQueue<Integer> asks = new ConcurrentLinkedQueue<>();
        private final List<Page> held = new ArrayList<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private volatile @Nullable Throwable failure;

        Greedy(NetworkBufferPool pool, String name, int guarantee) {
            super(name);
            setDaemon(true);
            this.owner = pool.register(name, guarantee, "k", (o, n) -> asks.add(n));
        }

        @Override
        public void run() {
            try {
                while (running.get()) {
                    Integer asked;
                    while ((asked = asks.poll()) != null) {
                        for (int i = 0; i < asked && owner.borrowedPages() > 0; i++) {
                            owner.recycle(held.remove(held.size() - 1));
                        }
                    }
                    Page page = owner.tryRequest();
                    if (page != null) {
                        held.add(page);
                    } else {
                        LockSupport.parkNanos(20_000); // nothing to take: let the others run
                    }
                }
                held.forEach(owner::recycle);
                held.clear();
                owner.close();
            } catch (Throwable e) {
                failure = e;
            }
        }

        void stopAndJoin() throws InterruptedException {
            running.set(false);
            join();
            Throwable e = failure;
            if (e != null) {
                throw new AssertionError(getName() + " failed", e);
            }
        }
    }

    /**
     * A maximum guarantee per slot: the budget less up to 8 pages, dealt out at random, so that
     * registrations often pledge pages that are lent out.
     */
    private static int[] guaranteeCaps(SplittableRandom random) {
        int[] caps = new int[SLOTS];
        int pledged = TOTAL - random.nextInt(9);
        for (int i = 0; i < pledged; i++) {
            caps[random.nextInt(SLOTS)]++;
        }
        return caps;
    }

    /** One owner slot: its current owner (registered and closed over time) and its pages. */
    private static final class Slot {
        final int id;
        final int cap;
        @Nullable BufferOwner owner;
        int guarantee;
        int generation;
        final List<Page> held = new ArrayList<>();
        ConcurrentLinkedQueue<Integer> asks = new ConcurrentLinkedQueue<>();

        Slot(int id, int cap) {
            this.id = id;
            this.cap = cap;
        }

        BufferOwner owner() {
            BufferOwner o = owner;
            if (o == null) {
                throw new AssertionError("slot " + id + " has no owner");
            }
            return o;
        }
    }

    private static final class Run {
        final NetworkBufferPool pool;
        final long seed;
        final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong checks = new AtomicLong();
        final AtomicLong registrations = new AtomicLong();
        final AtomicLong waits = new AtomicLong();
        final AtomicLong revokedPages = new AtomicLong();

        /** Slot id + 1 holding each page, 0 if free: our own record, beside the pool's. */
        final AtomicIntegerArray holderOf = new AtomicIntegerArray(TOTAL);

        Run(NetworkBufferPool pool, long seed) {
            this.pool = pool;
            this.seed = seed;
        }

        void fail(Throwable e) {
            failure.compareAndSet(null, e);
        }

        void checkWhileRunning() {
            while (running.get()) {
                try {
                    pool.checkInvariants();
                    checks.incrementAndGet();
                } catch (Throwable e) {
                    fail(e);
                }
                LockSupport.parkNanos(20_000); // let workers take the lock too
            }
        }

        void work(List<Slot> slots, SplittableRandom random) throws Exception {
            for (int step = 0; step < STEPS_PER_THREAD && failure.get() == null; step++) {
                Slot slot = slots.get(random.nextInt(slots.size()));
                if (slot.owner == null) {
                    register(slot, random);
                }
                if (random.nextInt(4) == 0) { // lazily, so deficits last a while
                    for (Slot s : slots) {
                        honourAsks(s);
                    }
                }
                if (random.nextInt(16) == 0) {
                    LockSupport.parkNanos(1_000); // a finer interleaving than time slices give
                }
                int action = random.nextInt(100);
                if (action < 45) {
                    borrow(slot, 1 + random.nextInt(4));
                } else if (action < 65) {
                    waitForGuarantee(slots, slot, random);
                } else if (action < 98) {
                    // Mostly borrowed pages: owners sit near their guarantee, as busy ones do.
                    if (slot.held.size() > slot.guarantee
                            || (!slot.held.isEmpty() && random.nextInt(4) == 0)) {
                        recycle(slot, slot.held.remove(random.nextInt(slot.held.size())));
                    }
                } else {
                    close(slot);
                }
                assertThat(slot.owner == null ? 0 : slot.owner.pagesInUse())
                        .as("seed %s slot %s", seed, slot.id)
                        .isEqualTo(slot.held.size());
            }
            for (Slot s : slots) {
                close(s);
            }
        }

        private void register(Slot slot, SplittableRandom random) {
            slot.guarantee = random.nextBoolean() ? slot.cap : random.nextInt(slot.cap + 1);
            ConcurrentLinkedQueue<Integer> asks = new ConcurrentLinkedQueue<>();
            slot.asks = asks;
            registrations.incrementAndGet();
            slot.owner =
                    pool.register(
                            "slot " + slot.id + "." + slot.generation++,
                            slot.guarantee,
                            "k",
                            (o, n) -> asks.add(n));
        }

        private void honourAsks(Slot slot) {
            Integer asked;
            while ((asked = slot.asks.poll()) != null) {
                for (int i = 0; i < asked && slot.held.size() > slot.guarantee; i++) {
                    recycle(slot, slot.held.remove(slot.held.size() - 1));
                    revokedPages.incrementAndGet();
                }
            }
        }

        private void borrow(Slot slot, int n) {
            List<Page> got = new ArrayList<>();
            if (slot.owner().tryRequest(n, got)) {
                assertThat(got).hasSize(n);
                received(slot, got);
            } else {
                assertThat(got).as("all or nothing").isEmpty();
            }
        }

        private void waitForGuarantee(List<Slot> slots, Slot slot, SplittableRandom random)
                throws Exception {
            for (Slot s : slots) { // the protocol: nothing borrowed while waiting
                while (s.held.size() > s.guarantee) {
                    recycle(s, s.held.remove(s.held.size() - 1));
                }
            }
            if (slot.held.size() >= slot.guarantee) {
                return;
            }
            int missing = slot.guarantee - slot.held.size();
            int n = random.nextBoolean() ? missing : 1 + random.nextInt(missing);
            CompletableFuture<List<Page>> future = slot.owner().request(n);
            if (!future.isDone()) {
                waits.incrementAndGet();
            }
            List<Page> got;
            try {
                got = future.get(30, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError(
                        "seed "
                                + seed
                                + ": request of "
                                + n
                                + " by "
                                + slot.owner()
                                + " not served"
                                + " in 30 s; pool "
                                + pool.owners()
                                + ", free "
                                + pool.freePages(),
                        e);
            } catch (ExecutionException e) {
                throw new AssertionError("seed " + seed, e);
            }
            assertThat(got).hasSize(n);
            received(slot, got);
        }

        private void received(Slot slot, List<Page> got) {
            for (Page page : got) {
                if (!holderOf.compareAndSet(page.index(), 0, slot.id + 1)) {
                    throw new AssertionError(
                            "seed "
                                    + seed
                                    + ": page "
                                    + page.index()
                                    + " handed to slot "
                                    + slot.id
                                    + " while slot "
                                    + (holderOf.get(page.index()) - 1)
                                    + " holds it");
                }
                assertThat(page.buffer().position()).isZero();
                assertThat(page.buffer().limit()).isEqualTo(page.buffer().capacity());
                page.buffer().position(page.index() % 256); // leave it dirty
                slot.held.add(page);
            }
        }

        private void recycle(Slot slot, Page page) {
            if (!holderOf.compareAndSet(page.index(), slot.id + 1, 0)) {
                throw new AssertionError(
                        "seed "
                                + seed
                                + ": slot "
                                + slot.id
                                + " recycles page "
                                + page.index()
                                + " it does not hold");
            }
            slot.owner().recycle(page);
        }

        private void close(Slot slot) {
            if (slot.owner == null) {
                return;
            }
            while (!slot.held.isEmpty()) {
                recycle(slot, slot.held.remove(slot.held.size() - 1));
            }
            slot.owner.close();
            slot.owner = null;
        }
    }
}
