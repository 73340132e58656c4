package io.railyard.shuffle.format;

import io.railyard.topology.PartitionId;
import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a frame is being read (partition, file, byte offset; or a region in memory), so a failed
 * check names it. Mutable and reused per frame; not thread-safe.
 */
public final class FrameContext {
    private @Nullable PartitionId id;
    private String file = "";
    private long offset;
    private int memoryRegion = -1;

    /** A frame at byte {@code offset} of {@code file} of partition {@code id}. */
    public FrameContext at(PartitionId id, Path file, long offset) {
        return at(id, file.toString(), offset);
    }

    /**
     * A frame at byte {@code offset} of partition {@code id}'s data file as {@code file} names it:
     * a file of another host, say ("its data file at worker 10.0.0.7:4123").
     */
    public FrameContext at(PartitionId id, String file, long offset) {
        this.id = id;
        this.file = file;
        this.offset = offset;
        this.memoryRegion = -1;
        return this;
    }

    /** The frame is read from memory: region {@code region} of a hybrid partition. */
    public FrameContext inMemory(int region) {
        this.memoryRegion = region;
        return this;
    }

    /**
     * The exception for the frame here failing a check for {@code reason}: it names the partition,
     * the file and the byte offset, or the region in memory. Allocates it.
     */
    public CorruptPartitionFileException corrupt(String reason) {
        return new CorruptPartitionFileException(
                Objects.requireNonNull(id, "a frame's check failed before it was located"),
                file,
                offset,
                memoryRegion < 0
                        ? reason
                        : "in memory (region "
                                + memoryRegion
                                + ", byte "
                                + offset
                                + "): "
                                + reason);
    }
}
