package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.buffer.Page;
import it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap;
import it.unimi.dsi.fastutil.ints.IntSet;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One sealed region of a {@link HybridPartition}: the frames of one drain of the sort buffer, as a
 * byte stream of sections — one per subpartition, or one that every subpartition reads (broadcast)
 * — laid out exactly as a region of a sort-based data file. The stream lives in memory (the pages
 * it was sealed into), on disk, or both:
 *
 * <ul>
 *   <li>in memory: the pages, page {@code i} holding stream bytes {@code [pageStart[i], pageStart[i
 *       + 1])} from its position 0; a frame never straddles two pages;
 *   <li>on disk, whole: the stream at {@code fileOffset} of the partition's data file (written
 *       through, or written directly when memory was short);
 *   <li>on disk, spilled: section {@code i} from its byte {@code spillFrom[i]} on, at {@code
 *       spillOffset[i]} of the partition's spill file (the bytes before it were consumed already).
 * </ul>
 *
 * <p>Disk bytes equal memory bytes, so a reader's position in a section is the same wherever it
 * reads next. The layout (number, sections, page starts) is immutable. Every other field is guarded
 * by the monitor of the partition ({@link #partition}), which every method here takes (reentrantly:
 * the partition calls them under its lock); the partition changes a region only through these
 * methods. Page buffers are read outside the lock only by whoever holds a pin ({@link #pin}) or
 * while the write-through runs, with views of their own.
 */
final class HybridRegion {
    private final HybridPartition partition;
    private final int index;
    private final boolean broadcast;

    /** Section {@code i} is stream bytes {@code [sectionStart[i], sectionStart[i + 1])}. */
    private final int[] sectionStart;

    /** Stream offsets of the pages (length pages + 1); null if the region was never in memory. */
    private final int @Nullable [] pageStart;

    /** The pages, while the region is in memory; null once dropped (or never resident). */
    @GuardedBy("partition")
    private Page @Nullable [] pages;

    /** Offset of the whole stream in the data file, or -1. */
    @GuardedBy("partition")
    private long fileOffset;

    /** Per section: offset in the spill file of its bytes from {@code spillFrom}, or -1. */
    @GuardedBy("partition")
    private long @Nullable [] spillOffset;

    /** Per section: the first byte that was spilled (valid where spillOffset >= 0). */
    @GuardedBy("partition")
    private int @Nullable [] spillFrom;

    /** A write of the whole stream to the data file is in progress (full mode, write-through). */
    @GuardedBy("partition")
    private boolean writing;

    /** Readers copying from the pages right now; the pages are not dropped meanwhile. */
    @GuardedBy("partition")
    private int pins;

    /** Drop the pages as soon as no reader copies from them and no write-through is running. */
    @GuardedBy("partition")
    private boolean dropWhenIdle;

    /** Subpartitions that still have to read this region (see {@link HybridPartition}). */
    @GuardedBy("partition")
    private int readersLeft;

    /** Subpartitions that have read the region (passed it); null while none has. */
    @GuardedBy("partition")
    private @Nullable BitSet passed;

    /**
     * Bytes of their section the subpartitions midway through it have taken (their readers'
     * high-water mark), which a spill keeps from; null while none is midway.
     */
    @GuardedBy("partition")
    private @Nullable Int2IntOpenHashMap midway;

    private final int numSubpartitions;

    /**
     * Region {@code index} of {@code partition}: resident in {@code pages} (with {@code
     * writeThrough} if a write to the data file follows at once) when {@code pages} is not null,
     * else on disk at {@code fileOffset} of the data file.
     */
    HybridRegion(
            HybridPartition partition,
            int index,
            boolean broadcast,
            int[] sectionStart,
            Page @Nullable [] pages,
            int @Nullable [] pageStart,
            long fileOffset,
            boolean writeThrough) {
        this.partition = partition;
        this.numSubpartitions = partition.numSubpartitions();
        this.index = index;
        this.broadcast = broadcast;
        this.sectionStart = sectionStart;
        this.pageStart = pageStart;
        this.pages = pages;
        this.fileOffset = fileOffset;
        this.writing = writeThrough;
    }

    /** The partition whose region it is. */
    HybridPartition partition() {
        return partition;
    }

    /** The region's number in its partition. */
    int index() {
        return index;
    }

    /** Whether the region holds one section every subpartition reads. */
    boolean isBroadcast() {
        return broadcast;
    }

    /** Number of sections. */
    int sections() {
        return sectionStart.length - 1;
    }

    /** Bytes of the whole stream. */
    int length() {
        return sectionStart[sectionStart.length - 1];
    }

    /** The section {@code subpartition} reads. */
    int section(int subpartition) {
        return broadcast ? 0 : subpartition;
    }

    /** Stream offset of section {@code section}'s first byte. */
    int sectionStart(int section) {
        return sectionStart[section];
    }

    /** Bytes of section {@code section}. */
    int sectionLength(int section) {
        return sectionStart[section + 1] - sectionStart[section];
    }

    /** Whether section {@code section} holds data for subpartition {@code s}'s reader. */
    boolean holdsDataFor(int s) {
        return broadcast || sectionLength(s) > 0;
    }

    /** The page holding stream byte {@code at} (a binary search over the page starts). */
    int pageOf(int at) {
        int[] starts = pageStart();
        int low = 0;
        int high = starts.length - 2;
        while (low < high) {
            int mid = (low + high + 1) >>> 1;
            if (starts[mid] <= at) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }

    /** The page starts; the region must have been resident. */
    int[] pageStart() {
        int[] starts = pageStart;
        if (starts == null) {
            throw new IllegalStateException("region " + index + " was never in memory");
        }
        return starts;
    }

    /**
     * Views of stream bytes {@code [from, to)} of the resident pages, one per page touched, for a
     * gathering write by the write-through or a spill, each of which keeps the pages from being
     * dropped meanwhile. Duplicates: the pages' own positions belong to the IO thread. Allocates
     * the views.
     */
    ByteBuffer[] views(int from, int to) {
        Page[] held;
        synchronized (partition) {
            held = pages;
        }
        if (held == null) {
            throw new IllegalStateException("region " + index + " is not in memory");
        }
        int[] starts = pageStart();
        int first = pageOf(from);
        int last = to == from ? first : pageOf(to - 1);
        ByteBuffer[] views = new ByteBuffer[last - first + 1];
        for (int p = first; p <= last; p++) {
            int start = Math.max(from, starts[p]) - starts[p];
            int end = Math.min(to, starts[p + 1]) - starts[p];
            views[p - first] = held[p].buffer().duplicate().limit(end).position(start);
        }
        return views;
    }

    // ---- state, under the partition's lock ----

    /** Pages in memory now (0 when dropped). */
    int residentPages() {
        synchronized (partition) {
            Page[] held = pages;
            return held == null ? 0 : held.length;
        }
    }

    /** Pages in memory that a reader pins now (0 when none does). */
    int pinnedPages() {
        synchronized (partition) {
            Page[] held = pages;
            return held == null || pins == 0 ? 0 : held.length;
        }
    }

    /** Whether the region's pages are in memory. */
    boolean isResident() {
        synchronized (partition) {
            return pages != null;
        }
    }

    /**
     * Counts, at publishing, the subpartitions that have to read the region: those it holds data
     * for but {@code gone} (abandoned for good), which count as having read it. O(sections + gone).
     */
    void countReaders(IntSet gone) {
        synchronized (partition) {
            int readers = 0;
            if (broadcast) {
                readers = sectionLength(0) > 0 ? numSubpartitions : 0;
            } else {
                for (int s = 0; s < sections(); s++) {
                    readers += sectionLength(s) > 0 ? 1 : 0;
                }
            }
            readersLeft = readers;
            for (int s : gone) {
                pass(s);
            }
        }
    }

    /** Subpartitions that still have to read the region. */
    int readersLeft() {
        synchronized (partition) {
            return readersLeft;
        }
    }

    /** Whether subpartition {@code s} has read the region (passed it). */
    boolean hasPassed(int s) {
        synchronized (partition) {
            BitSet read = passed;
            return read != null && read.get(s);
        }
    }

    /** Whether subpartition {@code s} still has to read the region: data for it, not passed. */
    boolean needs(int s) {
        return holdsDataFor(s) && !hasPassed(s);
    }

    /**
     * Subpartition {@code s} no longer needs the region (it read it, or was abandoned); true if
     * that was news and no subpartition needs it any more — then the caller drops its pages. O(1).
     */
    boolean pass(int s) {
        synchronized (partition) {
            if (!needs(s)) {
                return false;
            }
            BitSet read = passed;
            if (read == null) {
                read = new BitSet(numSubpartitions);
                passed = read;
            }
            read.set(s);
            Int2IntOpenHashMap taken = midway;
            if (taken != null) {
                taken.remove(s);
            }
            readersLeft--;
            return readersLeft == 0;
        }
    }

    /** A reader of {@code s} took its section up to byte {@code offset} (unless it passed). */
    void took(int s, int offset) {
        synchronized (partition) {
            if (!needs(s)) {
                return;
            }
            Int2IntOpenHashMap taken = midway;
            if (taken == null) {
                taken = new Int2IntOpenHashMap();
                midway = taken;
            }
            taken.put(s, Math.max(taken.get(s), offset));
        }
    }

    /** The first byte of its section that {@code s} still needs (its length once it passed). */
    int neededFrom(int s) {
        synchronized (partition) {
            if (hasPassed(s)) {
                return holdsDataFor(s) ? sectionLength(section(s)) : 0;
            }
            Int2IntOpenHashMap taken = midway;
            return taken == null ? 0 : taken.get(s);
        }
    }

    /**
     * Per section: the first byte some subpartition still needs, or -1 where none needs anything.
     * O(sections), or O(subpartitions) for a broadcast region; allocates the array.
     */
    int[] unconsumedFrom() {
        synchronized (partition) {
            int[] from = new int[sections()];
            Arrays.fill(from, -1);
            int subpartitions = broadcast ? numSubpartitions : sections();
            for (int s = 0; s < subpartitions; s++) {
                if (needs(s)) {
                    int section = section(s);
                    int at = neededFrom(s);
                    from[section] = from[section] < 0 ? at : Math.min(from[section], at);
                }
            }
            return from;
        }
    }

    /**
     * Pins the pages for a reader that copies from them outside the lock: returned, and not dropped
     * until {@link #unpin}. Null, pinning nothing, if the region is not in memory.
     */
    Page @Nullable [] pin() {
        synchronized (partition) {
            Page[] held = pages;
            if (held != null) {
                pins++;
            }
            return held;
        }
    }

    /**
     * Ends a pin; returns the pages if the region was to be dropped and is idle now (the caller
     * recycles them), else null.
     */
    Page @Nullable [] unpin() {
        synchronized (partition) {
            pins--;
            return dropWhenIdle && pins == 0 && !writing ? drop() : null;
        }
    }

    /**
     * The write-through completed at {@code fileOffset} of the data file; returns the pages if the
     * region was to be dropped and is idle now, else null.
     */
    Page @Nullable [] written(long fileOffset) {
        synchronized (partition) {
            this.fileOffset = fileOffset;
            writing = false;
            return dropWhenIdle && pins == 0 ? drop() : null;
        }
    }

    /** The writer failed or was abandoned: no write-through runs any more. */
    void writerGone() {
        synchronized (partition) {
            writing = false;
        }
    }

    /**
     * Drops the pages now and returns them (the caller recycles them and takes them off its count),
     * or, while a reader copies from them or the write-through runs, marks them to go when that
     * ends and returns null; null too if the region is not in memory.
     */
    Page @Nullable [] drop() {
        synchronized (partition) {
            Page[] held = pages;
            if (held == null) {
                return null;
            }
            if (pins > 0 || writing) {
                dropWhenIdle = true;
                return null;
            }
            pages = null;
            dropWhenIdle = false;
            return held;
        }
    }

    /**
     * Whether a spill may take the region's pages now: it is in memory and not already to be
     * dropped, and (for {@code readOnce} partitions, whose spill writes the pages out) no reader
     * copies from them and no write-through runs.
     */
    boolean maySpill(boolean readOnce) {
        synchronized (partition) {
            boolean busy = pins > 0 || writing;
            return pages != null && !dropWhenIdle && !(busy && readOnce);
        }
    }

    /**
     * Sections were written to the spill file: section {@code i} from its byte {@code from[i]} at
     * {@code offsets[i]} (-1 where nothing was).
     */
    void spilled(long[] offsets, int[] from) {
        synchronized (partition) {
            spillOffset = offsets;
            spillFrom = from;
        }
    }

    /**
     * Where section {@code section}'s byte {@code offset} is in the data file, or -1 if the region
     * is not there.
     */
    long dataFilePosition(int section, int offset) {
        synchronized (partition) {
            return fileOffset < 0 ? -1 : fileOffset + sectionStart[section] + offset;
        }
    }

    /**
     * Where section {@code section}'s byte {@code offset} is in the spill file, or -1 if it was not
     * spilled.
     */
    long spillFilePosition(int section, int offset) {
        synchronized (partition) {
            long[] spilled = spillOffset;
            int[] from = spillFrom;
            if (spilled == null || from == null || spilled[section] < 0 || offset < from[section]) {
                return -1;
            }
            return spilled[section] + (offset - from[section]);
        }
    }

    /** Whether section {@code section}'s byte {@code offset} is on disk. */
    boolean onDisk(int section, int offset) {
        return dataFilePosition(section, offset) >= 0 || spillFilePosition(section, offset) >= 0;
    }

    /**
     * Checks the region's own accounting against {@code need}, the subpartitions that still need
     * it: see {@link HybridPartition#checkInvariants()}.
     *
     * @param fullMode whether the partition writes every region to disk
     * @param lost whether the partition is lost (a failed write-through leaves a region nowhere)
     * @throws IllegalStateException naming the broken invariant
     */
    void checkInvariants(int need, boolean fullMode, boolean lost) {
        synchronized (partition) {
            check(pins >= 0, "region %s has %s pins", index, pins);
            check(
                    readersLeft == need,
                    "region %s counts %s readers, %s still need it",
                    index,
                    readersLeft,
                    need);
            check(
                    need > 0 || pages == null || pins > 0 || writing,
                    "region %s is read by everyone but holds %s pages",
                    index,
                    residentPages());
            check(
                    !fullMode || writing || fileOffset >= 0 || lost,
                    "full-mode region %s is not on disk",
                    index);
            check(
                    fullMode || fileOffset < 0 || pageStart == null,
                    "read-once region %s was resident and yet written whole",
                    index);
        }
    }

    private static void check(boolean condition, String message, Object... args) {
        if (!condition) {
            throw new IllegalStateException(String.format(Locale.ROOT, message, args));
        }
    }
}
