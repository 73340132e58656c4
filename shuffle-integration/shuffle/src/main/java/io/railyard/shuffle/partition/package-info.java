/**
 * Result partitions and their readers: {@code ShuffleWorker} (pool, directory and IO thread of one
 * worker) makes writers of one {@code PartitionKind} — sort- and hash-based {@code
 * PartitionWriter}s, {@code HybridPartitionWriter}s (readable while written; full or selective
 * spilling, or pipelined and bounded in memory) — and {@code InputGate}s, whose buffers {@code
 * io.railyard.shuffle.format.RecordDecoder} turns back into records. Frames and index entries are
 * {@code .format}'s.
 *
 * <p>Threading: writers, gate polling and decoders belong to their task's thread; the one IO thread
 * ({@code IoScheduler}) owns every read cursor and runs hybrid spills; the worker, partitions and
 * buffer recycling are thread-safe. The lock order is in the {@code io.railyard.shuffle} package
 * documentation; nothing calls a gate, a revocation listener or the pool while holding a
 * partition's lock, and a revocation listener only enqueues work.
 */
@NullMarked
package io.railyard.shuffle.partition;

import org.jspecify.annotations.NullMarked;
