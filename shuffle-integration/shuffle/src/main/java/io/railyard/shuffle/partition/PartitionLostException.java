package io.railyard.shuffle.partition;

import io.railyard.topology.PartitionId;
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
    private final @Nullable PartitionId id;

    /** A lost {@code partition}, known by name only, for {@code reason}. */
    public PartitionLostException(String partition, String reason, @Nullable Throwable cause) {
        this(partition, null, reason, cause);
    }

    /**
     * A lost {@code partition} for {@code reason}; {@code id} is the scheduler's id of it (null if
     * it was created by name only).
     */
    public PartitionLostException(
            String partition, @Nullable PartitionId id, String reason, @Nullable Throwable cause) {
        super("partition lost: '" + partition + "': " + reason, cause);
        this.partition = partition;
        this.id = id;
    }

    /** The name of the lost partition. */
    public String partition() {
        return partition;
    }

    /**
     * The scheduler's id of the lost partition (partition and producer attempt), which a task
     * failure hands to the JobManager as the lost partition; null if the partition was created by
     * name only.
     */
    public @Nullable PartitionId partitionId() {
        return id;
    }
}
