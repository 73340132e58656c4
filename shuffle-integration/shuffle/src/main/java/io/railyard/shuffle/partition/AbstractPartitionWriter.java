package io.railyard.shuffle.partition;

import static com.google.common.base.Preconditions.checkState;

import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The lifecycle every partition writer shares: arguments checked, any {@link IOException} turned
 * into a failed partition (files deleted, pages returned, a {@link PartitionWriteException} naming
 * the file and the bytes written), and pages returned exactly once on every path. A file that
 * cannot be deleted is never forgotten: it goes to the worker's {@link LeftoverFiles} (retried and
 * reported at {@link ShuffleWorker#close()}), and a failing write's exception carries the failure
 * to close or delete as suppressed. Not thread-safe.
 */
abstract class AbstractPartitionWriter<P extends ResultPartition> implements ResultPartitionWriter {
    private enum State {
        OPEN,
        FINISHED,
        FAILED,
        CLOSED
    }

    private final PartitionId id;
    private final String name;
    private final PartitionKind kind;
    private final int numSubpartitions;
    private final BufferOwner owner;
    private final List<Page> pages;
    private final LongAdder workerBytesWritten;
    private final LeftoverFiles leftovers;
    private State state = State.OPEN;
    private long bytesWritten;

    AbstractPartitionWriter(
            PartitionId id,
            PartitionKind kind,
            int numSubpartitions,
            BufferOwner owner,
            List<Page> pages,
            LongAdder workerBytesWritten,
            LeftoverFiles leftovers) {
        this.id = id;
        this.name = id.toString();
        this.kind = kind;
        this.numSubpartitions = numSubpartitions;
        this.owner = owner;
        this.pages = pages;
        this.workerBytesWritten = workerBytesWritten;
        this.leftovers = leftovers;
    }

    @Override
    public final PartitionId id() {
        return id;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final PartitionKind kind() {
        return kind;
    }

    @Override
    public Optional<ResultPartition> readablePartition() {
        return Optional.empty();
    }

    @Override
    public final int numSubpartitions() {
        return numSubpartitions;
    }

    @Override
    public final void emit(ByteBuffer record, int subpartition) throws IOException {
        ResultPartition.checkSubpartition(name, numSubpartitions, subpartition);
        checkOpen();
        try {
            append(record, subpartition);
        } catch (IOException e) {
            throw fail(e);
        }
    }

    @Override
    public final void broadcast(ByteBuffer record) throws IOException {
        checkOpen();
        try {
            appendBroadcast(record);
        } catch (IOException e) {
            throw fail(e);
        }
    }

    @Override
    public final P finish() throws IOException {
        checkOpen();
        P partition;
        try {
            partition = complete();
        } catch (IOException e) {
            throw fail(e);
        }
        state = State.FINISHED;
        returnPages();
        return partition;
    }

    @Override
    public final void close() {
        if (state != State.OPEN) {
            return;
        }
        state = State.CLOSED;
        discard(null);
    }

    /** An action of a writer that may fail with an {@link IOException}. */
    @FunctionalInterface
    interface WriteAction {
        /** Runs the action. */
        void run() throws IOException;
    }

    /**
     * Runs {@code action} as emit and broadcast do: only while open, and any {@link IOException}
     * fails the partition.
     */
    final void guarded(WriteAction action) throws IOException {
        checkOpen();
        try {
            action.run();
        } catch (IOException e) {
            throw fail(e);
        }
    }

    /** Bytes written to files so far. */
    final long bytesWritten() {
        return bytesWritten;
    }

    final void addWritten(long bytes) {
        bytesWritten += bytes;
        workerBytesWritten.add(bytes);
    }

    abstract void append(ByteBuffer record, int subpartition) throws IOException;

    abstract void appendBroadcast(ByteBuffer record) throws IOException;

    abstract P complete() throws IOException;

    /** Every file created so far. */
    abstract List<Path> files();

    /** The file most likely being written when a failure happens (named in the error). */
    abstract Path fileInProgress();

    abstract void closeFiles() throws IOException;

    private void checkOpen() {
        checkState(state == State.OPEN, "partition writer '%s' is %s", name, state);
    }

    private PartitionWriteException fail(IOException cause) {
        state = State.FAILED;
        String hint =
                cause instanceof FileSystemException fse
                                && String.valueOf(fse.getReason()).contains("Too many open files")
                        ? PartitionWriteException.openFilesHint(numSubpartitions)
                        : "";
        PartitionWriteException failure =
                new PartitionWriteException(id, fileInProgress(), bytesWritten, hint, cause);
        discard(failure);
        return failure;
    }

    /**
     * Closes and deletes the files and returns the pages. With {@code propagating} (a failed
     * write), a failure to close or delete is added to it as suppressed; a file that cannot be
     * deleted is recorded with the worker either way.
     */
    private void discard(@Nullable Throwable propagating) {
        discarding(propagating);
        IOException closeFailure = null;
        try {
            closeFiles();
        } catch (IOException e) {
            closeFailure = e;
        }
        IOException deleteFailure = leftovers.deleteAll(files(), propagating);
        if (closeFailure != null) {
            if (propagating != null) {
                propagating.addSuppressed(closeFailure);
            } else if (deleteFailure != null) {
                // Abandoned and a file survived: the close failure goes with the recorded one.
                deleteFailure.addSuppressed(closeFailure);
            }
            // Else abandoned and every file is gone: the data was being discarded anyway, and a
            // channel is released even when its close reports an error, so nothing is lost.
        }
        returnPages();
    }

    private void returnPages() {
        for (Page page : pages) {
            owner.recycle(page);
        }
        pages.clear();
        ownerDone(owner, state == State.FINISHED);
    }

    /**
     * Called first when the partition is given up ({@code propagating}: the failure, or null when
     * abandoned), before its files are closed and deleted. Does nothing by default.
     */
    void discarding(@Nullable Throwable propagating) {}

    /**
     * Called once the writer's working pages are back: closes {@code owner}. A writer whose
     * partition keeps pages after the writer is done ({@code finished}) overrides this.
     */
    void ownerDone(BufferOwner owner, boolean finished) {
        owner.close();
    }

    /** Whether the writer may still write (not finished, failed or closed). */
    final boolean isOpen() {
        return state == State.OPEN;
    }
}
