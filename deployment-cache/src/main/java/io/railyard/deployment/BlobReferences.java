package io.railyard.deployment;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The blob references every store of this process holds now, for {@link
 * BlobStore#referencesInProcess()}. Thread-safe; O(1).
 */
final class BlobReferences {
    private static final AtomicLong LIVE = new AtomicLong();

    private BlobReferences() {}

    /** {@code delta} references were added (positive) or dropped (negative). */
    static void add(long delta) {
        LIVE.addAndGet(delta);
    }

    static long live() {
        return LIVE.get();
    }
}
