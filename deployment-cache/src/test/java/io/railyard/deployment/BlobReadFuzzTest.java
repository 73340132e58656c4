package io.railyard.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.Files;

/**
 * Coverage-guided fuzzing (Jazzer) of what reads an offloaded blob back on a worker: {@link
 * FileSystemBlobStore#get} (size limit, SHA-256 against the key) and {@link
 * WorkerDescriptorCache#resolve} decoding it as {@link GroupDescriptors} — Reliability rows 14 and
 * 15. Any stored bytes either resolve to the group the input names, or fail with {@link
 * CorruptBlobException} (the bytes do not hash to their key; the blob is deleted, never decoded) or
 * {@link CorruptDescriptorException} (they do, but are no such group); nothing else, and the store
 * is empty again once the job is released.
 *
 * <p>The input's last byte says where the rest goes: bit 0 set plants it behind the store's back in
 * the file of another blob (a bit flip, a truncated or grown file: the hash must catch it), clear
 * puts it through the store (the hash matches, so the decoder must catch what is wrong); bits 1-2
 * are the group the input descriptor names. Blobs are at most {@value #MAX_BLOB_BYTES} bytes here,
 * so a planted file over the limit is refused unread. Seeds in {@code BlobReadFuzzTestInputs/}.
 */
class BlobReadFuzzTest {
    private static final int MAX_BLOB_BYTES = 1024;
    private static final JobId JOB = new JobId(7, 11);

    /** The blob whose file planted bytes replace. */
    private static final byte[] ANCHOR = "anchor".getBytes(StandardCharsets.UTF_8);

    private final FileSystem fileSystem = Jimfs.newFileSystem(Configuration.unix());
    private final FileSystemBlobStore store;

    BlobReadFuzzTest() throws IOException {
        store = FileSystemBlobStore.open(fileSystem.getPath("/store"), MAX_BLOB_BYTES);
    }

    @FuzzTest(maxDuration = "10s")
    void resolve_anyStoredBytes_theGroupOrCorruptBlobOrCorruptDescriptor(FuzzedDataProvider data)
            throws IOException {
        int selector = data.consumeByte() & 0xFF;
        boolean planted = (selector & 1) != 0 || data.remainingBytes() > MAX_BLOB_BYTES;
        int group = (selector >> 1) & 3;
        byte[] content = data.consumeRemainingAsBytes();
        BlobKey key;
        if (planted) {
            key = store.put(JOB, ANCHOR);
            Files.write(store.blobPath(key), content);
        } else {
            key = store.put(JOB, content);
        }
        boolean hashMatches = FileSystemBlobStore.keyOf(content).equals(key);
        try {
            GroupDescriptors resolved =
                    new WorkerDescriptorCache(store)
                            .resolve(InputDescriptor.offloaded(group, 0, 1, key));
            assertThat(hashMatches).as("served although it does not hash to its key").isTrue();
            assertThat(resolved.group()).isEqualTo(group);
            assertThat(resolved.size()).isEqualTo(GroupDescriptors.decode(content).size());
        } catch (CorruptBlobException e) {
            assertThat(hashMatches).as("a blob that hashes to its key, refused").isFalse();
            assertThat(e.key()).isEqualTo(key);
            assertThat(e.getMessage()).startsWith("blob " + key + " in ").doesNotContain("\n");
            assertThat(store.numBlobs()).as("the corrupt blob is deleted").isZero();
        } catch (CorruptDescriptorException e) {
            assertThat(hashMatches).isTrue();
            assertThat(e.getMessage()).startsWith("corrupt descriptor at byte ");
        } finally {
            store.releaseJob(JOB);
        }
        assertThat(store.numReferences()).isZero();
        assertThat(store.numBlobs()).isZero();
        assertThat(store.numTempFiles()).isZero();
    }
}
