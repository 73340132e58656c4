package io.railyard.deployment;

import static io.railyard.deployment.FileSystemBlobStoreTesting.JOB_A;
import static io.railyard.deployment.FileSystemBlobStoreTesting.assertHoldsExactly;
import static io.railyard.deployment.FileSystemBlobStoreTesting.content;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
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
    void open_whileAStoreOfThisProcessHoldsTheDirectory_isRefusedNamingIt_andDeletesNothing()
            throws IOException {
        BlobKey kept = store.put(JOB_A, content(2, 100));

        assertThatThrownBy(() -> FileSystemBlobStore.open(root))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith(
                        "the blob store in "
                                + root
                                + " is in use by process "
                                + ProcessHandle.current().pid()
                                + " (it holds the lock on ")
                .hasMessageContaining("a directory holds one store at a time");
        assertThat(store.get(kept)).isEqualTo(content(2, 100));

        store.releaseJob(JOB_A);
        store.close();
        store = FileSystemBlobStore.open(root); // free again once closed
        assertHoldsExactly(store);
    }

    @Test
    void open_whileAnotherProcessHoldsTheDirectory_isRefusedNamingItsPid_andDeletesNothing()
            throws Exception {
        BlobKey kept = store.put(JOB_A, content(3, 100));
        store.releaseJob(JOB_A);
        store.close();
        Path child = tempDir.resolve("child");
        Process holder =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-cp",
                                System.getProperty("java.class.path"),
                                BlobStoreHolder.class.getName(),
                                child.toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
        try {
            String ready =
                    new BufferedReader(
                                    new InputStreamReader(
                                            holder.getInputStream(), StandardCharsets.US_ASCII))
                            .readLine();
            assertThat(ready).as("the child opened the store").isEqualTo("held");
            Path precious = Files.write(child.resolve("blobs").resolve("x"), new byte[] {7});

            assertThatThrownBy(() -> FileSystemBlobStore.open(child))
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith(
                            "the blob store in " + child + " is in use by process " + holder.pid());
            assertThat(Files.readAllBytes(precious)).containsExactly(7);
        } finally {
            holder.getOutputStream().close(); // the child closes its store and exits
            assertThat(holder.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        store = FileSystemBlobStore.open(root);
        assertThat(store.referenceCount(kept)).isZero();
        FileSystemBlobStore.open(child).close(); // free once the child closed it
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
