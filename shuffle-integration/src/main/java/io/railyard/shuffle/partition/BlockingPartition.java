package io.railyard.shuffle.partition;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A finished blocking result partition on local disk, readable by any number of consumers through
 * {@link InputGate}s until it is {@link #release() released}. Sort-based partitions keep one data
 * file and one index; hash-based ones one file per subpartition.
 *
 * <p>Thread-safe: readers and the releasing thread may run at once. After release, readers fail
 * with {@link PartitionLostException} and the files are gone.
 */
public abstract sealed class BlockingPartition permits SortPartition, HashPartition {
    private final String name;
    private final int numSubpartitions;
    private final long bytesOnDisk;
    private volatile boolean released;

    /** Channels of open gates reading this partition (the IO thread serves them together). */
    final Set<ChannelReader> readers = ConcurrentHashMap.newKeySet();

    BlockingPartition(String name, int numSubpartitions, long bytesOnDisk) {
        this.name = name;
        this.numSubpartitions = numSubpartitions;
        this.bytesOnDisk = bytesOnDisk;
    }

    /** The partition's name. */
    public final String name() {
        return name;
    }

    /** Number of subpartitions. */
    public final int numSubpartitions() {
        return numSubpartitions;
    }

    /** Bytes in the data files (frames with headers, after compression; index not included). */
    public final long bytesOnDisk() {
        return bytesOnDisk;
    }

    /** Every file this partition created (data and index). */
    public abstract List<Path> files();

    /** Whether {@link #release()} was called. */
    public final boolean isReleased() {
        return released;
    }

    /**
     * Deletes the files; readers of this partition then fail with {@link PartitionLostException}.
     * Idempotent. O(files).
     *
     * @throws IOException if a file cannot be deleted (the others still are)
     */
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

    final void checkSubpartition(int subpartition) {
        checkSubpartition(name, numSubpartitions, subpartition);
    }

    /**
     * Checks that {@code subpartition} is one of partition {@code name}'s {@code n}. Allocates
     * nothing when it passes (it runs per record).
     */
    static void checkSubpartition(String name, int n, int subpartition) {
        if (subpartition < 0 || subpartition >= n) { // not checkArgument: it would box n and s
            throw new IllegalArgumentException(
                    "subpartition of '"
                            + name
                            + "' must be in [0, "
                            + n
                            + "), was "
                            + subpartition);
        }
    }

    /** Regions a reader walks (1 for hash files). */
    abstract int regionCount();

    /** The data file holding {@code subpartition}. */
    abstract Path dataFile(int subpartition);

    /** Points {@code channel} at its section of {@code region}, reading the index if needed. */
    abstract void loadSection(ChannelReader channel, int region) throws IOException;

    void closeReadChannels() {}

    /** A channel reading {@code file}, opened now or shared; see {@link #doneReading}. */
    FileChannel openForRead(Path file) throws IOException {
        if (released) {
            throw new PartitionLostException(name, "the partition was released", null);
        }
        try {
            return FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new PartitionLostException(name, "data file " + file + " is gone", e);
        }
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
