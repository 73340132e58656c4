package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkState;
import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import com.google.common.collect.Iterables;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The directory layout of a {@link FileSystemBlobStore} and the file-system checks that keep it
 * from following links: where a blob lives, whether it is stored, how startup empties the
 * directories. Holds no state besides paths; the store's lock guards every call that changes a blob
 * path.
 *
 * <pre>
 * root/railyard-blob-store       marker: this directory belongs to a blob store
 * root/blobs/3a/3a7b…(64 hex)    one file per blob, named by its key, in a shard of its first 2 digits
 * root/tmp/3a7b….17.tmp          a write in flight; moved into blobs/ once complete
 * </pre>
 */
final class FileSystemBlobStoreLayout {
    static final String MARKER_FILE = "railyard-blob-store";
    static final String BLOBS_DIRECTORY = "blobs";
    static final String TEMP_DIRECTORY = "tmp";
    private static final String TEMP_SUFFIX = ".tmp";
    private static final int SHARD_DIGITS = 2;

    final Path root;
    final Path blobsDirectory;
    final Path tempDirectory;

    private FileSystemBlobStoreLayout(Path root) {
        this.root = root;
        this.blobsDirectory = root.resolve(BLOBS_DIRECTORY);
        this.tempDirectory = root.resolve(TEMP_DIRECTORY);
    }

    /**
     * Creates {@code root} if needed and marks it as a blob store's, refusing a non-empty directory
     * without the marker: startup deletes what is below {@code blobs/} and {@code tmp/}, which must
     * not hit someone else's files.
     */
    static FileSystemBlobStoreLayout claim(Path root) throws IOException {
        Files.createDirectories(root);
        Path marker = root.resolve(MARKER_FILE);
        BasicFileAttributes markerAttributes = attributesOf(marker);
        if (markerAttributes != null) {
            if (!markerAttributes.isRegularFile()) {
                throw new IOException(
                        marker + " is " + describe(markerAttributes) + ", not a regular file");
            }
            return new FileSystemBlobStoreLayout(root);
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(root)) {
            if (entries.iterator().hasNext()) {
                throw new IOException(
                        "refusing to open a blob store in "
                                + root
                                + ": the directory is not empty and has no "
                                + MARKER_FILE
                                + " file, and opening a store deletes what is below "
                                + BLOBS_DIRECTORY
                                + "/ and "
                                + TEMP_DIRECTORY
                                + "/; choose a new or empty directory");
            }
        }
        Files.createFile(marker);
        return new FileSystemBlobStoreLayout(root);
    }

    /**
     * Creates {@code directory}, or deletes everything below it without following links (a link is
     * deleted, its target untouched). Returns how many files and links it deleted. O(entries).
     */
    static int emptyDirectory(Path directory) throws IOException {
        BasicFileAttributes attributes = attributesOf(directory);
        if (attributes == null) {
            Files.createDirectory(directory);
            return 0;
        }
        if (!attributes.isDirectory()) {
            throw new IOException(
                    directory
                            + " is "
                            + describe(attributes)
                            + ", not a directory; the blob store never follows links: remove it");
        }
        Emptier emptier = new Emptier(directory);
        Files.walkFileTree(directory, emptier); // without FOLLOW_LINKS: links are visited as files
        return emptier.deletedFiles;
    }

    /** Deletes the files, links and subdirectories below a directory, keeping the directory. */
    private static final class Emptier extends SimpleFileVisitor<Path> {
        private final Path top;
        int deletedFiles;

        Emptier(Path top) {
            this.top = top;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
                throws IOException {
            Files.delete(file); // for a link: the link itself
            deletedFiles++;
            return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path directory, @Nullable IOException failure)
                throws IOException {
            if (failure != null) {
                throw failure;
            }
            if (!directory.equals(top)) {
                Files.delete(directory);
            }
            return FileVisitResult.CONTINUE;
        }
    }

    /** Where blob {@code key} is stored: {@code blobs/<first 2 digits>/<key>}. O(1). */
    Path blobPath(BlobKey key) {
        return shardPath(key).resolve(key.hex());
    }

    /** The directory of blob {@code key}: {@code blobs/<first 2 digits>}. O(1). */
    Path shardPath(BlobKey key) {
        return blobsDirectory.resolve(key.hex().substring(0, SHARD_DIGITS));
    }

