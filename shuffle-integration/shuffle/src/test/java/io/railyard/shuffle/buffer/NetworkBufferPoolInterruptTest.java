package io.railyard.shuffle.buffer;

import static io.railyard.shuffle.buffer.NetworkBufferPoolTest.pool;
import static io.railyard.shuffle.buffer.NetworkBufferPoolTest.recycleAll;
import static io.railyard.shuffle.buffer.NetworkBufferPoolTest.recycleLast;
import static io.railyard.shuffle.buffer.NetworkBufferPoolTest.take;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thread interrupted while it waits for pages (ARCHITECTURE.md, Reliability row 32, Flink's
 * {@code testRequestMemorySegmentsInterruptable}): the wait aborts with {@link
 * InterruptedException} and the reservation is rolled back. Every test waits for the waiter to be
 * parked before acting; the timeouts only guard against a hang.
 */
@Timeout(60)
class NetworkBufferPoolInterruptTest {

    @Test
    void requestBlocking_interruptedWhileWaiting_throwsAndRollsBackTheReservation()
            throws Exception {
        NetworkBufferPool pool = pool(4);
        AtomicInteger asks = new AtomicInteger();
        BufferOwner borrower = pool.register("borrower", 0, "k", (o, n) -> asks.incrementAndGet());
        List<Page> lent = take(borrower, 4);
        BufferOwner a = pool.register("a", 2, "k", null);
        BufferOwner b = pool.register("b", 2, "k", null);
        int inUseBefore = pool.pagesInUse();
        Waiter waiter = Waiter.start(a, 2, asks);

        CompletableFuture<List<Page>> behind = b.request(2);
        waiter.interrupt();
        waiter.join(30_000);

        assertThat(waiter.isAlive()).as("waiter still blocked").isFalse();
        assertThat(waiter.thrown).isInstanceOf(InterruptedException.class);
        assertThat(waiter.result).isNull();
        assertThat(a.pagesInUse()).isZero();
        assertThat(pool.pagesInUse()).isEqualTo(inUseBefore);
        pool.checkInvariants();
        recycleLast(borrower, lent, 2);
        assertThat(behind).as("b's request, no longer behind a's").isCompleted();
        assertThat(a.pagesInUse()).isZero();
        recycleLast(borrower, lent, 2);
        assertThat(a.pagesInUse()).as("a after the borrower gave everything back").isZero();
        assertThat(pool.freePages()).isEqualTo(2);
        CompletableFuture<List<Page>> again = a.request(2); // the guarantee is intact
        assertThat(again).isCompleted();
        pool.checkInvariants();
        recycleAll(a, new ArrayList<>(again.join()));
        recycleAll(b, new ArrayList<>(behind.join()));
        a.close();
        b.close();
        borrower.close();
        pool.close();
    }

