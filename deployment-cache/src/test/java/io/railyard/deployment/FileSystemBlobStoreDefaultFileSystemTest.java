package io.railyard.deployment;

import static io.railyard.deployment.FileSystemBlobStoreTesting.JOB_A;
import static io.railyard.deployment.FileSystemBlobStoreTesting.assertHoldsExactly;
import static io.railyard.deployment.FileSystemBlobStoreTesting.content;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FileSystemBlobStore} on the default file system (real links, real atomic moves). */
class FileSystemBlobStoreDefaultFileSystemTest extends FileSystemBlobStoreContractTest {
    @TempDir Path tempDir;

    @Override
    Path base() {
        return tempDir;
    }

    @Test
    void get_hugeSparseFile_isRejectedBeforeAllocating() throws IOException {
        BlobKey key = store.put(JOB_A, content(1, 10));
        Path path = store.blobPath(key);
        long fourGiB = 4L << 30; // more than any byte array; sparse, so it costs no disk
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {1}), fourGiB - 1);
        }

        assertThatThrownBy(() -> store.get(key))
                .isInstanceOf(CorruptBlobException.class)
                .hasMessage(
                        "blob "
                                + key
                                + " in "
                                + path
                                + " is corrupt: it has 4294967296 bytes, more than"
                                + " maxBlobSizeBytes = 268435456, which a put never writes; the"
                                + " blob was deleted: put its content again (re-encode or refetch"
                                + " it)");
        assertThat(Files.exists(path)).isFalse();
        store.releaseJob(JOB_A);
        assertHoldsExactly(store);
    }
}
