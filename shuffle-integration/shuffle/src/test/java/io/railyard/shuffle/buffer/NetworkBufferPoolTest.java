package io.railyard.shuffle.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.ShuffleOptions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The buffer pool's rules, one by one (ARCHITECTURE.md, Reliability row 25: insufficient memory;
 * the interrupt of row 32 is in {@link NetworkBufferPoolInterruptTest}). Each test ends by checking
 * the pool's accounting; single-threaded unless it says otherwise.
 */
class NetworkBufferPoolTest {
    private final List<NetworkBufferPool> made = new ArrayList<>();

    static NetworkBufferPool pool(int pages) {
        return new NetworkBufferPool(
                ShuffleOptions.builder().pageSizeBytes(256).totalPages(pages).build());
    }

    /** A pool of {@code pages} pages that {@link #closePools} closes after the test. */
    private NetworkBufferPool newPool(int pages) {
        return closedAfterTest(pool(pages));
    }

    private NetworkBufferPool closedAfterTest(NetworkBufferPool pool) {
        made.add(pool);
        return pool;
    }

    /**
     * Closes every pool the test made. Many of these tests end holding pages on purpose (the state
     * they check); for them the leak check is each test's own accounting check, and the close's
     * "closed with pages in use" is expected — any other failure is not.
     */
    @AfterEach
    void closePools() {
        for (NetworkBufferPool pool : made) {
            try {
                pool.close();
            } catch (IllegalStateException e) {
                assertThat(e)
                        .hasMessageStartingWith("network buffer pool closed with pages in use");
            }
        }
    }

    static List<Page> take(BufferOwner owner, int n) {
        List<Page> pages = new ArrayList<>();
        assertThat(owner.tryRequest(n, pages)).as("tryRequest(%s) by %s", n, owner).isTrue();
        return pages;
    }

    static void recycleAll(BufferOwner owner, List<Page> pages) {
        pages.forEach(owner::recycle);
        pages.clear();
    }

    static void recycleLast(BufferOwner owner, List<Page> pages, int n) {
        for (int i = 0; i < n; i++) {
            owner.recycle(pages.remove(pages.size() - 1));
        }
    }

    // ---- guarantees pledged at registration (row 25) ----

    @Test
    void register_beyondBudget_failsAtOnceNamingOwnerPagesBudgetAndKeys() {
        ShuffleOptions options = ShuffleOptions.builder().pageSizeBytes(256).totalPages(10).build();
        NetworkBufferPool pool = closedAfterTest(new NetworkBufferPool(options));
        pool.register("writer a", 6, "shuffle.sort.buffer-pages", null);
        assertThatThrownBy(() -> pool.register("writer b", 5, "shuffle.gate.pages", null))
                .isInstanceOf(InsufficientNetworkMemoryException.class)
                .hasMessageContaining("'writer b' needs 5 guaranteed pages")
                .hasMessageContaining("only 4 of 10 pages")
                .hasMessageContaining("'writer a' 6")
                .hasMessageContaining(
                        ShuffleOptions.TOTAL_MEMORY_KEY
                                + " (now "
                                + ShuffleOptions.bytesText(options.totalMemoryBytes())
                                + ")")
                .hasMessageContaining("at least " + ShuffleOptions.bytesText(11 * 256))
                .hasMessageContaining("lower shuffle.gate.pages");
        assertThat(pool.guaranteedPages()).isEqualTo(6);
        assertThat(pool.owners()).extracting(OwnerStats::name).containsExactly("writer a");
        pool.checkInvariants();
    }

    @Test
    void register_guaranteesSummingToTheBudget_succeedsAndOneMorePageFails() {
        NetworkBufferPool pool = newPool(8);
        pool.register("a", 5, "k", null);
        pool.register("b", 3, "k", null);
        pool.register("no guarantee", 0, "k", null);
        assertThat(pool.guaranteedPages()).isEqualTo(8);
        assertThatThrownBy(() -> pool.register("c", 1, "key.c", null))
                .isInstanceOf(InsufficientNetworkMemoryException.class)
                .hasMessageContaining("'c' needs 1 guaranteed pages")
                .hasMessageContaining("only 0 of 8 pages")
                .hasMessageContaining("key.c");
        pool.checkInvariants();
    }

