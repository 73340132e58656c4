package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The files of one {@link HybridPartition} as its readers and its spiller use them: the data file
 * (written by the producer through its own channel; read here) and the spill file (created at the
 * first spill, appended to by the IO thread). Channels are opened on first use and closed when the
 * partition is lost.
 *
 * <p>Thread-safe: its monitor guards the channels (see the lock order in the {@code
 * io.railyard.shuffle} package documentation). Spills run on the IO thread only, so appends never
 * interleave, and the spill file's length is confined to that thread.
 */
final class HybridFiles {
    private final PartitionId id;
    private final Path dataFile;
    private final Path spillFile;

    @GuardedBy("this")
    private @Nullable FileChannel dataRead;

    @GuardedBy("this")
    private @Nullable FileChannel spillRead;

    @GuardedBy("this")
    private @Nullable FileChannel spillWrite;

    @GuardedBy("this")
    private boolean closed;

    // Confined to the IO thread, which alone spills.
    private long spillEnd;

    HybridFiles(PartitionId id, Path dataFile, Path spillFile) {
        this.id = id;
        this.dataFile = dataFile;
        this.spillFile = spillFile;
    }

    Path dataFile() {
        return dataFile;
    }

    Path spillFile() {
        return spillFile;
    }

    /** The data file, for positioned reads. */
    synchronized FileChannel dataForRead() throws IOException {
        FileChannel open = dataRead;
        if (open == null) {
            open = openForRead(dataFile);
            dataRead = open;
        }
        return open;
    }

    /** The spill file, for positioned reads. */
    synchronized FileChannel spillForRead() throws IOException {
        FileChannel open = spillRead;
        if (open == null) {
            open = openForRead(spillFile);
            spillRead = open;
        }
        return open;
    }

    /**
     * Points {@code reader} at the {@code left} bytes from byte {@code offset} of {@code section}
     * of {@code region} on disk: in the data file, or in the spill file.
     *
     * @throws IllegalStateException if that byte is on neither (a broken invariant)
     */
    void pointAtDisk(HybridReader reader, HybridRegion region, int section, int offset, int left)
            throws IOException {
        long position = region.dataFilePosition(section, offset);
        if (position >= 0) {
            reader.atDisk(dataForRead(), dataFile, position, left);
            return;
        }
        position = region.spillFilePosition(section, offset);
        if (position < 0) {
            throw new IllegalStateException(
                    "hybrid partition '"
                            + id
                            + "': byte "
                            + offset
                            + " of section "
                            + section
                            + " of region "
                            + region.index()
                            + " is neither in memory nor on disk");
        }
        reader.atDisk(spillForRead(), spillFile, position, left);
    }

    /**
     * Appends region stream bytes {@code [from[i] + start of section i, end of section i)} of each
     * section with {@code from[i] >= 0} to the spill file; returns where each went (-1 where
     * nothing). Returns the offsets and adds the bytes written to {@code written[0]}.
     */
    long[] spill(HybridRegion region, int[] from, long[] written) throws IOException {
        FileChannel out = spillForWrite();
        long[] offsets = new long[from.length];
        for (int section = 0; section < from.length; section++) {
            offsets[section] = -1;
            if (from[section] < 0) {
                continue;
            }
            int start = region.sectionStart(section) + from[section];
            int end = region.sectionStart(section) + region.sectionLength(section);
            ByteBuffer[] views = region.views(start, end);
            long expected = (long) end - start;
            long done = 0;
            offsets[section] = spillEnd;
            while (done < expected) {
                long now = out.write(views);
                done += now;
                spillEnd += now; // per call: a failure after a short write names every byte
            }
            written[0] += done;
        }
        return offsets;
    }

    /**
     * Bytes written to the spill file so far, a failed write's accepted bytes included. The IO
     * thread's.
     */
    long spillFileBytes() {
        return spillEnd;
    }

    /** Closes every channel; later opens fail. Idempotent. */
    void close() {
        List<FileChannel> open = new ArrayList<>(3);
        synchronized (this) {
            closed = true;
            for (FileChannel channel : new FileChannel[] {dataRead, spillRead, spillWrite}) {
                if (channel != null) {
                    open.add(channel);
                }
            }
            dataRead = null;
            spillRead = null;
            spillWrite = null;
        }
        for (FileChannel channel : open) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // The partition is lost and its files are deleted next: what a failed close could
                // lose is discarded anyway, and the channel is released either way.
            }
        }
    }

    private synchronized FileChannel spillForWrite() throws IOException {
        FileChannel open = spillWrite;
        if (open == null) {
            checkOpen();
            open =
                    FileChannel.open(
                            spillFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            spillWrite = open;
        }
        return open;
    }

    @GuardedBy("this")
    private FileChannel openForRead(Path file) throws IOException {
        checkOpen();
        try {
            return FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new PartitionLostException(id, "file " + file + " is gone", e);
        } catch (IOException e) {
            // EACCES, EIO, too many open files: the data cannot be read, so it is lost.
            throw new PartitionLostException(id, "cannot open " + file + ": " + e, e);
        }
    }

    @GuardedBy("this")
    private void checkOpen() throws PartitionLostException {
        if (closed) {
            throw new PartitionLostException(id, "its files were closed", null);
        }
    }
}
