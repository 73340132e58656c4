package io.railyard.deployment;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/** Test helpers for {@link FileSystemBlobStore}: contents, file-tree leak checks, damage. */
final class FileSystemBlobStoreTesting {
    static final JobId JOB_A = JobId.parse("0000000000000000000000000000000a");
    static final JobId JOB_B = JobId.parse("0000000000000000000000000000000b");

    /** SHA-256 of no bytes. */
    static final String EMPTY_SHA256 =
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    /** SHA-256 of "abc" (FIPS 180-2, appendix B.1). */
    static final String ABC_SHA256 =
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    private FileSystemBlobStoreTesting() {}

    /** {@code size} pseudo-random bytes, the same for the same seed. */
    static byte[] content(long seed, int size) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /**
     * Asserts that the store's directory holds exactly the marker file and one regular file per
     * given key (in its shard), nothing else: no temp file, no stray link. Directories are not
     * listed (shard directories stay once created).
     */
    static void assertHoldsExactly(FileSystemBlobStore store, BlobKey... keys) throws IOException {
        Set<String> expected = new TreeSet<>();
        expected.add(FileSystemBlobStore.MARKER_FILE);
        for (BlobKey key : keys) {
            expected.add("blobs/" + key.hex().substring(0, 2) + "/" + key.hex());
        }
        assertThat(entriesBelow(store.root())).containsExactlyElementsOf(expected);
        assertThat(store.numBlobs()).isEqualTo(keys.length);
        assertThat(store.numTempFiles()).isZero();
    }

    /** Every non-directory entry below {@code root} (links not followed), as sorted '/' paths. */
    static List<String> entriesBelow(Path root) throws IOException {
        Set<String> entries = new TreeSet<>();
        Files.walkFileTree(
                root,
                new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                        entries.add(root.relativize(file).toString().replace('\\', '/'));
                        return FileVisitResult.CONTINUE;
                    }
                });
        return new ArrayList<>(entries);
    }

    /** Inverts the bits of byte {@code index} of {@code file}, as a failing disk might. */
    static void flipByte(Path file, int index) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[index] ^= (byte) 0xff;
        Files.write(file, bytes);
    }

    /** Whether something (a file, a link, a directory) exists at {@code path} itself. */
    static boolean existsNoFollow(Path path) {
        return Files.exists(path, NOFOLLOW_LINKS);
    }
}
