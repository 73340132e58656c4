package io.railyard.shuffle.archfixture.b;

import io.railyard.shuffle.archfixture.a.UsesB;

/** The other half of the seeded package cycle ({@code b -> a -> b}). */
public final class UsesA {
    private UsesA() {}

    /** Calls into package {@code a}. */
    public static int callA(int depth) {
        return depth <= 0 ? 0 : UsesB.callB(depth - 1);
    }
}
