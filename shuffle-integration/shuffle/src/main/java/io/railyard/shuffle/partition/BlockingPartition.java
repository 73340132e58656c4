package io.railyard.shuffle.partition;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A finished blocking result partition on local disk, readable by any number of consumers through
 * {@link InputGate}s until it is {@link #release() released}. Sort-based partitions keep one data
 * file and one index; hash-based ones one file per subpartition.
 *
 * <p>Thread-safe: readers and the releasing thread may run at once. After release, readers fail
 * with {@link PartitionLostException} and the files are gone.
 */
public abstract sealed class BlockingPartition extends ResultPartition
        permits SortPartition, HashPartition {
    private final long bytesOnDisk;
    private volatile boolean released;

    BlockingPartition(PartitionId id, int numSubpartitions, long bytesOnDisk) {
        super(id, numSubpartitions);
        this.bytesOnDisk = bytesOnDisk;
    }

    /** Bytes in the data files (frames with headers, after compression; index not included). */
    public final long bytesOnDisk() {
        return bytesOnDisk;
    }

    @Override
    public final boolean isReleased() {
        return released;
    }

    /**
     * Deletes the files; readers of this partition then fail with {@link PartitionLostException}.
     * Idempotent. O(files).
     *
     * @throws IOException if a file cannot be deleted (the others still are)
     */
    @Override
    public final void release() throws IOException {
        if (released) {
            return;
        }
        released = true;
        closeReadChannels();
        IOException first = null;
        for (Path file : files()) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Bytes of frames in the files (all of them but a sort file's index blocks and holes). */
    long frameBytes() {
        return bytesOnDisk;
    }

    /** Regions a reader walks (1 for hash files). */
    abstract int regionCount();

    /**
     * Whether {@code subpartition} has any frame in the files: a reader of a subpartition without
     * one skips the partition, opening no file. O(1), from the heap.
     */
    abstract boolean holdsDataFor(int subpartition);

    /** The data file holding {@code subpartition}. */
    abstract Path dataFile(int subpartition);

    /** Points {@code cursor} at its section of {@code region}, reading the index if needed. */
    abstract void loadSection(SectionCursor cursor, int region) throws IOException;

    void closeReadChannels() {}

    /** A channel reading {@code file}, opened now or shared; see {@link #doneReading}. */
    FileChannel openForRead(Path file) throws IOException {
        if (released) {
            throw new PartitionLostException(id(), "the partition was released", null);
        }
        try {
            return FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new PartitionLostException(id(), "data file " + file + " is gone", e);
        } catch (IOException e) {
            // EACCES, EIO, too many open files: the data cannot be read, so it is lost.
            throw new PartitionLostException(id(), "cannot open data file " + file + ": " + e, e);
        }
    }

    /**
     * A channel reading {@code file} for a sender that hands its bytes to the socket after this
     * call returns ({@link SectionReader}): release does not close it under the sender, which gives
     * it back with {@link #doneSending}.
     */
    FileChannel openForSending(Path file) throws IOException {
        return openForRead(file);
    }

    /** A sender no longer needs {@code channel} (from {@link #openForSending}). */
    void doneSending(FileChannel channel) {
        doneReading(channel);
    }

    /** The IO thread no longer needs {@code channel} for now. Closes it unless shared. */
    void doneReading(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // A read-only channel loses nothing on close.
        }
    }
}
