/**
 * The shuffle layer's settings, directories and lost-partition failure: {@code ShuffleOptions}
 * (every key, default and range), {@code ShuffleDirectory} (owner-marked directories, swept after a
 * crash) and {@code PartitionLostException}. Pages live in {@code .buffer}, frames and index
 * entries in {@code .format}, partitions and their reading in {@code .partition} (which depends on
 * the other two; nothing depends on it).
 *
 * <p>Threading: {@code ShuffleOptions} is immutable; {@code ShuffleDirectory} is thread-safe.
 *
 * <h2>Lock order</h2>
 *
 * The one place the shuffle layer's lock order is written; class docs refer here. A thread holding
 * one of these locks takes only locks further down the list, never one above it:
 *
 * <ol>
 *   <li>a {@code ShuffleWorker}'s monitor (opening a gate, closing; the partitions it checks, the
 *       gate it opens and the pool it registers with come after);
 *   <li>an {@code InputGate}'s monitor (it hands channels to the scheduler, takes and returns
 *       pages; a page it returns may run the pool's revocation asks, which take a partition's lock
 *       and then the scheduler's, one after the other);
 *   <li>the {@code IoScheduler}'s lock (its queues and open files);
 *   <li>a {@code HybridPartition}'s monitor, which also guards its regions and its readers'
 *       progress;
 *   <li>a partition's file monitors: {@code HybridFiles}' (taken under the partition's to open a
 *       file for a reader) and {@code SortPartition}'s (its index cache and data channel);
 *   <li>the {@code NetworkBufferPool}'s lock, the innermost: nothing else is locked under it, and
 *       its futures and revocation listeners run after it is released.
 * </ol>
 *
 * Leaf locks, under which no other lock is taken: {@code LeftoverFiles}' monitor (under the
 * worker's when it closes), an {@code InputGate.Buffer}'s, a {@code ShuffleDirectory}'s, a file
 * channel's (a scattering read, holding no other lock). Every field a lock guards carries
 * {@code @GuardedBy}, which Error Prone checks on every access in the build; fields written under a
 * lock but read without it (volatile, for a racy fast path) say so where they are read.
 */
@NullMarked
package io.railyard.shuffle;

import org.jspecify.annotations.NullMarked;
