package io.railyard.shuffle;

import io.railyard.topology.PartitionId;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * A partition's data cannot be read (its files are missing, corrupt or released): the consumer
 * fails and the producer must run again. Callers classify by this type, never by a generic {@link
 * IOException}, and hand {@link #partitionId()} to the JobManager as the lost partition.
 */
public class PartitionLostException extends IOException {
    private static final long serialVersionUID = 1L;

    private final PartitionId id;

    /**
     * Partition {@code id} (partition and producer attempt) is lost for {@code reason}; the message
     * reads {@code partition lost: 'p17.a2': reason}.
     */
    public PartitionLostException(PartitionId id, String reason, @Nullable Throwable cause) {
        super("partition lost: '" + id + "': " + reason, cause);
        this.id = id;
    }

    /**
     * The scheduler's id of the lost partition (partition and producer attempt), which a task
     * failure hands to the JobManager as the lost partition.
     */
    public PartitionId partitionId() {
        return id;
    }
}
