package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.buffer.Page;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The cursors of one {@link HybridPartition}'s {@link HybridReader}s — the IO thread's readers, of
 * a whole stream or of one region for a gate — moved over the partition's regions: attached (by the
 * read-once rule), pointed at their next bytes (memory, disk, nowhere yet, the end), advanced by
 * what they consumed, and detached, dropping what an abandoned subpartition of a partition read
 * once can never read again.
 *
 * <p>Threading: the regions, who reads and the counters are guarded by the partition's monitor,
 * which every method here takes; pages a reader no longer needs are recycled after it is released.
 * The cursors themselves are the IO thread's ({@link HybridReader}), moved only under that monitor.
 * The file a cursor is pointed at is opened under it ({@link HybridFiles}' monitor comes next in
 * the lock order). Each call is O(1) plus the regions a cursor moves past.
 */
final class HybridCursors {
    private final HybridPartition partition;
    private final HybridFiles files;

    @GuardedBy("partition")
    private final HybridRegions regions;

    @GuardedBy("partition")
    private final HybridReaders readers;

    @GuardedBy("partition")
    private final HybridTally tally;

    /**
     * The cursors of {@code partition}'s readers over {@code regions} and {@code files}, attached
     * in {@code readers} and counted in {@code tally} (all three guarded by the partition's
     * monitor).
     */
    HybridCursors(
            HybridPartition partition,
            HybridRegions regions,
            HybridReaders readers,
            HybridTally tally,
            HybridFiles files) {
        this.partition = partition;
        this.regions = regions;
        this.readers = readers;
        this.tally = tally;
        this.files = files;
    }

    /**
     * Attaches a reader of the whole stream of {@code subpartition}, at the first frame; {@code
     * waker} runs when data arrives for it after it found none (or the partition is lost). A gate
     * reads through a {@link PartitionFeed} instead, one region at a time; this reader is for a
     * consumer that reads one partition on its own.
     *
     * @throws PartitionLostException if the partition is lost, or (selective) the subpartition was
     *     read before
     */
    HybridReader attach(int subpartition, Runnable waker) throws PartitionLostException {
        partition.checkSubpartition(subpartition);
        synchronized (partition) {
            partition.checkNotLostLocked();
            if (!readers.claim(subpartition, new Object())
                    || (partition.isReadOnce() && regions.passedAny(subpartition))) {
                throw partition.readBefore(subpartition);
            }
            readers.streamAttached(subpartition);
        }
        return new HybridReader(partition, subpartition, waker, 0, Integer.MAX_VALUE);
    }

    /**
     * Attaches a reader of {@code subpartition}'s section of {@code region} only (a gate's read of
     * one feed entry from disk, on the IO thread): it ends at the section's end.
     *
     * @throws PartitionLostException if the partition is lost, or (selective) the subpartition read
     *     the region before
     */
    HybridReader attach(int subpartition, HybridRegion region, PartitionFeed feed)
            throws PartitionLostException {
        partition.checkSubpartition(subpartition);
        synchronized (partition) {
            partition.checkNotLostLocked();
            if (!readers.claim(subpartition, feed)
                    || (partition.isReadOnce() && region.hasPassed(subpartition))) {
                throw partition.readBefore(subpartition);
            }
        }
        return new HybridReader(
                partition, subpartition, () -> {}, region.index(), region.index() + 1);
    }

    /**
     * Points {@code reader} at where its next bytes are: in memory (the region is pinned until
     * {@link #consumed}), on disk, nowhere yet (the reader is parked and woken by the next region),
     * or nowhere at all (the end, or the end of the regions it reads). Moves the reader past
     * sections it finished.
     *
     * @throws PartitionLostException if the partition is lost
     */
    HybridReader.Where locate(HybridReader reader) throws IOException {
        List<Page> drop = new ArrayList<>(0);
        try {
            synchronized (partition) {
                partition.checkNotLostLocked();
                return locateLocked(reader, drop);
            }
        } finally {
            partition.recycle(drop);
        }
    }

    @GuardedBy("partition")
    private HybridReader.Where locateLocked(HybridReader reader, List<Page> drop)
            throws IOException {
        int s = reader.subpartition();
        while (true) {
            if (reader.region() >= reader.endRegion()) {
                return HybridReader.Where.END;
            }
            if (reader.region() >= regions.size()) {
                if (partition.isFinished()) {
                    return HybridReader.Where.END;
                }
                readers.park(reader);
                return HybridReader.Where.WAIT;
            }
            HybridRegion region = regions.get(reader.region());
            int section = region.section(s);
            int length = region.sectionLength(section);
            int offset = reader.offset();
            if (offset >= length) {
                regions.pass(region, s, drop); // the reader is done with it
                reader.nextRegion();
                continue;
            }
            Page[] pinned = region.pin();
            if (pinned != null) {
                int streamAt = region.sectionStart(section) + offset;
                reader.atMemory(region, pinned, streamAt, length - offset);
                return HybridReader.Where.MEMORY;
            }
            files.pointAtDisk(reader, region, section, offset, length - offset);
            return HybridReader.Where.DISK;
        }
    }

    /**
     * {@code reader} took {@code bytes} of the bytes {@link #locate} pointed it at (from memory if
     * {@code fromMemory}); unpins the region and drops what no reader needs any more.
     */
    void consumed(HybridReader reader, int bytes, boolean fromMemory) {
        List<Page> drop = List.of();
        synchronized (partition) {
            HybridRegion pinned = reader.advance(bytes);
            if (reader.region() < regions.size()) {
                regions.get(reader.region()).took(reader.subpartition(), reader.offset());
            }
            tally.read(bytes, fromMemory);
            if (fromMemory) {
                drop = regions.dropped(Objects.requireNonNull(pinned).unpin());
            }
        }
        partition.recycle(drop);
    }

    /**
     * {@code reader} stops: at the end ({@code completed}), or abandoned (its gate closed or
     * failed). An abandoned selective subpartition's data can never be read again and is dropped:
     * all of it for a stream reader, the region's section for a reader of one region (its gate lets
     * go of the rest).
     */
    void detach(HybridReader reader, boolean completed) {
        List<Page> drop = new ArrayList<>(0);
        synchronized (partition) {
            readers.unpark(reader);
            HybridRegion pinned = reader.releasePin();
            if (pinned != null) {
                drop.addAll(regions.dropped(pinned.unpin()));
            }
            int s = reader.subpartition();
            boolean stream = reader.endRegion() == Integer.MAX_VALUE;
            if (stream) {
                readers.streamDetached();
            }
            if (!completed && partition.isReadOnce()) {
                if (stream) {
                    readers.abandon(s);
                }
                int last = Math.min(regions.size(), reader.endRegion());
                for (int r = Math.min(reader.region(), last); r < last; r++) {
                    regions.pass(regions.get(r), s, drop);
                }
            }
        }
        partition.recycle(drop);
    }
}
