package io.railyard.shuffle;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import org.jspecify.annotations.Nullable;

/**
 * Deletes a directory tree without following links (a link is deleted, its target untouched),
 * deleting the top directory's marker file last, so that a deletion cut short leaves a directory
 * that is still marked (and so still recognisable by {@link ShuffleDirectory#sweepStale}). Other
 * threads may still be creating files in the tree: a walk that finds a directory not empty at the
 * end is repeated, at most {@value #ATTEMPTS} times. Entries that vanish meanwhile are fine.
 * O(entries) per walk; stateless.
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
                Files.walkFileTree(root, new Deleter(root, root.resolve(markerName)));
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
