package io.railyard.shuffle.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.railyard.shuffle.ShuffleOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many threads borrow, wait for guarantees, recycle, give back on revocation, register and close
 * owners at once: no page lost or doubly held (invariants checked while it runs), no deadlock, and
 * every page back at the end. The timeout only guards against a deadlock.
 */
class NetworkBufferPoolStressTest {
    private static final int TOTAL = 64;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4})
    void manyThreads_noLostPageNoDeadlock(long seed) {
        assertTimeoutPreemptively(
                Duration.ofSeconds(60), () -> run(seed), "deadlock, seed " + seed);
    }

    private static void run(long seed) throws Exception {
        NetworkBufferPool pool =
                new NetworkBufferPool(
                        ShuffleOptions.builder().pageSizeBytes(256).totalPages(TOTAL).build());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread checker =
                new Thread(
                        () -> {
                            while (running.get()) {
                                try {
                                    pool.checkInvariants();
                                } catch (Throwable e) {
                                    failure.compareAndSet(null, e);
                                }
                            }
                        });
        checker.start();
        int threads = 8;
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            long threadSeed = seed * 1000 + t;
            new Thread(
                            () -> {
                                try {
                                    worker(pool, new SplittableRandom(threadSeed), threadSeed);
                                } catch (Throwable e) {
                                    failure.compareAndSet(null, e);
                                } finally {
                                    done.countDown();
                                }
                            })
                    .start();
        }
        done.await();
        running.set(false);
        checker.join();
        if (failure.get() != null) {
            throw new AssertionError("seed " + seed, failure.get());
        }
        pool.checkInvariants();
        assertThat(pool.pagesInUse()).as("seed %s", seed).isZero();
        assertThat(pool.freePages()).isEqualTo(TOTAL);
        assertThat(pool.owners()).isEmpty();
        pool.close();
    }

    /** One thread: a few owners in turn, each doing random work, then closed. */
    private static void worker(NetworkBufferPool pool, SplittableRandom random, long seed)
            throws Exception {
        for (int life = 0; life < 80; life++) {
            ConcurrentLinkedQueue<Integer> giveBack = new ConcurrentLinkedQueue<>();
            int guarantee = random.nextInt(4); // 8 threads x 3 <= 64: registration never fails
            BufferOwner owner =
                    pool.register(
                            "t" + seed + "." + life, guarantee, "k", (o, n) -> giveBack.add(n));
            List<Page> held = new ArrayList<>();
            for (int step = 0; step < 500; step++) {
                Integer asked;
                while ((asked = giveBack.poll()) != null) {
                    for (int i = 0; i < asked && held.size() > guarantee; i++) {
                        owner.recycle(held.remove(held.size() - 1));
                    }
                }
                int action = random.nextInt(10);
                if (action < 4) {
                    owner.tryRequest(1 + random.nextInt(4), held);
                } else if (action < 6 && held.size() < guarantee) {
                    // The protocol: give back borrowed pages before waiting for promised ones.
                    while (held.size() > guarantee) {
                        owner.recycle(held.remove(held.size() - 1));
                    }
                    int n = 1 + random.nextInt(guarantee - held.size());
                    held.addAll(owner.request(n).get(30, TimeUnit.SECONDS));
                } else if (!held.isEmpty()) {
                    owner.recycle(held.remove(random.nextInt(held.size())));
                }
                assertThat(owner.pagesInUse()).isEqualTo(held.size());
            }
            held.forEach(owner::recycle);
            owner.close();
        }
    }
}
