package io.railyard.shuffle.format;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.topology.PartitionId;
import java.nio.file.Path;

/**
 * A partition file failed a check on read (frame checksum, lengths, lane, sequence, index entry or
 * truncation). It names the file and the byte offset; no byte of the bad frame reaches a consumer.
 * A kind of {@link PartitionLostException}: the producer is rerun.
 */
public final class CorruptPartitionFileException extends PartitionLostException {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final long offset;

    /** A corrupt {@code file} of partition {@code id} at byte {@code offset}. */
    public CorruptPartitionFileException(PartitionId id, Path file, long offset, String reason) {
        this(id, file.toString(), offset, reason);
    }

    /** A corrupt file of partition {@code id} named {@code file} (maybe another host's). */
    CorruptPartitionFileException(PartitionId id, String file, long offset, String reason) {
        super(id, "corrupt partition file " + file + " at offset " + offset + ": " + reason, null);
        this.file = file;
        this.offset = offset;
    }

    /** The corrupt file. */
    public String file() {
        return file;
    }

    /** The byte offset of the bad frame or entry in {@link #file()}. */
    public long offset() {
        return offset;
    }
}
