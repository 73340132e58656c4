package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * When a consumed partition group's shuffle descriptors go to the blob store instead of inline into
 * every consumer's descriptor, and whether they are compressed. Immutable.
 *
 * @param enabled whether offloading happens at all
 * @param edgeThreshold offload when (descriptors in the group × consumers of the group) reaches
 *     this; default 2048 × 2048 (Flink 1.18's rule)
 * @param byteThreshold offload when the encoded group reaches this many bytes; default 1 MiB (Flink
 *     1.14's rule)
 * @param compress whether encoded groups are compressed when it makes them smaller
 */
public record OffloadOptions(
        boolean enabled, long edgeThreshold, int byteThreshold, boolean compress) {
    /** Offload at 2048 × 2048 descriptors × consumers or 1 MiB; compress. */
    public static final OffloadOptions DEFAULT =
            new OffloadOptions(true, 2048L * 2048L, 1 << 20, true);

    /** Never offload; compress. */
    public static final OffloadOptions NEVER =
            new OffloadOptions(false, Long.MAX_VALUE, 1 << 20, true);

    /** Checks the thresholds. */
    public OffloadOptions {
        checkArgument(edgeThreshold >= 1, "edgeThreshold must be >= 1, was %s", edgeThreshold);
        checkArgument(byteThreshold >= 1, "byteThreshold must be >= 1, was %s", byteThreshold);
    }

    /**
     * Whether a group of {@code descriptors} read by {@code consumers}, {@code bytes} long, goes.
     */
    boolean offloads(int descriptors, int consumers, int bytes) {
        return enabled
                && ((long) descriptors * consumers >= edgeThreshold || bytes >= byteThreshold);
    }
}
