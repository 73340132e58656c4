package io.railyard.shuffle.partition;

import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * A partition's data cannot be read (its files are missing, corrupt or released): the consumer
 * fails and the producer must run again. Callers classify by this type, never by a generic {@link
 * IOException}.
 */
public class PartitionLostException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String partition;

    /** A lost {@code partition} for {@code reason}. */
    public PartitionLostException(String partition, String reason, @Nullable Throwable cause) {
        super("partition lost: '" + partition + "': " + reason, cause);
        this.partition = partition;
    }

    /** The name of the lost partition. */
    public String partition() {
        return partition;
    }
}
