package io.railyard.shuffle.partition;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A data file as the IO thread reads it: its channel is asked of the partition on the first read
 * and handed back when its last unfinished channel is done (a sort partition keeps its one data
 * channel open until release; a hash partition closes it). Owned by the IO thread; not thread-safe.
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
            open = partition.openForRead(path);
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
            partition.doneReading(open);
        }
    }
}
