/**
 * Blocking partitions: {@code ShuffleWorker} (pool, directory and IO thread of one worker) makes
 * sort- and hash-based {@code PartitionWriter}s (one frame format, {@code FrameHeader}; sort index
 * entries, {@code IndexEntry}) and {@code InputGate}s read by {@code RecordDecoder}.
 *
 * <p>Threading: writers, gate polling and decoders belong to their task's thread; the one IO thread
 * ({@code IoScheduler}) owns every read cursor; the worker, partitions and buffer recycling are
 * thread-safe. Lock order: gate, then IO scheduler, then buffer pool.
 */
@NullMarked
package io.railyard.shuffle.partition;

import org.jspecify.annotations.NullMarked;
