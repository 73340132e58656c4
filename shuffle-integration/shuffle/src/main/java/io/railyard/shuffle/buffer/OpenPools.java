package io.railyard.shuffle.buffer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The pools of this JVM constructed and not closed, behind the process-wide gauges {@link
 * NetworkBufferPool#openPoolsInProcess} and {@link NetworkBufferPool#pagesInUseInProcess}: the
 * pools themselves, weakly (a forgotten pool may still be collected), and a count of pools
 * constructed minus pools closed (a forgotten pool stays counted once collected).
 *
 * <p>Thread-safe: the set of pools has a lock of its own, a leaf never taken under a pool's lock (a
 * pool leaves after releasing its lock) and under which no pool's lock is taken ({@link
 * #pagesInUse} reads the pools from a snapshot). O(1) per call but {@link #pagesInUse}.
 */
final class OpenPools {
    private static final Map<NetworkBufferPool, Boolean> OPEN =
            Collections.synchronizedMap(new WeakHashMap<>());

    private static final AtomicInteger OPEN_COUNT = new AtomicInteger();

    private OpenPools() {}

    /** {@code pool} was constructed. */
    static void opened(NetworkBufferPool pool) {
        OPEN.put(pool, Boolean.TRUE);
        OPEN_COUNT.incrementAndGet();
    }

    /** {@code pool} closed (called once, without its lock). */
    static void closed(NetworkBufferPool pool) {
        OPEN.remove(pool);
        OPEN_COUNT.decrementAndGet();
    }

    /** Pools constructed minus pools closed. */
    static int count() {
        return OPEN_COUNT.get();
    }

    /**
     * Pages held in the open pools still reachable. O(open pools): takes each pool's lock in turn;
     * allocates a snapshot of the pools.
     */
    static long pagesInUse() {
        List<NetworkBufferPool> pools;
        synchronized (OPEN) {
            pools = new ArrayList<>(OPEN.keySet());
        }
        long inUse = 0;
        for (NetworkBufferPool pool : pools) {
            inUse += pool.pagesInUse();
        }
        return inUse;
    }
}
