package io.railyard.shuffle.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.ShuffleOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The buffer pool's rules, one by one (RELIABILITY rows 25 and 32). */
class NetworkBufferPoolTest {
    private static NetworkBufferPool pool(int pages) {
        return new NetworkBufferPool(
                ShuffleOptions.builder().pageSizeBytes(256).totalPages(pages).build());
    }

    private static List<Page> take(BufferOwner owner, int n) {
        List<Page> pages = new ArrayList<>();
        assertThat(owner.tryRequest(n, pages)).isTrue();
        return pages;
    }

    private static void recycleAll(BufferOwner owner, List<Page> pages) {
        pages.forEach(owner::recycle);
        pages.clear();
    }

    @Test
    void register_beyondBudget_failsAtOnceNamingOwnerNumbersAndSettings() {
        NetworkBufferPool pool = pool(10);
        pool.register("writer a", 6, "shuffle.sort.buffer-pages", null);
        assertThatThrownBy(() -> pool.register("writer b", 5, "shuffle.sort.buffer-pages", null))
                .isInstanceOf(InsufficientNetworkMemoryException.class)
                .hasMessageContaining("'writer b' needs 5 guaranteed pages")
                .hasMessageContaining("only 4 of 10 pages")
                .hasMessageContaining("'writer a' 6")
                .hasMessageContaining(ShuffleOptions.TOTAL_MEMORY_KEY + " (now 2560 B)")
                .hasMessageContaining("at least 2816 B")
                .hasMessageContaining("shuffle.sort.buffer-pages");
        assertThat(pool.guaranteedPages()).isEqualTo(6);
    }

    @Test
    void tryRequest_borrowing_usesOnlyPagesNobodyIsPromised() {
        NetworkBufferPool pool = pool(10);
        BufferOwner a = pool.register("a", 4, "k", null);
        BufferOwner b = pool.register("b", 3, "k", null);
        List<Page> pages = take(a, 4 + 3); // its 4 and the 3 unguaranteed
        assertThat(a.borrowedPages()).isEqualTo(3);
        assertThat(a.tryRequest()).isNull(); // b's 3 stay promised
        assertThat(take(b, 3)).hasSize(3);
        assertThat(pool.freePages()).isZero();
        pool.checkInvariants();
        recycleAll(a, pages);
    }

    @Test
    void tryRequest_allOrNothing_appendsNothingWhenOnlyNMinusOneFit() {
        NetworkBufferPool pool = pool(5);
        BufferOwner a = pool.register("a", 5, "k", null);
        List<Page> held = take(a, 2);
        List<Page> out = new ArrayList<>();
        assertThat(a.tryRequest(4, out)).isFalse();
        assertThat(out).isEmpty();
        assertThat(a.pagesInUse()).isEqualTo(2);
        recycleAll(a, held);
    }