    /** The temp file of write number {@code writeNumber} of blob {@code key}. O(1). */
    Path tempPath(BlobKey key, long writeNumber) {
        return tempDirectory.resolve(key.hex() + "." + writeNumber + TEMP_SUFFIX);
    }

    /**
     * Whether a regular file is stored for {@code key}: {@code false} if there is none; throws if a
     * link, directory or other non-regular entry stands in place of the file or of its shard
     * directory. Follows no link; two metadata reads.
     */
    boolean isStored(BlobKey key) throws IOException {
        Path shard = shardPath(key);
        BasicFileAttributes shardAttributes = attributesOf(shard);
        if (shardAttributes == null) {
            return false;
        }
        if (!shardAttributes.isDirectory()) {
            throw notFollowed(key, shard, shardAttributes, "a directory");
        }
        Path path = blobPath(key);
        BasicFileAttributes attributes = attributesOf(path);
        if (attributes == null) {
            return false;
        }
        if (!attributes.isRegularFile()) {
            throw notFollowed(key, path, attributes, "a regular file");
        }
        return true;
    }

    /** Creates the shard directory of {@code key} unless it exists. */
    void createShard(BlobKey key) throws IOException {
        if (attributesOf(shardPath(key)) == null) {
            Files.createDirectory(shardPath(key));
        }
    }

    /**
     * Deletes whatever stands at the path of {@code key} (a link itself, never its target), if
     * anything; refuses to reach it through a shard that is a link.
     */
    void deleteBlobEntry(BlobKey key) throws IOException {
        BasicFileAttributes shard = attributesOf(shardPath(key));
        if (shard == null) {
            return;
        }
        if (!shard.isDirectory()) {
            throw notFollowed(key, shardPath(key), shard, "a directory");
        }
        Files.deleteIfExists(blobPath(key));
    }

    /** How many entries the shard directories hold. O(blobs + shards). */
    int numBlobEntries() throws IOException {
        int count = 0;
        for (Path shard : list(blobsDirectory)) {
            count += list(shard).length;
        }
        return count;
    }

    /** How many entries {@code tmp/} holds. O(temp files). */
    int numTempEntries() throws IOException {
        return list(tempDirectory).length;
    }

    /**
     * The keys of all blobs, checking that {@code blobs/} holds only shard directories of regular
     * files named by a key of that shard ({@link IllegalStateException} otherwise). O(blobs).
     */
    List<BlobKey> checkedBlobKeys() throws IOException {
        List<BlobKey> keys = new ArrayList<>();
        for (Path shard : list(blobsDirectory)) {
            BasicFileAttributes attributes = attributesOf(shard);
            String name = shard.getFileName().toString();
            checkState(
                    attributes != null && attributes.isDirectory() && name.length() == SHARD_DIGITS,
                    "%s is not a shard directory",
                    shard);
            for (Path file : list(shard)) {
                BasicFileAttributes fileAttributes = attributesOf(file);
                String fileName = file.getFileName().toString();
                checkState(
                        fileAttributes != null
                                && fileAttributes.isRegularFile()
                                && fileName.startsWith(name),
                        "%s is not a regular blob file of shard %s",
                        file,
                        name);
                keys.add(new BlobKey(fileName));
            }
        }
        return keys;
    }

    private static IOException notFollowed(
            BlobKey key, Path path, BasicFileAttributes attributes, String expected) {
        return new IOException(
                "blob "
                        + key
                        + ": "
                        + path
                        + " is "
                        + describe(attributes)
                        + ", not "
                        + expected
                        + "; the blob store never follows links and did not read it: remove it"
                        + " (a put of the content then stores the blob again)");
    }

    private static String describe(BasicFileAttributes attributes) {
        if (attributes.isSymbolicLink()) {
            return "a symbolic link";
        } else if (attributes.isDirectory()) {
            return "a directory";
        } else if (attributes.isRegularFile()) {
            return "a regular file";
        }
        return "a special file";
    }

    /** The attributes of {@code path} itself (a link is not followed), or null if none exists. */
    static @Nullable BasicFileAttributes attributesOf(Path path) throws IOException {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class, NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private static Path[] list(Path directory) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            return Iterables.toArray(entries, Path.class);
        }
    }
}
