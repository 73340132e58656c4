package io.railyard.shuffle;

import io.railyard.shuffle.buffer.NetworkBufferPool;
import io.railyard.testing.LeakDetector;
import io.railyard.testing.LeakGauge;

/**
 * The network-buffer gauges {@link LeakDetector} checks after every test of this module (listed in
 * {@code META-INF/services/io.railyard.testing.LeakGauge}): pages held across the process's pools,
 * and pools not closed.
 */
public final class PoolLeakGauges {
    private PoolLeakGauges() {}

    /** Pages held by owners across every open pool of the process. */
    public static final class PagesInUse implements LeakGauge {
        @Override
        public String name() {
            return "network-buffer pages in use (all pools)";
        }

        @Override
        public long value() {
            return NetworkBufferPool.pagesInUseInProcess();
        }
    }

    /** Network-buffer pools constructed and not closed. */
    public static final class OpenPools implements LeakGauge {
        @Override
        public String name() {
            return "network-buffer pools not closed";
        }

        @Override
        public long value() {
            return NetworkBufferPool.openPoolsInProcess();
        }
    }
}