    @Test
    void aPledgeWait_wakesWhenAGuaranteeComesBack_notForPagesOrAnOwnerWithout() throws Exception {
        NetworkBufferPool pool = newPool(8);
        BufferOwner a = pool.register("a", 5, "k", null);
        BufferOwner lowered = pool.register("lowered", 3, "k", null);
        BufferOwner none = pool.register("no guarantee", 0, "k", null);
        assertThat(pool.pledgeablePages()).isZero();
        long mark = pool.pledgesReturned();

        recycleAll(a, take(a, 2)); // pages, not a guarantee
        none.close();
        lowered.lowerGuarantee(3); // the same guarantee
        assertThat(pool.awaitPledgeReturned(mark, TimeUnit.MILLISECONDS.toNanos(20))).isFalse();

        CompletableFuture<Boolean> waiting = new CompletableFuture<>();
        Thread waiter =
                new Thread(
                        () -> {
                            try {
                                waiting.complete(
                                        pool.awaitPledgeReturned(
                                                mark, TimeUnit.SECONDS.toNanos(30)));
                            } catch (InterruptedException e) {
                                waiting.completeExceptionally(e);
                            }
                        });
        waiter.start();
        lowered.lowerGuarantee(1);
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
        waiter.join();
        assertThat(pool.pledgeablePages()).isEqualTo(2);

        long next = pool.pledgesReturned();
        a.close();
        assertThat(pool.awaitPledgeReturned(next, 0)).as("an owner closed").isTrue();
        assertThat(pool.pledgeablePages()).isEqualTo(7);
        pool.checkInvariants();
    }