    @Test
    void requestBlocking_interruptFlagAlreadySet_throwsAndHoldsNothing() {
        NetworkBufferPool pool = pool(4);
        BufferOwner borrower = pool.register("borrower", 0, "k", (o, n) -> {});
        List<Page> lent = take(borrower, 4);
        BufferOwner a = pool.register("a", 2, "k", null);
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> a.requestBlocking(2)).isInstanceOf(InterruptedException.class);
        } finally {
            boolean stillSet = Thread.interrupted();
            assertThat(stillSet).as("interrupt flag after InterruptedException").isFalse();
        }
        assertThat(a.pagesInUse()).isZero();
        assertThat(pool.pagesInUse()).isEqualTo(4);
        recycleAll(borrower, lent);
        assertThat(a.pagesInUse()).isZero();
        assertThat(pool.freePages()).isEqualTo(4);
        pool.checkInvariants();
        pool.close();
    }

    @Test
    void requestBlocking_poolClosedWhileWaiting_failsAndHoldsNothing() throws Exception {
        NetworkBufferPool pool = pool(4);
        AtomicInteger asks = new AtomicInteger();
        BufferOwner borrower = pool.register("borrower", 0, "k", (o, n) -> asks.incrementAndGet());
        List<Page> lent = take(borrower, 4);
        BufferOwner a = pool.register("a", 2, "k", null);
        Waiter waiter = Waiter.start(a, 2, asks);

        assertThatThrownBy(pool::close).hasMessageContaining("'borrower' holds 4");
        waiter.join(30_000);

        assertThat(waiter.isAlive()).as("waiter still blocked").isFalse();
        assertThat(waiter.thrown).isInstanceOf(RuntimeException.class);
        assertThat(waiter.thrown).hasStackTraceContaining("pool closed");
        recycleAll(borrower, lent);
        assertThat(a.pagesInUse()).isZero();
        assertThat(pool.freePages()).isEqualTo(4);
        pool.checkInvariants();
    }

    /**
     * The window between a grant (under the pool's lock) and the completion of its future (after
     * the lock): z's close serves x then y; x's completion callback holds the serving thread, so
     * y's pages are granted but its future is not complete when y's waiter is interrupted.
     */
    @Test
    void requestBlocking_interruptedBetweenGrantAndCompletion_ownerHoldsNothingOnReturn()
            throws Exception {
        NetworkBufferPool pool = pool(5);
        AtomicInteger asks = new AtomicInteger();
        BufferOwner borrower = pool.register("borrower", 0, "k", (o, n) -> asks.incrementAndGet());
        List<Page> lent = take(borrower, 5);
        BufferOwner z = pool.register("z", 3, "k", null);
        BufferOwner x = pool.register("x", 1, "k", null);
        BufferOwner y = pool.register("y", 1, "k", null);
        CompletableFuture<List<Page>> zs = z.request(3);
        CompletableFuture<List<Page>> xs = x.request(1);
        CountDownLatch inCallback = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<List<Page>> xsSeen =
                xs.whenComplete(
                        (pages, e) -> {
                            inCallback.countDown();
                            awaitUninterruptibly(release);
                        });
        Waiter waiter = Waiter.start(y, 1, asks);
        recycleLast(borrower, lent, 2); // 2 free; z's 3 still ahead of x and y
        Thread closer = new Thread(z::close, "closer");
        closer.start();
        assertThat(inCallback.await(30, TimeUnit.SECONDS)).isTrue();
        int heldByYWhenInterrupted = y.pagesInUse(); // 1: granted, not yet completed
        waiter.interrupt();
        waiter.join(30_000);
        int heldByYAfterInterrupt = y.pagesInUse();
        release.countDown();
        closer.join(30_000);
        try {
            assertThat(waiter.thrown).isInstanceOf(InterruptedException.class);
            assertThat(heldByYWhenInterrupted).isEqualTo(1);
            assertThat(heldByYAfterInterrupt)
                    .as("pages y holds when requestBlocking has thrown InterruptedException")
                    .isZero();
        } finally {
            assertThat(zs).isCompletedExceptionally();
            assertThat(y.pagesInUse()).as("y once the serving thread ran on").isZero();
            recycleAll(x, new ArrayList<>(xsSeen.join()));
            recycleAll(borrower, lent);
            pool.checkInvariants();
            assertThat(pool.freePages()).isEqualTo(5);
            pool.close();
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                if (latch.await(30, TimeUnit.SECONDS)) {
                    break;
                }
                throw new AssertionError("latch not released in 30 s");
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    static void awaitUntil(BooleanSupplier condition, String what) {
        for (int i = 0; i < 300_000; i++) { // about 30 s of 0.1 ms naps: a hang guard
            if (condition.getAsBoolean()) {
                return;
            }
            LockSupport.parkNanos(100_000);
        }
        throw new AssertionError("gave up waiting for " + what);
    }

    /** A thread in {@link BufferOwner#requestBlocking}, started and parked in the wait. */
    static final class Waiter extends Thread {
        private final BufferOwner owner;
        private final int pages;
        volatile @Nullable List<Page> result;
        volatile @Nullable Throwable thrown;

        private Waiter(BufferOwner owner, int pages) {
            super("waiter " + owner.name());
            this.owner = owner;
            this.pages = pages;
            setDaemon(true);
        }

        /**
         * Starts the request and returns once it is queued (the pool asked {@code asks}' borrower
         * again) and the thread is parked.
         */
        static Waiter start(BufferOwner owner, int pages, AtomicInteger asks) {
            int asksBefore = asks.get();
            Waiter waiter = new Waiter(owner, pages);
            waiter.start();
            awaitUntil(
                    () -> asks.get() > asksBefore && waiter.getState() == Thread.State.WAITING,
                    "the request of " + owner.name() + " to wait");
            return waiter;
        }

        @Override
        public void run() {
            try {
                result = owner.requestBlocking(pages);
            } catch (Throwable e) {
                thrown = e;
            }
        }
    }
}
