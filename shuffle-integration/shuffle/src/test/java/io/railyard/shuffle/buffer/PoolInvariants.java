package io.railyard.shuffle.buffer;

/** Opens {@link NetworkBufferPool#checkInvariants()} to tests of other packages. */
public final class PoolInvariants {
    private PoolInvariants() {}

    /** Checks {@code pool}'s accounting; throws {@link IllegalStateException} naming the break. */
    public static void check(NetworkBufferPool pool) {
        pool.checkInvariants();
    }
}
