package io.railyard.shuffle.partition;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;

/**
 * A data file as the IO thread reads it: opened on the first read, closed when its last unfinished
 * channel is done. Owned by the IO thread; not thread-safe.
 */
final class ReadFile {
    final Path path;
    final BlockingPartition partition;
    private @Nullable FileChannel channel;
    int users;

    ReadFile(Path path, BlockingPartition partition) {
        this.path = path;
        this.partition = partition;
    }

    FileChannel channel() throws IOException {
        FileChannel open = channel;
        if (open == null) {
            try {
                open = FileChannel.open(path, StandardOpenOption.READ);
            } catch (NoSuchFileException e) {
                throw new PartitionLostException(
                        partition.name(), "data file " + path + " is gone", e);
            }
            channel = open;
        }
        return open;
    }

    boolean isOpen() {
        return channel != null;
    }

    void close() {
        FileChannel open = channel;
        channel = null;
        if (open != null) {
            try {
                open.close();
            } catch (IOException ignored) {
                // A read-only channel loses nothing on close.
            }
        }
    }
}
