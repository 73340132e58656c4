package io.railyard.shuffle.partition;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A finished sort-based partition: one data file of regions, each region clustered by subpartition,
 * and one {@link SortIndex index} file. Thread-safe.
 */
final class SortPartition extends BlockingPartition {
    private final Path dataFile;
    private final Path indexFile;
    private final int regions;
    private final SortIndex index = new SortIndex();
    private @Nullable FileChannel indexChannel;

    SortPartition(String name, int n, Path dataFile, Path indexFile, int regions, long dataBytes) {
        super(name, n, dataBytes);
        this.dataFile = dataFile;
        this.indexFile = indexFile;
        this.regions = regions;
    }

    @Override
    public List<Path> files() {
        return List.of(dataFile, indexFile);
    }

    @Override
    int regionCount() {
        return regions;
    }

    @Override
    Path dataFile(int subpartition) {
        return dataFile;
    }

    @Override
    int fileKey(int subpartition) {
        return 0;
    }

    @Override
    synchronized void loadSection(ChannelReader channel, int region, ByteBuffer entry)
            throws IOException {
        int s = channel.subpartition();
        long position = SortIndex.position(region, s, numSubpartitions());
        entry.clear();
        FileChannel file = indexChannel();
        while (entry.hasRemaining()) {
            if (file.read(entry, position + entry.position()) < 0) {
                throw new CorruptPartitionFileException(
                        name(), indexFile, position, "index entry past the end of the file");
            }
        }
        if (!index.valid(entry, region, s)) {
            throw new CorruptPartitionFileException(
                    name(), indexFile, position, "index entry checksum mismatch");
        }
        long offset = entry.getLong(0);
        int length = entry.getInt(8);
        if (offset < 0 || length < 0 || offset + length > bytesOnDisk()) {
            throw new CorruptPartitionFileException(
                    name(), indexFile, position, "index entry outside the data file");
        }
        channel.setSection(offset, length);
    }

    private FileChannel indexChannel() throws IOException {
        if (isReleased()) {
            throw new PartitionLostException(name(), "the partition was released", null);
        }
        FileChannel file = indexChannel;
        if (file == null) {
            try {
                file = FileChannel.open(indexFile, StandardOpenOption.READ);
            } catch (NoSuchFileException e) {
                throw new PartitionLostException(name(), "index file " + indexFile + " is gone", e);
            }
            indexChannel = file;
        }
        return file;
    }

    @Override
    synchronized void closeIndex() {
        FileChannel file = indexChannel;
        indexChannel = null;
        if (file != null) {
            try {
                file.close();
            } catch (IOException ignored) {
                // Closing a read-only channel loses nothing.
            }
        }
    }
}
