/**
 * The shuffle layer's settings and directories: {@code ShuffleOptions} (every key, default and
 * range) and {@code ShuffleDirectory} (owner-marked directories, swept after a crash). Pages live
 * in {@code .buffer}; partitions, their files and their reading in {@code .partition}.
 *
 * <p>Threading: {@code ShuffleOptions} is immutable; {@code ShuffleDirectory} is thread-safe.
 */
@NullMarked
package io.railyard.shuffle;

import org.jspecify.annotations.NullMarked;
