package io.railyard.shuffle.partition;

import java.nio.file.Path;

/**
 * Where a frame is being read (partition, file, byte offset), so a failed check names it. Mutable
 * and reused per frame; not thread-safe.
 */
final class FrameContext {
    private String partition = "";
    private Path file = Path.of("");
    private long offset;

    FrameContext at(String partition, Path file, long offset) {
        this.partition = partition;
        this.file = file;
        this.offset = offset;
        return this;
    }

    CorruptPartitionFileException corrupt(String reason) {
        return new CorruptPartitionFileException(partition, file, offset, reason);
    }
}
