package io.railyard.shuffle.partition;

import io.railyard.shuffle.buffer.Page;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * One sealed region of a {@link HybridPartition}: the frames of one drain of the sort buffer, as a
 * byte stream of sections — one per subpartition, or one that every subpartition reads (broadcast)
 * — laid out exactly as a region of a sort-based data file. The stream lives in memory (the pages
 * it was sealed into), on disk, or both:
 *
 * <ul>
 *   <li>in memory: {@code pages}, page {@code i} holding stream bytes {@code [pageStart[i],
 *       pageStart[i + 1])} from its position 0; a frame never straddles two pages;
 *   <li>on disk, whole: the stream at {@code fileOffset} of the partition's data file (written
 *       through, or written directly when memory was short);
 *   <li>on disk, spilled: section {@code i} from its byte {@code spillFrom[i]} on, at {@code
 *       spillOffset[i]} of the partition's spill file (the bytes before it were consumed already).
 * </ul>
 *
 * <p>Disk bytes equal memory bytes, so a reader's position in a section is the same wherever it
 * reads next. The layout ({@code sectionStart}, {@code pageStart}) is immutable; every other field
 * is guarded by the partition's lock. Page buffers are read only by the IO thread while published
 * (writers of the pages use duplicates).
 */
final class HybridRegion {
    /** Whether the region holds one section every subpartition reads. */
    final boolean broadcast;

    /** Section {@code i} is stream bytes {@code [sectionStart[i], sectionStart[i + 1])}. */
    final int[] sectionStart;

    /** Stream offsets of the pages (length pages + 1); null if the region was never in memory. */
    final int @Nullable [] pageStart;

    /** The pages, while the region is in memory; null once dropped (or never resident). */
    Page @Nullable [] pages;

    /** Offset of the whole stream in the data file, or -1. */
    long fileOffset = -1;

    /** Per section: offset in the spill file of its bytes from {@code spillFrom}, or -1. */
    long @Nullable [] spillOffset;

    /** Per section: the first byte that was spilled (valid where spillOffset >= 0). */
    int @Nullable [] spillFrom;

    /** A write of the whole stream to the data file is in progress (full mode, write-through). */
    boolean writing;

    /** Readers copying from {@code pages} right now; the pages are not dropped meanwhile. */
    int pins;

    /** Drop the pages as soon as no reader copies from them and no write-through is running. */
    boolean dropWhenIdle;

    /** Subpartitions that still have to read this region (see {@link HybridPartition}). */
    int readersLeft;

    /** The region's number in its partition. */
    int index;

    HybridRegion(
            boolean broadcast,
            int[] sectionStart,
            Page @Nullable [] pages,
            int @Nullable [] pageStart) {
        this.broadcast = broadcast;
        this.sectionStart = sectionStart;
        this.pages = pages;
        this.pageStart = pageStart;
    }

    /** Bytes of the whole stream. */
    int length() {
        return sectionStart[sectionStart.length - 1];
    }

    /** The section {@code subpartition} reads. */
    int section(int subpartition) {
        return broadcast ? 0 : subpartition;
    }

    /** Bytes of section {@code section}. */
    int sectionLength(int section) {
        return sectionStart[section + 1] - sectionStart[section];
    }

    /** Pages in memory now (0 when dropped). */
    int residentPages() {
        Page[] held = pages;
        return held == null ? 0 : held.length;
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
     * gathering write. Duplicates: the pages' own positions belong to the IO thread. Allocates the
     * views.
     */
    ByteBuffer[] views(int from, int to) {
        Page[] held = pages;
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

    /** Whether section {@code section}'s byte {@code offset} is on disk. */
    boolean onDisk(int section, int offset) {
        if (fileOffset >= 0) {
            return true;
        }
        long[] spilled = spillOffset;
        int[] from = spillFrom;
        return spilled != null && from != null && spilled[section] >= 0 && offset >= from[section];
    }
}
