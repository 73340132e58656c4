package io.railyard.shuffle.buffer;

/**
 * Asked by the pool to give back borrowed pages (spill, shrink read-ahead) because another owner
 * needs its guarantee. Called outside the pool's lock, on any thread; it may be asked again for the
 * same shortfall, and should recycle up to the given number of pages soon, not necessarily before
 * returning.
 */
@FunctionalInterface
public interface RevocationListener {
    /** Asks {@code owner} to recycle up to {@code pages} of the pages it borrowed. */
    void revoke(BufferOwner owner, int pages);
}
