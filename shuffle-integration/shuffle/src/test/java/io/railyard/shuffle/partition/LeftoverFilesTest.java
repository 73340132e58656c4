package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition file that cannot be deleted is never forgotten (ARCHITECTURE.md, Reliability
 * invariant 4 and row 22): with an exception propagating, the failure is suppressed in it; when a
 * writer is abandoned, the worker records the file, retries it at close and names it if it is still
 * there. A file is made undeletable by putting a non-empty directory in its place (tests run as
 * root, so permissions would not stop a delete).
 */
class LeftoverFilesTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder()
                    .pageSizeBytes(512)
                    .totalPages(256)
                    .sortBufferPages(4)
                    .compression(Compression.NONE)
                    .build();

    @TempDir Path dir;

    /** Replaces {@code file} with a directory holding one file; returns that file. */
    private static Path blockWithDirectory(Path file) throws IOException {
        Files.delete(file);
        Files.createDirectory(file);
        return Files.createFile(file.resolve("in-the-way"));
    }

    @Test
    void deleteAll_withAPropagatingException_suppressesTheFailureAndRecordsTheFile()
            throws IOException {
        Path gone = Files.createFile(dir.resolve("a.data"));
        Path stuck = Files.createFile(dir.resolve("b.data"));
        Path blocker = blockWithDirectory(stuck);
        LeftoverFiles leftovers = new LeftoverFiles();
        IllegalArgumentException propagating = new IllegalArgumentException("creating failed");

        IOException first = leftovers.deleteAll(List.of(gone, stuck), propagating);

        assertThat(gone).doesNotExist();
        assertThat(first).isInstanceOf(DirectoryNotEmptyException.class);
        assertThat(propagating.getSuppressed()).containsExactly(first);
        assertThat(leftovers.count()).isEqualTo(1);
        assertThat(leftovers.retryAll())
                .hasMessageContaining("could not delete 1 partition file(s)")
                .hasMessageContaining(stuck.toString())
                .hasMessageContaining("delete them by hand");
        Files.delete(blocker);
        assertThat(leftovers.retryAll()).isNull();
        assertThat(leftovers.count()).isZero();
        assertThat(stuck).doesNotExist();
    }

    @Test
    void abandonedWriter_fileCannotBeDeleted_recordedAndNamedByWorkerClose() throws Exception {
        ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir);
        PartitionWriter writer = ShuffleHarness.blocking(worker, PartitionKind.SORT, 0, 2);
        writer.emit(ByteBuffer.wrap(new byte[3000]), 1);
        Path index = dir.resolve("p0.a0.data");
        Path blocker = blockWithDirectory(index);

        writer.close();

        assertThat(worker.stats().filesNotDeleted()).isEqualTo(1);
        assertThat(worker.bufferPool().pagesInUse()).isEqualTo(IoScheduler.pagesNeeded(OPTIONS));
        assertThatThrownBy(worker::close)
                .isInstanceOf(IOException.class)
                .hasMessageContaining("could not delete 1 partition file(s), even when retried")
                .hasMessageContaining(index.toString())
                .satisfies(
                        e ->
                                assertThat(e.getSuppressed())
                                        .singleElement()
                                        .isInstanceOf(DirectoryNotEmptyException.class));
        assertThat(worker.bufferPool().pagesInUse()).isZero();
        worker.close(); // idempotent: reported once
        Files.delete(blocker);
    }

    @Test
    void abandonedWriter_obstacleGoneBeforeWorkerClose_retryDeletesItAndCloseIsQuiet()
            throws Exception {
        ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir);
        PartitionWriter writer = ShuffleHarness.blocking(worker, PartitionKind.HASH, 0, 3);
        writer.emit(ByteBuffer.wrap(new byte[100]), 2);
        Path blocker = blockWithDirectory(dir.resolve("p0.a0.hash.2"));
        writer.close();
        assertThat(worker.stats().filesNotDeleted()).isEqualTo(1);

        Files.delete(blocker);
        worker.close();

        assertThat(worker.stats().filesNotDeleted()).isZero();
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void failedWrite_fileCannotBeDeleted_failureSuppressedInTheWriteExceptionAndRecorded()
            throws Exception {
        try (FileSystem fs =
                Jimfs.newFileSystem(
                        Configuration.unix().toBuilder().setMaxSize(64 << 10).build())) {
            Path root = fs.getPath("/shuffle");
            ShuffleWorker worker = new ShuffleWorker(OPTIONS, root);
            PartitionWriter writer = ShuffleHarness.blocking(worker, PartitionKind.SORT, 0, 4);
            Path blocker = blockWithDirectory(root.resolve("p0.a0.data"));
            byte[] record = new byte[1000];
            assertThatThrownBy(
                            () -> {
                                for (int i = 0; i < 1000; i++) {
                                    writer.emit(ByteBuffer.wrap(record), i % 4);
                                }
                            })
                    .isInstanceOf(PartitionWriteException.class)
                    .hasMessageContaining("/shuffle/p")
                    .satisfies(
                            e ->
                                    assertThat(e.getSuppressed())
                                            .singleElement()
                                            .isInstanceOf(DirectoryNotEmptyException.class)
                                            .extracting(Throwable::getMessage)
                                            .isEqualTo("/shuffle/p0.a0.data"));
            assertThat(worker.stats().filesNotDeleted()).isEqualTo(1);
            Files.delete(blocker);
            worker.close();
            try (var files = Files.list(root)) {
                assertThat(files).isEmpty();
            }
        }
    }
}
