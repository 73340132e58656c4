package io.railyard.shuffle.buffer;

import io.railyard.shuffle.AllocationMeter;
import io.railyard.shuffle.ShuffleOptions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The data-path promise of the buffer pool: while no request waits, taking one page ({@link
 * BufferOwner#tryRequest()}) and recycling it allocate nothing. Measured in bytes on this thread
 * (see {@link AllocationMeter}), never in time.
 */
class NetworkBufferPoolAllocationTest {
    private static final int WARM_UP = 10_000;
    private static final int CALLS = 10_000;

    @Test
    void recycle_noRequestWaiting_allocatesNothing() throws Exception {
        NetworkBufferPool pool =
                new NetworkBufferPool(
                        ShuffleOptions.builder().pageSizeBytes(256).totalPages(CALLS + 8).build());
        pool.register("other", 8, "k", null); // a pledge keeps the accounting realistic
        BufferOwner owner = pool.register("reader", 16, "k", null);
        List<Page> pages = new ArrayList<>(CALLS);
        for (int round = 0; round < WARM_UP / CALLS + 1; round++) {
            pages.clear();
            owner.tryRequest(CALLS, pages);
            long bytes = AllocationMeter.measure(0, CALLS, i -> owner.recycle(pages.get(i)));
            if (round == WARM_UP / CALLS) {
                AllocationMeter.assertBelowOneBytePerCall("BufferOwner.recycle", bytes, CALLS);
            }
        }
        pool.checkInvariants();
        pool.close();
    }

    @Test
    void tryRequestOnePage_thenRecycle_allocatesNothing() throws Exception {
        NetworkBufferPool pool =
                new NetworkBufferPool(
                        ShuffleOptions.builder().pageSizeBytes(256).totalPages(32).build());
        pool.register("other", 8, "k", null);
        BufferOwner owner = pool.register("gate", 4, "k", null);
        Page[] held = new Page[6]; // beyond the guarantee: borrowing is measured too
        long bytes =
                AllocationMeter.measure(
                        WARM_UP,
                        CALLS,
                        i -> {
                            Page page = owner.tryRequest();
                            if (page == null) {
                                throw new AssertionError("no page at call " + i);
                            }
                            Page old = held[i % held.length];
                            held[i % held.length] = page;
                            if (old != null) {
                                owner.recycle(old);
                            }
                        });
        AllocationMeter.assertBelowOneBytePerCall("BufferOwner.tryRequest()+recycle", bytes, CALLS);
        for (Page page : held) {
            owner.recycle(page);
        }
        pool.checkInvariants();
        pool.close();
    }
}
