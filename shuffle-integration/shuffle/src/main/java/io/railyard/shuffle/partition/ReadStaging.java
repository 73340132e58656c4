package io.railyard.shuffle.partition;

import io.railyard.shuffle.format.FrameHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The IO thread's staging area for disk reads: a run of pages one read fills, a scratch page for a
 * frame that straddles two of them, and the view of the frame header being read. Every reader of
 * partition files (blocking and hybrid) slices its frames out of it.
 *
 * <p>Not thread-safe: owned by the IO thread (or a test's thread). No method allocates.
 */
final class ReadStaging {
    private final ByteBuffer[] pages;
    private final ByteBuffer scratch;
    private final int pageSize;
    // The current frame's header, copied out of the staging area (it may straddle two pages),
    // and the view that reads it: both reused for every frame.
    private final ByteBuffer headerBytes = ByteBuffer.allocate(FrameHeader.BYTES);
    private final FrameHeader header = new FrameHeader().wrap(headerBytes, 0);

    /** A staging area of {@code pages} and one {@code scratch} page, all of {@code pageSize}. */
    ReadStaging(ByteBuffer[] pages, ByteBuffer scratch, int pageSize) {
        this.pages = pages;
        this.scratch = scratch;
        this.pageSize = pageSize;
    }

    /** Bytes one read can fill. */
    int pageSize() {
        return pageSize;
    }

    long capacity() {
        return (long) pages.length * pageSize;
    }

    /**
     * Reads {@code [start, start + length)} of {@code channel} into the pages: one positioned read
     * when it fits a page, else one scattering read (holding the channel's monitor, so that IO
     * threads sharing the channel do not move each other's position). Returns the bytes read (fewer
     * at the end of the file).
     */
    int read(FileChannel channel, long start, int length) throws IOException {
        int count = (length + pageSize - 1) / pageSize;
        for (int p = 0; p < count; p++) {
            pages[p].clear().limit(Math.min(pageSize, length - p * pageSize));
        }
        if (count == 1) {
            int got = 0;
            while (got < length) {
                int n = channel.read(pages[0], start + got); // one pread, no seek
                if (n <= 0) {
                    break;
                }
                got += n;
            }
            return got;
        }
        // A scattering read uses the channel's position, and a partition's read channel is shared
        // by the IO threads of every worker whose gates read it: position and read as one step.
        synchronized (channel) {
            channel.position(start);
            int got = 0;
            while (got < length) {
                long n = channel.read(pages, 0, count);
                if (n <= 0) {
                    break;
                }
                got += (int) n;
            }
            return got;
        }
    }

    /** The header of the frame at staging byte {@code at}, copied out and viewed. */
    FrameHeader header(int at) {
        headerBytes.clear();
        copy(at, FrameHeader.BYTES, headerBytes);
        return header;
    }

    /**
     * The stored payload of the frame at staging byte {@code at}: a view of one page, or copied
     * into the scratch page when it straddles two.
     */
    ByteBuffer stored(int at, int frameLength) {
        int from = at + FrameHeader.BYTES;
        int length = frameLength - FrameHeader.BYTES;
        ByteBuffer page = pages[from / pageSize];
        int offset = from % pageSize;
        if (offset + length <= pageSize) {
            return page.limit(offset + length).position(offset);
        }
        scratch.clear();
        copy(from, length, scratch);
        return scratch;
    }

    /** Copies staging bytes {@code [from, from + length)} into {@code target}, then flips it. */
    private void copy(int from, int length, ByteBuffer target) {
        int at = from;
        int left = length;
        while (left > 0) {
            ByteBuffer page = pages[at / pageSize].clear();
            int offset = at % pageSize;
            int n = Math.min(pageSize - offset, left);
            target.put(target.position(), page, offset, n);
            target.position(target.position() + n);
            at += n;
            left -= n;
        }
        target.flip();
    }
}
