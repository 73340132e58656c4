package io.railyard.shuffle;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import org.jspecify.annotations.Nullable;

/**
 * Deletes a directory tree without following links (a link is deleted, its target untouched),
 * deleting the top directory's marker file last. Where the file system offers a {@link
 * SecureDirectoryStream} (Linux's default one does), every entry is examined, opened and deleted
 * relative to its already open parent, without following links: a directory swapped for a link
 * while the walk runs — the classic {@code rm -rf} race in a shared temporary directory — is
 * deleted as the link it has become, never followed; elsewhere a walk checks each entry's type
 * before it descends. The marker goes last, so that a deletion cut short leaves a directory that is
 * still marked (and so still recognisable by {@link ShuffleDirectory#sweepStale}). Other threads
 * may still be creating files in the tree: a walk that finds a directory not empty at the end is
 * repeated, at most {@value #ATTEMPTS} times. Entries that vanish meanwhile are fine. O(entries)
 * per walk; stateless.
 */
final class TreeDeletion {
    static final int ATTEMPTS = 10;

    private TreeDeletion() {}

    /**
     * Deletes {@code root} and everything below it, {@code root/markerName} last; nothing if {@code
     * root} does not exist.
     *
     * @throws IOException naming the first path that could not be deleted
     */
    static void delete(Path root, String markerName) throws IOException {
        DirectoryNotEmptyException busy = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            try {
                if (!deleteSecurely(root, markerName)) {
                    Files.walkFileTree(root, new Deleter(root, root.resolve(markerName)));
                }
                return;
            } catch (DirectoryNotEmptyException e) {
                busy = e; // a file was created during the walk: walk again
            } catch (NoSuchFileException e) {
                if (root.toString().equals(e.getFile())) {
                    return; // already gone
                }
                throw cannotDelete(root, e);
            } catch (FileSystemException e) {
                throw cannotDelete(root, e);
            }
        }
        throw new IOException(
                "could not delete "
                        + (busy == null ? root : busy.getFile())
                        + " under "
                        + root
                        + ": files kept appearing in it during "
                        + ATTEMPTS
                        + " attempts; stop what writes there, then delete it",
                busy);
    }

    /**
     * Deletes {@code root}'s tree through secure directory streams, {@code markerName} last; false,
     * with nothing done, if the file system has none.
     */
    private static boolean deleteSecurely(Path root, String markerName) throws IOException {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(root, BasicFileAttributes.class, NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return true; // already gone
        }
        if (!attributes.isDirectory()) {
            Files.deleteIfExists(root); // a link or a file in its place: itself, not a target
            return true;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(root)) {
            if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
                return false;
            }
            deleteEntries(secure, root.getFileSystem().getPath(markerName));
        }
        Files.deleteIfExists(root);
        return true;
    }

    /**
     * Deletes every entry of {@code directory}, each relative to it and without following a link,
     * {@code last} (if not null) after the others.
     */
    private static void deleteEntries(SecureDirectoryStream<Path> directory, @Nullable Path last)
            throws IOException {
        for (Path entry : directory) {
            Path name = entry.getFileName();
            if (!name.equals(last)) {
                deleteEntry(directory, name);
            }
        }
        if (last != null) {
            try {
                directory.deleteFile(last);
            } catch (NoSuchFileException e) {
                // not there: nothing to delete last
            }
        }
    }

    /**
     * Deletes entry {@code name} of {@code directory} and, if it is a directory, its tree; a link
     * as itself. Package-private for the test that swaps a directory for a link under it.
     */
    static void deleteEntry(SecureDirectoryStream<Path> directory, Path name) throws IOException {
        boolean isDirectory;
        try {
            isDirectory = isDirectory(directory, name);
        } catch (NoSuchFileException e) {
            return; // deleted meanwhile
        }
        if (!isDirectory) {
            try {
                directory.deleteFile(name); // for a link: the link itself
            } catch (NoSuchFileException e) {
                // deleted meanwhile
            }
            return;
        }
        SecureDirectoryStream<Path> child;
        try {
            child = directory.newDirectoryStream(name, NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return; // deleted meanwhile
        } catch (FileSystemException e) {
            if (isDirectory(directory, name)) {
                throw e; // not a swap: it cannot be opened
            }
            // Swapped for a link (or a file) since it was examined: opening it refused to follow;
            // delete what is there now, as itself.
            directory.deleteFile(name);
            return;
        }
        try (child) {
            deleteEntries(child, null);
        }
        directory.deleteDirectory(name); // DirectoryNotEmptyException: written meanwhile, retried
    }

    private static boolean isDirectory(SecureDirectoryStream<Path> directory, Path name)
            throws IOException {
        return directory
                .getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW_LINKS)
                .readAttributes()
                .isDirectory();
    }

    private static IOException cannotDelete(Path root, FileSystemException e) {
        return new IOException(
                "could not delete "
                        + (e.getFile() == null ? root : e.getFile())
                        + " under "
                        + root
                        + ": "
                        + e,
                e);
    }

    /** Deletes files and links as visited, directories after their entries, the marker last. */
    private static final class Deleter extends SimpleFileVisitor<Path> {
        private final Path root;
        private final Path marker;

        Deleter(Path root, Path marker) {
            this.root = root;
            this.marker = marker;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
                throws IOException {
            if (!file.equals(marker)) {
                Files.deleteIfExists(file); // for a link: the link itself
            }
            return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException failure) throws IOException {
            if (failure instanceof NoSuchFileException && !file.equals(root)) {
                return FileVisitResult.CONTINUE; // deleted meanwhile
            }
            throw failure;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path directory, @Nullable IOException failure)
                throws IOException {
            if (failure != null) {
                throw failure;
            }
            if (directory.equals(root)) {
                Files.deleteIfExists(marker);
            }
            Files.deleteIfExists(directory);
            return FileVisitResult.CONTINUE;
        }
    }
}
