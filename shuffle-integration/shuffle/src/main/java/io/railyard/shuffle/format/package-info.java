/**
 * The bytes of the shuffle layer, below its partitions: a frame ({@code FrameHeader}, sealed,
 * checked and opened by {@code FrameCodec}, records packed into frames by {@code LaneStream} and
 * read back by {@code RecordDecoder}) and a sort file's index entry ({@code IndexEntry},
 * checksummed by {@code SortIndex}); a failed check is a {@code CorruptPartitionFileException},
 * located by a {@code FrameContext}. Depends on no other package of the shuffle layer but its root.
 *
 * <p>Threading: nothing here is thread-safe or takes a lock; every object is owned by one thread (a
 * writer's, the IO thread, a consumer's) or used under its owner's lock.
 */
@NullMarked
package io.railyard.shuffle.format;

import org.jspecify.annotations.NullMarked;
