package io.railyard.shuffle.partition;

import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Writing a partition failed (disk full, IO error, too many open files): the partition is failed,
 * its files are deleted and its pages returned. The message names the partition, the file and the
 * bytes written before the failure.
 */
public final class PartitionWriteException extends IOException {
    private static final long serialVersionUID = 1L;

    private final PartitionId id;

    /**
     * Writing {@code file} of partition {@code id} failed after {@code bytesWritten} bytes; {@code
     * hint} (or "") says what to change.
     */
    public PartitionWriteException(
            PartitionId id, Path file, long bytesWritten, String hint, IOException cause) {
        super(
                "writing partition '"
                        + id
                        + "' to "
                        + file
                        + " failed after "
                        + bytesWritten
                        + " bytes: "
                        + cause
                        + "; the partition's files were deleted"
                        + (hint.isEmpty() ? "" : "; " + hint),
                cause);
        this.id = id;
    }

    /** The partition whose writing failed. */
    public PartitionId partitionId() {
        return id;
    }

    /** The hint for a hash-based partition of {@code n} subpartitions that ran out of files. */
    static String openFilesHint(int n) {
        return "a hash-based partition keeps one open file per subpartition ("
                + n
                + "); raise the open-file limit (ulimit -n) or use the sort-based partition";
    }
}
