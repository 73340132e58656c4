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

    /**
     * Whether the owner gives its borrowed pages back by itself as its readers consume them (a
     * pipelined partition's regions): who needs pages may then wait for them instead of asking
     * ({@link NetworkBufferPool#drainingPages}). Asked once, at registration. False by default.
     */
    default boolean drains() {
        return false;
    }
}
