package io.railyard.shuffle.archfixture.a;

import io.railyard.shuffle.archfixture.b.UsesA;

/** Half of a seeded package cycle ({@code a -> b -> a}) that PackageCyclesTest must reject. */
public final class UsesB {
    private UsesB() {}

    /** Calls into package {@code b}. */
    public static int callB(int depth) {
        return depth <= 0 ? 0 : UsesA.callA(depth - 1);
    }
}