    @Test
    void register_badNameOrNegativeGuarantee_isRejectedNamingTheValue() {
        NetworkBufferPool pool = newPool(4);
        assertThatThrownBy(() -> pool.register("", 1, "k", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> pool.register("w", -1, "k", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("guaranteedPages of 'w' must be >= 0, was -1");
        assertThat(pool.owners()).isEmpty();
        pool.checkInvariants();
    }

    // ---- borrowing only of pages nobody is promised ----

    @Test
    void tryRequest_borrowing_usesOnlyPagesNobodyIsPromised() {
        NetworkBufferPool pool = newPool(10);
        BufferOwner a = pool.register("a", 4, "k", null);
        BufferOwner b = pool.register("b", 3, "k", null);
        List<Page> pages = take(a, 4 + 3); // its 4 and the 3 unguaranteed
        assertThat(a.borrowedPages()).isEqualTo(3);
        assertThat(a.tryRequest()).isNull(); // b's 3 stay promised
        List<Page> bs = take(b, 3);
        assertThat(pool.freePages()).isZero();
        pool.checkInvariants();
        recycleAll(a, pages);
        recycleAll(b, bs);
    }

    @Test
    void tryRequest_grantRule_isFreeMinusNAtLeastUnusedMinusEntitled() {
        NetworkBufferPool pool = newPool(10);
        BufferOwner a = pool.register("a", 4, "k", null);
        pool.register("b", 3, "k", null);
        List<Page> out = new ArrayList<>();
        // free 10, unused 7, entitled 4: n = 8 leaves 2 < 7 - 4; n = 7 leaves 3 = 7 - 4.
        assertThat(a.tryRequest(8, out)).isFalse();
        assertThat(out).isEmpty();
        assertThat(a.tryRequest(7, out)).isTrue();
        assertThat(out).hasSize(7);
        pool.checkInvariants();
        recycleAll(a, out);
    }

    @Test
    void tryRequest_ownerWithoutGuarantee_borrowsAtMostTheUnguaranteedPages() {
        NetworkBufferPool pool = newPool(10);
        pool.register("a", 4, "k", null);
        pool.register("b", 3, "k", null);
        BufferOwner c = pool.register("c", 0, "k", null);
        List<Page> out = new ArrayList<>();
        assertThat(c.tryRequest(4, out)).isFalse();
        assertThat(c.tryRequest(3, out)).isTrue();
        assertThat(c.tryRequest()).isNull();
        assertThat(c.borrowedPages()).isEqualTo(3);
        assertThat(pool.freePages()).isEqualTo(7);
        pool.checkInvariants();
        recycleAll(c, out);
    }

    @Test
    void tryRequest_onlyNMinusOneFree_appendsNothingAndReturnsFalse() {
        NetworkBufferPool pool = newPool(5);
        BufferOwner a = pool.register("a", 5, "k", null);
        List<Page> held = take(a, 2);
        List<Page> out = new ArrayList<>(held.subList(0, 1)); // appends, never replaces
        assertThat(a.tryRequest(4, out)).isFalse();
        assertThat(out).containsExactly(held.get(0));
        assertThat(a.pagesInUse()).isEqualTo(2);
        assertThat(a.tryRequest(3, out)).isTrue();
        assertThat(out).hasSize(4).startsWith(held.get(0));
        pool.checkInvariants();
        out.remove(0);
        recycleAll(a, out);
        recycleAll(a, held);
    }

    @Test
    void tryRequest_onlyNMinusOneUnpromised_appendsNothingAndReturnsFalse() {
        NetworkBufferPool pool = newPool(10);
        pool.register("a", 6, "k", null);
        BufferOwner borrower = pool.register("borrower", 1, "k", null);
        List<Page> out = new ArrayList<>();
        // 10 free, 7 promised: borrower may have 1 + 3.
        assertThat(borrower.tryRequest(5, out)).isFalse();
        assertThat(out).isEmpty();
        assertThat(borrower.pagesInUse()).isZero();
        assertThat(pool.freePages()).isEqualTo(10);
        assertThat(borrower.tryRequest(4, out)).isTrue();
        pool.checkInvariants();
        recycleAll(borrower, out);
    }

    @Test
    void tryRequest_whileRequestsWait_doesNotJumpTheQueueEvenWithinAGuarantee() {
        NetworkBufferPool pool = newPool(6);
        BufferOwner borrower = pool.register("borrower", 0, "k", (o, n) -> {});
        List<Page> lent = take(borrower, 6);
        BufferOwner a = pool.register("a", 3, "k", null);
        BufferOwner b = pool.register("b", 2, "k", null);
        CompletableFuture<List<Page>> waiting = a.request(3);
        recycleLast(borrower, lent, 2); // 2 free: not enough for a's 3
        assertThat(waiting).isNotDone();
        assertThat(b.tryRequest()).isNull();
        assertThat(borrower.tryRequest()).isNull();
        recycleLast(borrower, lent, 1);
        assertThat(waiting).isCompleted();
        pool.checkInvariants();
        recycleAll(a, waiting.join());
        recycleAll(borrower, lent);
    }

    // ---- requests within a guarantee ----

    @Test
    void request_withinGuaranteeAndFree_completesAtOnce() {
        NetworkBufferPool pool = newPool(8);
        BufferOwner a = pool.register("a", 5, "k", null);
        CompletableFuture<List<Page>> first = a.request(3);
        assertThat(first).isCompleted();
        assertThat(first.join()).hasSize(3);
        CompletableFuture<List<Page>> second = a.request(2);
        assertThat(second.join()).hasSize(2);
        assertThat(a.pagesInUse()).isEqualTo(5);
        assertThat(a.borrowedPages()).isZero();
        pool.checkInvariants();
        recycleAll(a, new ArrayList<>(first.join()));
        recycleAll(a, new ArrayList<>(second.join()));
    }

    @Test
    void request_beyondGuarantee_isRejectedWithNumbers() {
        NetworkBufferPool pool = newPool(8);
        BufferOwner a = pool.register("gate g", 3, "shuffle.read.gate-pages", null);
        assertThatThrownBy(() -> a.request(4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'gate g' asked for 4 pages beyond its guarantee")
                .hasMessageContaining("holds 0 and waits for 0 of 3 guaranteed pages");
        List<Page> held = take(a, 2);
        assertThatThrownBy(() -> a.request(2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("asked for 2 pages")
                .hasMessageContaining("holds 2 and waits for 0 of 3");
        BufferOwner none = pool.register("no guarantee", 0, "k", null);
        assertThatThrownBy(() -> none.request(1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("of 0 guaranteed pages");
        assertThat(a.pagesInUse()).isEqualTo(2);
        pool.checkInvariants();
        recycleAll(a, held);
    }

    @Test
    void request_beyondGuaranteeCountingWaitingPages_isRejected() {
        NetworkBufferPool pool = newPool(4);
        BufferOwner borrower = pool.register("borrower", 0, "k", (o, n) -> {});
        List<Page> lent = take(borrower, 4);
        BufferOwner a = pool.register("a", 3, "k", null);
        CompletableFuture<List<Page>> waiting = a.request(2);
        assertThatThrownBy(() -> a.request(2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holds 0 and waits for 2 of 3 guaranteed pages");
        assertThat(waiting.cancel(false)).isTrue();
        pool.checkInvariants();
        recycleAll(borrower, lent);
    }

    @ParameterizedTest(name = "n = {0}")
    @ValueSource(ints = {0, -1, 9, Integer.MIN_VALUE, Integer.MAX_VALUE})
    void requests_countOutsideOneToTotalPages_areRejected(int n) {
        NetworkBufferPool pool = newPool(8);
        BufferOwner a = pool.register("a", 8, "k", null);
        List<Page> out = new ArrayList<>();
        assertThatThrownBy(() -> a.tryRequest(n, out))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a' requested " + n + " pages; allowed 1 to 8");
        assertThatThrownBy(() -> a.request(n))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed 1 to 8");
        assertThatThrownBy(() -> a.requestBlocking(n))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed 1 to 8");
        assertThat(out).isEmpty();
        assertThat(pool.pagesInUse()).isZero();
        pool.checkInvariants();
    }

    // ---- revocation ----

    @Test
    void register_whilePagesAreLent_asksTheBorrowerAndServesOnceTheyComeBack() throws Exception {
        NetworkBufferPool pool = newPool(10);
        List<String> asks = new ArrayList<>();
        BufferOwner borrower =
                pool.register("borrower", 2, "k", (o, n) -> asks.add(o.name() + " " + n));
        List<Page> lent = take(borrower, 10);
        BufferOwner late = pool.register("late", 6, "k", null);
        assertThat(asks).containsExactly("borrower 6");
        CompletableFuture<List<Page>> waiting = late.request(4);
        assertThat(waiting).isNotDone();
        recycleLast(borrower, lent, 3);
        assertThat(waiting).isNotDone();
        recycleLast(borrower, lent, 1);
        assertThat(waiting.get(30, TimeUnit.SECONDS)).hasSize(4);
        assertThat(late.pagesInUse()).isEqualTo(4);
        assertThat(borrower.pagesInUse()).isEqualTo(6);
        pool.checkInvariants();
        recycleAll(late, new ArrayList<>(waiting.get()));
        recycleAll(borrower, lent);
        assertThat(pool.freePages()).isEqualTo(10);
    }

    @Test
    void revocation_asksBorrowersLargestFirst_onlyForTheShortfall() {
        NetworkBufferPool pool = newPool(20);
        List<String> asks = new ArrayList<>();
        RevocationListener listener = (o, n) -> asks.add(o.name() + " " + n);
        BufferOwner small = pool.register("small", 0, "k", listener);
        BufferOwner big = pool.register("big", 2, "k", listener);
        BufferOwner keeper = pool.register("keeper", 3, "k", listener); // within its guarantee
        BufferOwner silent = pool.register("silent", 0, "k", null); // borrows, has no listener
        List<Page> keepers = take(keeper, 3);
        List<Page> smalls = take(small, 3);
        List<Page> bigs = take(big, 12); // borrows 10
        List<Page> silents = take(silent, 2);
        assertThat(pool.freePages()).isZero();
        BufferOwner late = pool.register("late", 12, "k", null);
        assertThat(asks).containsExactly("big 10", "small 2");
        assertThat(late.pagesInUse()).isZero();
        pool.checkInvariants();
        recycleAll(keeper, keepers);
        recycleAll(small, smalls);
        recycleAll(big, bigs);
        recycleAll(silent, silents);
    }

    @Test
    void register_withoutShortfall_asksNobody() {
        NetworkBufferPool pool = newPool(10);
        AtomicInteger asked = new AtomicInteger();
        BufferOwner borrower = pool.register("borrower", 0, "k", (o, n) -> asked.addAndGet(n));
        List<Page> lent = take(borrower, 6);
        pool.register("fits", 4, "k", null);
        assertThat(asked.get()).isZero();
        pool.register("one short", 0, "k", null);
        assertThat(asked.get()).isZero();
        recycleAll(borrower, lent);
    }

    @Test
    void revocationListener_runsOutsideThePoolLock_andMayRecycleInline() {
        NetworkBufferPool pool = newPool(4);
        AtomicBoolean listenerSawLockFree = new AtomicBoolean();
        List<Page> lent = new ArrayList<>();
        BufferOwner borrower =
                pool.register(
                        "borrower",
                        0,
                        "k",
                        (o, n) -> {
                            listenerSawLockFree.set(poolUsableFromAnotherThread(pool));
                            recycleLast(o, lent, Math.min(n, lent.size())); // give back at once
                        });
        lent.addAll(take(borrower, 4));
        BufferOwner a = pool.register("a", 2, "k", null); // asks for 2, given back inline
        assertThat(listenerSawLockFree).isTrue();
        assertThat(lent).hasSize(2);
        CompletableFuture<List<Page>> first = a.request(2);
        assertThat(first).isCompleted();
        BufferOwner b = pool.register("b", 2, "k", null);
        assertThat(lent).isEmpty();
        CompletableFuture<List<Page>> second = b.request(2);
        assertThat(second).isCompleted();
        pool.checkInvariants();
        recycleAll(a, new ArrayList<>(first.join()));
        recycleAll(b, new ArrayList<>(second.join()));
    }

    @Test
    void waitingRequest_completedByARecycle_runsItsCallbackWithThePoolLockFree() throws Exception {
        NetworkBufferPool pool = newPool(4);
        BufferOwner borrower = pool.register("borrower", 0, "k", (o, n) -> {});
        List<Page> lent = take(borrower, 4);
        BufferOwner a = pool.register("a", 2, "k", null);
        AtomicBoolean callbackSawLockFree = new AtomicBoolean();
        CompletableFuture<List<Page>> waiting = a.request(2);
        CompletableFuture<List<Page>> observed =
                waiting.whenComplete(
                        (pages, e) -> callbackSawLockFree.set(poolUsableFromAnotherThread(pool)));
        recycleLast(borrower, lent, 2);
        assertThat(observed.get(30, TimeUnit.SECONDS)).hasSize(2);
        assertThat(callbackSawLockFree).isTrue();
        recycleAll(a, new ArrayList<>(waiting.join()));
        recycleAll(borrower, lent);
        pool.checkInvariants();
    }

    /** True if another thread can take the pool's lock within 30 s (false: the caller holds it). */
    private static boolean poolUsableFromAnotherThread(NetworkBufferPool pool) {
        Thread probe = new Thread(pool::checkInvariants, "lock-probe");
        probe.start();
        try {
            probe.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return !probe.isAlive();
    }

    // ---- waiting requests: FIFO, cancellation ----

    @Test
    void waitingRequests_areServedInArrivalOrder_aLaterSmallOneDoesNotOvertake() {
        NetworkBufferPool pool = newPool(6);
        BufferOwner borrower = pool.register("borrower", 0, "k", (o, n) -> {});
        List<Page> lent = take(borrower, 6);
        BufferOwner a = pool.register("a", 3, "k", null);
        BufferOwner b = pool.register("b", 1, "k", null);
        BufferOwner c = pool.register("c", 2, "k", null);
        CompletableFuture<List<Page>> first = a.request(3);
        CompletableFuture<List<Page>> second = b.request(1);
        CompletableFuture<List<Page>> third = c.request(2);
        recycleLast(borrower, lent, 2); // would fit b and c, not a
        assertThat(first).isNotDone();
        assertThat(second).isNotDone();
        assertThat(third).isNotDone();
        recycleLast(borrower, lent, 1);
        assertThat(first).isCompleted();
        assertThat(second).isNotDone();
        recycleLast(borrower, lent, 1);
        assertThat(second).isCompleted();
        assertThat(third).isNotDone();
        recycleLast(borrower, lent, 2);
        assertThat(third).isCompleted();
        assertThat(pool.owners())
                .containsExactly(
                        new OwnerStats("borrower", 0, 0),
                        new OwnerStats("a", 3, 3),
                        new OwnerStats("b", 1, 1),
                        new OwnerStats("c", 2, 2));
        pool.checkInvariants();
        recycleAll(a, new ArrayList<>(first.join()));
        recycleAll(b, new ArrayList<>(second.join()));
        recycleAll(c, new ArrayList<>(third.join()));
    }

    @Test
    void cancel_waitingRequest_holdsNothingAndLaterRecyclesDoNotHandItPages() {
        NetworkBufferPool pool = newPool(6);
        BufferOwner borrower = pool.register("borrower", 0, "k", (o, n) -> {});
        List<Page> lent = take(borrower, 6);
        BufferOwner a = pool.register("a", 3, "k", null);
        BufferOwner b = pool.register("b", 3, "k", null);
        CompletableFuture<List<Page>> first = a.request(2);
        CompletableFuture<List<Page>> cancelled = b.request(3);
        assertThat(cancelled.cancel(false)).isTrue();
        assertThat(cancelled).isCancelled();
        CompletableFuture<List<Page>> third = b.request(1); // the cancelled 3 no longer count
        recycleLast(borrower, lent, 1);
        assertThat(first).isNotDone(); // needs 2
        recycleLast(borrower, lent, 1);
        assertThat(first).isCompleted();
        assertThat(third).isNotDone();
        recycleLast(borrower, lent, 4);
        assertThat(third.join()).hasSize(1);
        assertThat(b.pagesInUse()).isEqualTo(1);
        assertThat(pool.freePages()).isEqualTo(3);
        pool.checkInvariants();
        recycleAll(a, new ArrayList<>(first.join()));
        recycleAll(b, new ArrayList<>(third.join()));
    }

    @Test
    void cancel_headRequest_servesTheNextRequestThatFits() {
        NetworkBufferPool pool = newPool(4);
        BufferOwner borrower = pool.register("borrower", 0, "k", null); // never revoked
        List<Page> lent = take(borrower, 3);
        BufferOwner a = pool.register("a", 3, "k", null);
        BufferOwner b = pool.register("b", 1, "k", null);
        CompletableFuture<List<Page>> head = a.request(3); // 1 free: waits
        CompletableFuture<List<Page>> next = b.request(1); // fits, but FIFO: waits behind a
        assertThat(next).isNotDone();
        assertThat(head.cancel(false)).isTrue();
        try {
            assertThat(next).as("b's request of 1 page, 1 page free, nobody ahead").isCompleted();
            assertThat(b.pagesInUse()).isEqualTo(1);
        } finally {
            if (!next.cancel(false)) {
                recycleAll(b, new ArrayList<>(next.join()));
            }
            recycleAll(borrower, lent);
        }
    }

    @Test
    void close_ofTheHeadRequestsOwner_servesTheNextRequestThatFits() {
        NetworkBufferPool pool = newPool(4);
        BufferOwner borrower = pool.register("borrower", 0, "k", null);
        List<Page> lent = take(borrower, 3);
        BufferOwner a = pool.register("a", 3, "k", null);
        BufferOwner b = pool.register("b", 1, "k", null);
        CompletableFuture<List<Page>> head = a.request(3);
        CompletableFuture<List<Page>> next = b.request(1);
        a.close();
        assertThat(head).isCompletedExceptionally();
        assertThat(next).isCompleted();
        pool.checkInvariants();
        recycleAll(b, new ArrayList<>(next.join()));
        recycleAll(borrower, lent);
    }

    // ---- owner lifecycle ----

    @Test
    void ownerClose_whileHoldingPages_failsWithTheCountAndStaysRegistered() {
        NetworkBufferPool pool = newPool(4);
        BufferOwner a = pool.register("leaky", 2, "k", null);
        List<Page> held = take(a, 2);
        assertThatThrownBy(a::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'leaky' closed while holding 2 pages");
        assertThat(pool.owners()).containsExactly(new OwnerStats("leaky", 2, 2));
        assertThat(pool.guaranteedPages()).isEqualTo(2);
        recycleAll(a, held);
        a.close();
        a.close(); // idempotent
        assertThat(pool.owners()).isEmpty();
        assertThat(pool.guaranteedPages()).isZero();
        pool.checkInvariants();
    }

    @Test
    void ownerClose_cancelsItsWaitingRequestsOnlyAndReleasesItsGuarantee() {
        NetworkBufferPool pool = newPool(4);
        BufferOwner borrower = pool.register("borrower", 0, "k", (o, n) -> {});
        List<Page> lent = take(borrower, 4);
        BufferOwner a = pool.register("a", 3, "k", null);
        BufferOwner b = pool.register("b", 1, "k", null);
        CompletableFuture<List<Page>> first = a.request(2);
        CompletableFuture<List<Page>> second = a.request(1);
        CompletableFuture<List<Page>> others = b.request(1);
        a.close();
        for (CompletableFuture<List<Page>> f : List.of(first, second)) {
            assertThat(f).isCompletedExceptionally();
            assertThatThrownBy(f::join)
                    .isInstanceOf(CancellationException.class)
                    .hasMessageContaining("owner 'a' closed");
        }
        assertThat(others).isNotDone();
        assertThat(pool.guaranteedPages()).isEqualTo(1);
        recycleLast(borrower, lent, 1);
        assertThat(others).isCompleted();
        assertThat(a.pagesInUse()).isZero();
        recycleLast(borrower, lent, 3);
        assertThat(a.pagesInUse()).isZero();
        pool.checkInvariants();
        recycleAll(b, new ArrayList<>(others.join()));
        assertThat(pool.freePages()).isEqualTo(4);
    }

    @Test
    void ownerMethods_afterClose_areRejected() {
        NetworkBufferPool pool = newPool(4);
        BufferOwner a = pool.register("gone", 2, "k", null);
        a.close();
        assertThatThrownBy(a::tryRequest)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'gone' is closed");
        assertThatThrownBy(() -> a.request(1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'gone' is closed");
        assertThat(pool.pagesInUse()).isZero();
        pool.checkInvariants();
    }

    // ---- recycling ----

    @Test
    void recycle_pageHeldByAnotherOwner_isRejectedNamingBoth() {
        NetworkBufferPool pool = newPool(4);
        BufferOwner a = pool.register("a", 2, "k", null);
        BufferOwner b = pool.register("b", 2, "k", null);
        Page page = take(a, 1).get(0);
        assertThatThrownBy(() -> b.recycle(page))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'b' recycled page " + page.index())
                .hasMessageContaining("held by 'a'");
        assertThat(a.pagesInUse()).isEqualTo(1);
        assertThat(b.pagesInUse()).isZero();
        pool.checkInvariants();
        a.recycle(page);
    }

    @Test
    void recycle_twice_isRejectedAndCountsOnce() {
        NetworkBufferPool pool = newPool(4);
        BufferOwner a = pool.register("a", 2, "k", null);
        Page page = take(a, 1).get(0);
        a.recycle(page);
        assertThatThrownBy(() -> a.recycle(page))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("recycled twice");
        assertThat(pool.freePages()).isEqualTo(4);
        assertThat(a.pagesInUse()).isZero();
        pool.checkInvariants();
    }

    @Test
    void recycle_pageOfAnotherPool_isRejected() {
        NetworkBufferPool pool = newPool(4);
        NetworkBufferPool other = newPool(4);
        BufferOwner a = pool.register("a", 2, "k", null);
        BufferOwner stranger = other.register("stranger", 2, "k", null);
        List<Page> mine = take(a, 1);
        Page foreign = take(stranger, 1).get(0);
        assertThatThrownBy(() -> a.recycle(foreign))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not of this pool");
        assertThat(a.pagesInUse()).isEqualTo(1);
        assertThat(pool.freePages()).isEqualTo(3);
        pool.checkInvariants();
        recycleAll(a, mine);
        stranger.recycle(foreign);
    }

    // ---- pool lifecycle ----

    @Test
    void poolClose_withAHolder_failsNamingItAndItsCount() {
        NetworkBufferPool pool = newPool(4);
        BufferOwner a = pool.register("leaky", 2, "k", null);
        BufferOwner clean = pool.register("clean", 1, "k", null);
        List<Page> held = take(a, 3);
        assertThatThrownBy(pool::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'leaky' holds 3")
                .hasMessageNotContaining("clean");
        // Closed anyway: no new owners or pages, but the leak can still be returned.
        assertThatThrownBy(() -> pool.register("late", 0, "k", null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("pool closed");
        assertThatThrownBy(() -> clean.request(1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("pool closed");
        recycleAll(a, held);
        a.close();
        clean.close();
        assertThat(pool.freePages()).isEqualTo(4);
        pool.checkInvariants();
        pool.close(); // idempotent
    }

    @Test
    void poolClose_failsWaitingRequestsAndPagesCanStillComeBack() {
        NetworkBufferPool pool = newPool(4);
        BufferOwner borrower = pool.register("borrower", 0, "k", (o, n) -> {});
        List<Page> lent = take(borrower, 4);
        BufferOwner a = pool.register("a", 4, "k", null);
        CompletableFuture<List<Page>> waiting = a.request(4);
        assertThatThrownBy(pool::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'borrower' holds 4");
        assertThat(waiting).isCompletedExceptionally();
        assertThatThrownBy(waiting::join)
                .isInstanceOf(CancellationException.class)
                .hasMessageContaining("pool closed");
        recycleAll(borrower, lent);
        assertThat(a.pagesInUse()).isZero();
        assertThat(pool.freePages()).isEqualTo(4);
        a.close();
        borrower.close();
        pool.checkInvariants();
    }

    // ---- pages and stats ----

    @Test
    void pages_handedOutAgain_areCleared() {
        NetworkBufferPool pool = newPool(4);
        BufferOwner a = pool.register("a", 2, "k", null);
        Page page = take(a, 1).get(0);
        page.buffer().position(10).limit(20);
        a.recycle(page);
        Page again = take(a, 1).get(0);
        assertThat(again).isSameAs(page); // the free list is a stack
        assertThat(again.buffer().position()).isZero();
        assertThat(again.buffer().limit()).isEqualTo(256);
        assertThat(again.buffer().capacity()).isEqualTo(256);
        assertThat(again.buffer().isDirect()).isTrue();
        again.buffer().position(200).limit(201);
        a.recycle(again);
        List<Page> requested = a.request(1).join();
        assertThat(requested.get(0).buffer().position()).isZero();
        assertThat(requested.get(0).buffer().limit()).isEqualTo(256);
        recycleAll(a, new ArrayList<>(requested));
    }

    @Test
    void pages_ofThePool_areDistinctAndDoNotOverlap() {
        NetworkBufferPool pool = newPool(8);
        BufferOwner a = pool.register("a", 8, "k", null);
        List<Page> all = take(a, 8);
        Set<Integer> indices = new HashSet<>();
        for (Page page : all) {
            indices.add(page.index());
            for (int i = 0; i < 256; i++) {
                page.buffer().put(i, (byte) page.index());
            }
        }
        assertThat(indices).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
        for (Page page : all) {
            for (int i = 0; i < 256; i++) {
                assertThat(page.buffer().get(i)).isEqualTo((byte) page.index());
            }
        }
        recycleAll(a, all);
    }

    @Test
    void owners_reportGuaranteeAndPagesInRegistrationOrder_withoutClosedOnes() {
        NetworkBufferPool pool = newPool(10);
        BufferOwner w = pool.register("writer", 3, "k", null);
        BufferOwner r = pool.register("reader", 2, "k", null);
        BufferOwner g = pool.register("gate", 1, "k", null);
        List<Page> ws = take(w, 6); // borrows 3
        List<Page> gs = take(g, 1);
        assertThat(pool.owners())
                .containsExactly(
                        new OwnerStats("writer", 3, 6),
                        new OwnerStats("reader", 2, 0),
                        new OwnerStats("gate", 1, 1));
        assertThat(w.borrowedPages()).isEqualTo(3);
        assertThat(g.borrowedPages()).isZero();
        assertThat(pool.totalPages()).isEqualTo(10);
        assertThat(pool.pageSizeBytes()).isEqualTo(256);
        assertThat(pool.pagesInUse()).isEqualTo(7);
        assertThat(pool.freePages()).isEqualTo(3);
        assertThat(pool.guaranteedPages()).isEqualTo(6);
        r.close();
        assertThat(pool.owners()).extracting(OwnerStats::name).containsExactly("writer", "gate");
        pool.checkInvariants();
        recycleAll(w, ws);
        recycleAll(g, gs);
    }
}
