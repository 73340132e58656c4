package io.railyard.shuffle.partition;

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
 * <p>Thread-safe (its monitor is taken after the partition's). Spills run on the IO thread only, so
 * appends never interleave.
 */
final class HybridFiles {
    private final String partition;
    private final @Nullable PartitionId id;
    private final Path dataFile;
    private final Path spillFile;
    private @Nullable FileChannel dataRead;
    private @Nullable FileChannel spillRead;
    private @Nullable FileChannel spillWrite;
    private long spillEnd;
    private boolean closed;

    HybridFiles(String partition, @Nullable PartitionId id, Path dataFile, Path spillFile) {
        this.partition = partition;
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
     * Points {@code reader} at byte {@code reader.offset} of {@code section} of {@code region} on
     * disk: in the data file, or in the spill file.
     *
     * @throws IllegalStateException if that byte is on neither (a broken invariant)
     */
    void pointAtDisk(HybridReader reader, HybridRegion region, int section) throws IOException {
        reader.memory = null;
        if (region.fileOffset >= 0) {
            reader.file = dataForRead();
            reader.path = dataFile;
            reader.position = region.fileOffset + region.sectionStart[section] + reader.offset;
            return;
        }
        long[] spilled = region.spillOffset;
        int[] from = region.spillFrom;
        if (spilled == null
                || from == null
                || spilled[section] < 0
                || reader.offset < from[section]) {
            throw new IllegalStateException(
                    "hybrid partition '"
                            + partition
                            + "': byte "
                            + reader.offset
                            + " of section "
                            + section
                            + " of region "
                            + region.index
                            + " is neither in memory nor on disk");
        }
        reader.file = spillForRead();
        reader.path = spillFile;
        reader.position = spilled[section] + (reader.offset - from[section]);
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
            int start = region.sectionStart[section] + from[section];
            int end = region.sectionStart[section + 1];
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

    /** Bytes written to the spill file so far, a failed write's accepted bytes included. */
    synchronized long spillFileBytes() {
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

    private FileChannel openForRead(Path file) throws IOException {
        checkOpen();
        try {
            return FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new PartitionLostException(partition, id, "file " + file + " is gone", e);
        } catch (IOException e) {
            // EACCES, EIO, too many open files: the data cannot be read, so it is lost.
            throw new PartitionLostException(partition, id, "cannot open " + file + ": " + e, e);
        }
    }

    private void checkOpen() throws PartitionLostException {
        if (closed) {
            throw new PartitionLostException(partition, id, "its files were closed", null);
        }
    }
}
