package io.railyard.benchmarks.procedures;

import org.openjdk.jol.info.GraphLayout;

/**
 * JOL bytes reachable from a root but not from a set of shared objects, measured without object
 * addresses. JOL's {@link GraphLayout#subtract} matches the two graphs by address, so a garbage
 * collection that moves objects between the two walks leaves shared objects in the difference (a 4
 * MB graph counted as the placement's own bytes in one CI run). Here each graph is walked once by
 * identity and the difference is taken of the totals: the closure of {@code root} together with
 * {@code shared}, minus the closure of {@code shared} alone, is exactly what only the root reaches.
 * Stateless; safe from any thread, as far as the walked objects do not change during the walks.
 */
public final class RetainedBytes {
    private RetainedBytes() {}

    /**
     * Bytes of the objects reachable from {@code root} and from none of {@code shared}. Two graph
     * walks, O(objects reachable from either).
     */
    public static long of(Object root, Object... shared) {
        Object[] all = new Object[shared.length + 1];
        all[0] = root;
        System.arraycopy(shared, 0, all, 1, shared.length);
        long sharedBytes = shared.length == 0 ? 0 : GraphLayout.parseInstance(shared).totalSize();
        return GraphLayout.parseInstance(all).totalSize() - sharedBytes;
    }
}
