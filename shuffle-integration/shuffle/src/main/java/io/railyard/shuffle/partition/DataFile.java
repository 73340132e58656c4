package io.railyard.shuffle.partition;

import java.io.IOException;
import java.nio.channels.FileChannel;
import org.jspecify.annotations.Nullable;

/**
 * A hybrid partition's data file for its writer, created at its first write: a partition that keeps
 * its data in memory (pipelined, selective) never makes one, so deploying a producer costs no file
 * system call (creating one per partition was the whole of a 4,096-task job's time to RUNNING:
 * every deployment waited for an {@code open(O_CREAT)}).
 *
 * <p>Not thread-safe: owned by the writer's thread.
 */
final class DataFile {
    /** Creates the file: a new one, for writing. */
    @FunctionalInterface
    interface Creator {
        FileChannel create() throws IOException;
    }

    private final Creator creator;
    private @Nullable FileChannel channel;
    private boolean closed;

    DataFile(Creator creator) {
        this.creator = creator;
    }

    /** A data file made already (tests hand their own channel in); closed with it. */
    static DataFile of(FileChannel channel) {
        DataFile made = new DataFile(() -> channel);
        made.channel = channel;
        return made;
    }

    /**
     * The channel to write to, made now if it was not.
     *
     * @throws IOException if the file cannot be created
     * @throws IllegalStateException once closed
     */
    FileChannel channel() throws IOException {
        FileChannel open = channel;
        if (open == null) {
            if (closed) {
                throw new IllegalStateException("the data file was closed");
            }
            open = creator.create();
            channel = open;
        }
        return open;
    }

    /** Closes the channel if it was made. Idempotent. */
    void close() throws IOException {
        closed = true;
        FileChannel open = channel;
        channel = null;
        if (open != null) {
            open.close();
        }
    }
}
