package io.railyard.deployment;

import static io.railyard.deployment.FileSystemBlobStoreTesting.JOB_A;
import static io.railyard.deployment.FileSystemBlobStoreTesting.JOB_B;
import static io.railyard.deployment.FileSystemBlobStoreTesting.assertHoldsExactly;
import static io.railyard.deployment.FileSystemBlobStoreTesting.content;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@link FileSystemBlobStore} on Jimfs, plus what only Jimfs can simulate: a full disk. */
class FileSystemBlobStoreJimfsTest extends FileSystemBlobStoreContractTest {
    /** Jimfs' default block size; a file takes whole blocks. */
    private static final int BLOCK_BYTES = 8192;

    private final FileSystem fileSystem = Jimfs.newFileSystem(Configuration.unix());

    @Override
    Path base() throws IOException {
        return Files.createDirectories(fileSystem.getPath("/base"));
    }

    @Override
    void closeBase() throws IOException {
        fileSystem.close();
    }

    @Test
    void put_diskFull_failsNamingPathBytesAndCause_leavesNothing_storeStillUsable()
            throws IOException {
        try (FileSystem small =
                Jimfs.newFileSystem(
                        Configuration.unix().toBuilder().setMaxSize(8 * BLOCK_BYTES).build())) {
            FileSystemBlobStore full = FileSystemBlobStore.open(small.getPath("/store"));
            byte[] first = content(1, 5 * BLOCK_BYTES);
            byte[] second = content(2, 5 * BLOCK_BYTES);
            BlobKey firstKey = full.put(JOB_A, first);
            BlobKey secondKey = FileSystemBlobStore.keyOf(second);

            assertThatThrownBy(() -> full.put(JOB_B, second))
                    .isInstanceOf(IOException.class)
                    .hasMessage(
                            "cannot write blob "
                                    + secondKey
                                    + " to "
                                    + full.blobPath(secondKey)
                                    + ": 40960 bytes to write, 0 written; no space left on the"
                                    + " file system of /store (java.io.IOException: out of disk"
                                    + " space); free space there or move the store to a larger"
                                    + " disk")
                    .hasRootCauseMessage("out of disk space");
            assertThat(full.referenceCount(secondKey)).isZero();
            assertHoldsExactly(full, firstKey);

            full.release(JOB_A, firstKey); // frees the space
            assertThat(full.put(JOB_B, second)).isEqualTo(secondKey);
            assertThat(full.get(secondKey)).isEqualTo(second);
            assertHoldsExactly(full, secondKey);
            full.releaseJob(JOB_B);
            assertHoldsExactly(full);
            assertThat(full.checkInvariants()).isTrue();
        }
    }

    @Test
    void put_diskFullPartWayThrough_deletesThePartialTempFile() throws IOException {
        try (FileSystem small =
                Jimfs.newFileSystem(
                        Configuration.unix().toBuilder().setMaxSize(5 * BLOCK_BYTES).build())) {
            // One block holds the marker (its owner's process id), four are free.
            FileSystemBlobStore full = FileSystemBlobStore.open(small.getPath("/store"));
            byte[] tooBig = content(3, 4 * BLOCK_BYTES + 1);

            assertThatThrownBy(() -> full.put(JOB_A, tooBig))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("32769 bytes to write")
                    .hasMessageContaining("no space left on the file system of /store");
            assertThat(full.numReferences()).isZero();
            assertHoldsExactly(full);
            assertThat(full.put(JOB_A, content(4, 4 * BLOCK_BYTES))).isNotNull(); // exactly fits
            full.releaseJob(JOB_A);
            assertHoldsExactly(full);
        }
    }

    @Test
    void isOutOfSpace_recognisesLinuxWindowsAndJimfsMessages_only() {
        assertThat(FileSystemBlobStore.isOutOfSpace(new IOException("No space left on device")))
                .isTrue();
        assertThat(
                        FileSystemBlobStore.isOutOfSpace(
                                new IOException("There is not enough space on the disk")))
                .isTrue();
        assertThat(
                        FileSystemBlobStore.isOutOfSpace(
                                new IOException("wrapped", new IOException("out of disk space"))))
                .isTrue();
        assertThat(FileSystemBlobStore.isOutOfSpace(new IOException("Permission denied")))
                .isFalse();
        assertThat(FileSystemBlobStore.isOutOfSpace(new IOException())).isFalse();
    }
}