    @Test
    void request_beyondGuarantee_isRejectedWithNumbers() {
        NetworkBufferPool pool = pool(8);
        BufferOwner a = pool.register("gate g", 3, "shuffle.read.gate-pages", null);
        assertThatThrownBy(() -> a.request(4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'gate g'")
                .hasMessageContaining("4 pages")
                .hasMessageContaining("3 guaranteed");
        assertThatThrownBy(() -> a.tryRequest(0, new ArrayList<>()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.tryRequest(9, new ArrayList<>()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 8");
    }

    @Test
    void register_whilePagesAreLent_asksTheBorrowerAndServesOnceTheyComeBack() throws Exception {
        NetworkBufferPool pool = pool(10);
        AtomicInteger asked = new AtomicInteger();
        BufferOwner borrower = pool.register("borrower", 2, "k", (o, n) -> asked.addAndGet(n));
        List<Page> lent = take(borrower, 10);
        BufferOwner late = pool.register("late", 6, "k", null);
        assertThat(asked.get()).isEqualTo(6);
        CompletableFuture<List<Page>> waiting = late.request(4);
        assertThat(waiting).isNotDone();
        for (int i = 0; i < 4; i++) {
            borrower.recycle(lent.remove(lent.size() - 1));
        }
        assertThat(waiting.get(10, TimeUnit.SECONDS)).hasSize(4);
        assertThat(late.pagesInUse()).isEqualTo(4);
        pool.checkInvariants();
        recycleAll(late, waiting.get());
        recycleAll(borrower, lent);
        assertThat(pool.freePages()).isEqualTo(10);
    }

    @Test
    void waitingRequests_areServedInOrder_andCancelledOnesHoldNothing() throws Exception {
        NetworkBufferPool pool = pool(6);
        BufferOwner borrower = pool.register("borrower", 0, "k", (o, n) -> {});
        List<Page> lent = take(borrower, 6);
        BufferOwner a = pool.register("a", 3, "k", null);
        BufferOwner b = pool.register("b", 3, "k", null);
        CompletableFuture<List<Page>> first = a.request(2);
        CompletableFuture<List<Page>> cancelled = b.request(3);
        assertThat(cancelled.cancel(false)).isTrue();
        CompletableFuture<List<Page>> third = b.request(1);
        borrower.recycle(lent.remove(0));
        assertThat(first).isNotDone(); // needs 2
        borrower.recycle(lent.remove(0));
        assertThat(first).isDone();
        assertThat(third).isNotDone();
        borrower.recycle(lent.remove(0));
        assertThat(third.get()).hasSize(1);
        assertThat(b.pagesInUse()).isEqualTo(1);
        pool.checkInvariants();
        recycleAll(a, first.get());
        recycleAll(b, third.get());
        recycleAll(borrower, lent);
    }

    @Test
    void recycle_foreignOrTwice_isRejected() {
        NetworkBufferPool pool = pool(4);
        BufferOwner a = pool.register("a", 2, "k", null);
        BufferOwner b = pool.register("b", 2, "k", null);
        Page page = take(a, 1).get(0);
        assertThatThrownBy(() -> b.recycle(page))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'b' recycled page")
                .hasMessageContaining("held by 'a'");
        a.recycle(page);
        assertThatThrownBy(() -> a.recycle(page))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("recycled twice");
    }

    @Test
    void close_withPagesHeld_namesTheLeak() {
        NetworkBufferPool pool = pool(4);
        BufferOwner a = pool.register("leaky", 2, "k", null);
        List<Page> held = take(a, 2);
        assertThatThrownBy(a::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'leaky' closed while holding 2 pages");
        assertThatThrownBy(pool::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'leaky' holds 2");
        assertThat(held).hasSize(2);
    }

    @Test
    void close_cancelsWaitingRequestsAndFreesTheGuarantee() {
        NetworkBufferPool pool = pool(4);
        BufferOwner borrower = pool.register("borrower", 0, "k", null);
        List<Page> lent = take(borrower, 4);
        BufferOwner a = pool.register("a", 4, "k", null);
        CompletableFuture<List<Page>> waiting = a.request(4);
        a.close();
        assertThat(waiting).isCompletedExceptionally();
        assertThat(pool.guaranteedPages()).isZero();
        recycleAll(borrower, lent);
        assertThat(pool.freePages()).isEqualTo(4);
    }

    @Test
    void pages_areClearedOnHandOut_andStatsPerOwner() {
        NetworkBufferPool pool = pool(4);
        BufferOwner a = pool.register("a", 2, "k", null);
        Page page = take(a, 1).get(0);
        page.buffer().position(10).limit(20);
        a.recycle(page);
        Page again = take(a, 1).get(0);
        assertThat(again.buffer().position()).isZero();
        assertThat(again.buffer().limit()).isEqualTo(256);
        assertThat(again.buffer().isDirect()).isTrue();
        assertThat(pool.owners()).containsExactly(new OwnerStats("a", 2, 1));
        a.recycle(again);
    }

    @Test
    void requestBlocking_interrupted_rollsBackAndHoldsNothing() throws Exception {
        NetworkBufferPool pool = pool(4);
        BufferOwner borrower = pool.register("borrower", 0, "k", null);
        List<Page> lent = take(borrower, 4);
        BufferOwner a = pool.register("a", 2, "k", null);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread waiter =
                new Thread(
                        () -> {
                            try {
                                a.requestBlocking(2);
                            } catch (Throwable e) {
                                thrown.set(e);
                            }
                        });
        waiter.start();
        while (waiter.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        waiter.interrupt();
        waiter.join(10_000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        int inUse = pool.pagesInUse();
        recycleAll(borrower, lent);
        assertThat(a.pagesInUse()).isZero();
        assertThat(pool.pagesInUse()).isEqualTo(inUse - 4);
        pool.checkInvariants();
    }
}
