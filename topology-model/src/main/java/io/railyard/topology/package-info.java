/**
 * The logical job graph with dense int ids: {@code JobGraph} (built by {@code JobGraphBuilder}) of
 * job vertices, datasets and edges, whose task and partition ids are {@code RangeTable} ranges
 * passed around as {@code PackedRange} longs.
 *
 * <p>Threading: immutable after build and thread-safe; the builder, the only mutable form, is not.
 */
@NullMarked
package io.railyard.topology;

import org.jspecify.annotations.NullMarked;
